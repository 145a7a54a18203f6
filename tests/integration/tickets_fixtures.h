// Fixtures shared by the ticket and comment tests (api-v1 §3-§6): a shop with a customer and
// agents, shortcuts for the four routes, assertions for the shapes they answer with, and a
// read-write database connection to plant rows the API cannot make (ids above 2^53).
//
// Like the harness, every helper that cannot do its job throws std::runtime_error saying why.
#pragma once

#include <json/json.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "harness.h"

namespace sql {
class Connection;
}

namespace it::tickets {

inline constexpr char kTicketsPath[] = "/api/v1/tickets";

// "/api/v1/tickets/<id>" and "/api/v1/tickets/<id>/comments" (id inserted verbatim).
std::string ticket_path(std::string_view id);
std::string comments_path(std::string_view id);

// A JSON array from values: it::tickets::array({"a", "b"}).
Json::Value array(std::initializer_list<Json::Value> items);
// A string of exactly `n` characters built from `unit` (one character, any UTF-8 length).
std::string repeat(std::string_view unit, size_t n);

// ---------------------------------------------------------------------------------------------
// Test data.

// A fresh shop with a key and one customer (email, phone_number, first_name "Ann",
// last_name "Lee", storefront_id), the starting point of every test here.
struct World {
    Shop shop;
    Json::Value customer;  // as fetched by GET /api/v1/customers/{id}
    int64_t customer_id = 0;
};
World make_world();

// A customer of `shop` (unique email); returns its id.
int64_t make_customer(const Shop& shop);

// `supportcrm-admin user create` for `shop`; returns the user's id.
int64_t make_user(const Shop& shop, const std::string& email,
                  const std::optional<std::string>& first_name = std::nullopt,
                  const std::optional<std::string>& last_name = std::nullopt);

// POST /api/v1/tickets expecting 201; returns the "ticket" object. Throws otherwise.
Json::Value create_ticket(const Shop& shop, const Json::Value& body);
// A ticket of the world's customer on channel "Mail" plus the members of `extra`; returns its id.
std::string create_ticket_id(const World& w, const Json::Value& extra = Json::Value());
// GET /api/v1/tickets/{id} expecting 200; returns the "ticket" object. Throws otherwise.
Json::Value fetch_ticket(const Shop& shop, std::string_view id);
// POST /api/v1/tickets/{id}/comments expecting 201; returns the "comment" object.
Json::Value add_comment(const Shop& shop, std::string_view ticket_id, const Json::Value& body);
// GET /api/v1/tickets/{id}/comments expecting 200; returns the whole body.
Json::Value list_comments(const Shop& shop, std::string_view ticket_id);

// ---------------------------------------------------------------------------------------------
// Assertions.

// A JSON string of decimal digits without a leading zero (the form of conversation and message
// ids).
::testing::AssertionResult is_id_string(const Json::Value& v);
// 400 validation_failed whose message is "<field> <anything>" (e.g. "tags must be ...").
::testing::AssertionResult is_validation_error_for(const HttpResponse& r, std::string_view field);
// A "YYYY-MM-DDTHH:MM:SS.mmmZ" string within `slack_seconds` of now.
::testing::AssertionResult is_recent_utc_millis(const Json::Value& v, int slack_seconds = 60);
// Every name in `names` is a member of the object `v`.
::testing::AssertionResult has_members(const Json::Value& v, const std::vector<std::string>& names);

// Numeric comparison of two digit strings of any length (<0, 0, >0).
int compare_ids(const std::string& a, const std::string& b);

// ---------------------------------------------------------------------------------------------
// Database, read-write. Only for planting rows the API cannot create; assert through the API.

// A read-write connection for fixtures that plant rows (the harness Db).
using SqlDb = it::Db;

// SQL expression giving the DATETIME(3) column `column` as "YYYY-MM-DDTHH:MM:SS.mmmZ".
std::string utc_millis_sql(const std::string& column);

// The first power of two a JSON number (IEEE double) cannot count past exactly.
inline constexpr uint64_t kTwoPow53 = 9007199254740992ULL;

// Columns of a planted conversation; times are UTC "YYYY-MM-DD HH:MM:SS.mmm".
struct PlantedConversation {
    int64_t shop_id = 0;
    int64_t customer_id = 0;
    std::string channel = "Mail";
    std::optional<std::string> name;
    std::optional<int64_t> assigned_to;
    std::string date = "2026-01-02 03:04:05.678";
    std::string last_message_time = "2026-01-02 03:04:05.678";
};

// Inserts a conversation whose id is odd, above 2^53 and above every id in the table (so no
// double can hold it and no earlier run used it); returns the id as digits.
std::string plant_conversation(const PlantedConversation& c);

// Inserts a human_tickets row for a conversation.
void plant_human_ticket(const std::string& conversation_id, const std::string& status,
                        const std::string& opened_at, const std::optional<std::string>& closed_at);

// Columns of a planted message.
struct PlantedMessage {
    std::string conversation_id;
    std::string text = "planted";
    std::string time = "2026-01-02 03:04:05.678";
    std::string channel = "Mail";
    bool is_from_shop = true;
    std::optional<std::string> attachments;  // JSON text
};

// Inserts a message with an odd id above 2^53 and above every message id; returns the id.
std::string plant_message(const PlantedMessage& m);

}  // namespace it::tickets

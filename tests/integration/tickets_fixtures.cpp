#include "tickets_fixtures.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <stdexcept>

// Connector/C++ 1.1 headers are not warning-clean under -Wextra.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <cppconn/connection.h>
#include <cppconn/exception.h>
#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>
#include <mysql_driver.h>
#pragma GCC diagnostic pop

namespace it::tickets {

std::string ticket_path(std::string_view id) {
    return std::string(kTicketsPath) + "/" + std::string(id);
}

std::string comments_path(std::string_view id) {
    return ticket_path(id) + "/comments";
}

Json::Value array(std::initializer_list<Json::Value> items) {
    Json::Value v(Json::arrayValue);
    for (const Json::Value& item : items) {
        v.append(item);
    }
    return v;
}

std::string repeat(std::string_view unit, size_t n) {
    std::string s;
    s.reserve(unit.size() * n);
    for (size_t i = 0; i < n; ++i) {
        s += unit;
    }
    return s;
}

// ---------------------------------------------------------------------------------------------
// Test data.

World make_world() {
    World w;
    w.shop = make_shop();
    const std::string suffix = unique_suffix();
    const Json::Value created =
        create_customer(w.shop, object({{"email", unique_email("tk")},
                                        {"phone_number", "+1-555-" + suffix},
                                        {"first_name", "Ann"},
                                        {"last_name", "Lee"},
                                        {"storefront_id", "sf-" + suffix}}));
    w.customer_id = created["id"].asInt64();
    w.customer = fetch_customer(w.shop, w.customer_id);
    return w;
}

int64_t make_customer(const Shop& shop) {
    return create_customer(shop, object({{"email", unique_email("tk")}}))["id"].asInt64();
}

int64_t make_user(const Shop& shop, const std::string& email,
                  const std::optional<std::string>& first_name,
                  const std::optional<std::string>& last_name) {
    std::vector<std::string> args{"user", "create", "--shop", shop.domain, "--email", email};
    if (first_name) {
        args.insert(args.end(), {"--first-name", *first_name});
    }
    if (last_name) {
        args.insert(args.end(), {"--last-name", *last_name});
    }
    const Json::Value u = admin(args);
    if (!is_json_integer(u["id"])) {
        throw std::runtime_error("user create printed no integer id: " + to_json(u));
    }
    return u["id"].asInt64();
}

Json::Value create_ticket(const Shop& shop, const Json::Value& body) {
    const HttpResponse r = post_json(kTicketsPath, shop, body);
    if (r.status != 201 || !r.json().isObject() || !r.json()["ticket"].isObject()) {
        throw std::runtime_error("creating a ticket failed: " + r.describe());
    }
    return r.json()["ticket"];
}

std::string create_ticket_id(const World& w, const Json::Value& extra) {
    Json::Value body = object({{"customerId", Json::Int64(w.customer_id)}, {"Channel", "Mail"}});
    if (extra.isObject()) {
        for (const std::string& name : extra.getMemberNames()) {
            body[name] = extra[name];
        }
    }
    const Json::Value t = create_ticket(w.shop, body);
    if (!is_id_string(t["id"])) {
        throw std::runtime_error("created ticket has no id string: " + to_json(t));
    }
    return t["id"].asString();
}

Json::Value fetch_ticket(const Shop& shop, std::string_view id) {
    const HttpResponse r = get(ticket_path(id), shop);
    if (r.status != 200 || !r.json().isObject() || !r.json()["ticket"].isObject()) {
        throw std::runtime_error("fetching ticket " + std::string(id) + " failed: " + r.describe());
    }
    return r.json()["ticket"];
}

Json::Value add_comment(const Shop& shop, std::string_view ticket_id, const Json::Value& body) {
    const HttpResponse r = post_json(comments_path(ticket_id), shop, body);
    if (r.status != 201 || !r.json().isObject() || !r.json()["comment"].isObject()) {
        throw std::runtime_error("adding a comment failed: " + r.describe());
    }
    return r.json()["comment"];
}

Json::Value list_comments(const Shop& shop, std::string_view ticket_id) {
    const HttpResponse r = get(comments_path(ticket_id), shop);
    if (r.status != 200 || !r.json().isObject() || !r.json()["comments"].isArray()) {
        throw std::runtime_error("listing comments of " + std::string(ticket_id) +
                                 " failed: " + r.describe());
    }
    return r.json();
}

// ---------------------------------------------------------------------------------------------
// Assertions.

::testing::AssertionResult is_id_string(const Json::Value& v) {
    if (!v.isString()) {
        return ::testing::AssertionFailure() << to_json(v) << " is not a JSON string";
    }
    const std::string s = v.asString();
    const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos &&
                        (s == "0" || s[0] != '0');
    if (!digits) {
        return ::testing::AssertionFailure() << "\"" << s << "\" is not a string of digits";
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult is_validation_error_for(const HttpResponse& r, std::string_view field) {
    const ::testing::AssertionResult base = is_error(r, 400, "validation_failed");
    if (!base) {
        return base;
    }
    const std::string message = r.json()["message"].asString();
    if (!starts_with(message, std::string(field) + " ")) {
        return ::testing::AssertionFailure()
               << "message \"" << message << "\" does not start with \"" << field << " \""
               << "\n  response: " << r.describe();
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult is_recent_utc_millis(const Json::Value& v, int slack_seconds) {
    if (!v.isString()) {
        return ::testing::AssertionFailure() << to_json(v) << " is not a string";
    }
    const auto when = parse_utc_millis(v.asString());
    if (!when) {
        return ::testing::AssertionFailure()
               << "\"" << v.asString() << "\" is not YYYY-MM-DDTHH:MM:SS.mmmZ";
    }
    const auto delta =
        std::chrono::duration_cast<std::chrono::seconds>(*when - std::chrono::system_clock::now())
            .count();
    if (std::abs(delta) > slack_seconds) {
        return ::testing::AssertionFailure()
               << "\"" << v.asString() << "\" is " << delta << " s away from now";
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult has_members(const Json::Value& v,
                                       const std::vector<std::string>& names) {
    if (!v.isObject()) {
        return ::testing::AssertionFailure() << to_json(v) << " is not an object";
    }
    std::string missing;
    for (const std::string& n : names) {
        if (!v.isMember(n)) {
            missing += (missing.empty() ? "" : ", ") + n;
        }
    }
    if (!missing.empty()) {
        return ::testing::AssertionFailure() << "missing " << missing << " in " << to_json(v);
    }
    return ::testing::AssertionSuccess();
}

int compare_ids(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) {
        return a.size() < b.size() ? -1 : 1;
    }
    return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
}

// ---------------------------------------------------------------------------------------------
// Database.

std::string utc_millis_sql(const std::string& column) {
    return "CONCAT(DATE_FORMAT(" + column + ", '%Y-%m-%dT%H:%i:%s.'), LPAD(MICROSECOND(" + column +
           ") DIV 1000, 3, '0'), 'Z')";
}

namespace {

// Inserts with a fresh big id: odd, above 2^53 and above MAX(id) of `table` by a random gap;
// retried when a concurrent insert took it. `insert` has the id as its first placeholder.
std::string insert_with_big_id(SqlDb& db, const std::string& table, const std::string& insert,
                               std::vector<std::optional<std::string>> params) {
    static thread_local std::mt19937_64 rng(std::random_device{}());
    for (int attempt = 0; attempt < 5; ++attempt) {
        const auto max_id = db.scalar("SELECT CAST(COALESCE(MAX(id), 0) AS CHAR) FROM " + table);
        uint64_t base = max_id ? std::stoull(*max_id) : 0;
        if (base < kTwoPow53) {
            base = kTwoPow53;
        }
        uint64_t id = base + 1 + (rng() % 1000) * 2;
        if (id % 2 == 0) {
            ++id;
        }
        params.front() = std::to_string(id);
        if (db.execute(insert, params) == 0) {
            return std::to_string(id);
        }
    }
    throw std::runtime_error("could not find a free big id in " + table);
}

}  // namespace

std::string plant_conversation(const PlantedConversation& c) {
    SqlDb db;
    return insert_with_big_id(
        db, "conversations",
        "INSERT INTO conversations (id, shop_id, customer_id, channel, name, thread_id, "
        "email_used, date, last_message, last_message_time, contact_reason, assigned_to, "
        "is_opened_ticket, unread_chat_count, tags, language_code, via, created_at) VALUES "
        "(CAST(? AS UNSIGNED), ?, ?, ?, ?, NULL, NULL, ?, NULL, ?, NULL, ?, 0, 0, '[]', NULL, "
        "NULL, "
        "UTC_TIMESTAMP(3))",
        {std::nullopt, std::to_string(c.shop_id), std::to_string(c.customer_id), c.channel, c.name,
         c.date, c.last_message_time,
         c.assigned_to ? std::optional<std::string>(std::to_string(*c.assigned_to))
                       : std::nullopt});
}

void plant_human_ticket(const std::string& conversation_id, const std::string& status,
                        const std::string& opened_at, const std::optional<std::string>& closed_at) {
    SqlDb db;
    // The shop from the ticket's row, as the service writes it (the status filter's index).
    if (db.execute("INSERT INTO human_tickets (conversation_id, shop_id, status, opened_at, "
                   "closed_at) SELECT c.id, c.shop_id, ?, ?, ? FROM conversations c "
                   "WHERE c.id = CAST(? AS UNSIGNED)",
                   {status, opened_at, closed_at, conversation_id}) != 0) {
        throw std::runtime_error("conversation " + conversation_id + " has a human ticket already");
    }
    // And the ticket leaves the status=none index, as the service writes it (sql/017).
    db.execute("UPDATE conversations SET has_human_ticket = 1 WHERE id = CAST(? AS UNSIGNED)",
               {conversation_id});
}

std::string plant_message(const PlantedMessage& m) {
    SqlDb db;
    // Behind the service's back, as by a release before the search indexer (sql/023): the
    // trigger's queue row goes in the insert's transaction, so no indexer ever sees it.
    db.execute("START TRANSACTION", {});
    const std::string id = insert_with_big_id(
        db, "messages",
        "INSERT INTO messages (id, conversation_id, text, time, channel, is_from_shop, subject, "
        "from_email, to_emails, attachments, tags, user_id, created_at) VALUES "
        "(CAST(? AS UNSIGNED), CAST(? AS UNSIGNED), ?, ?, ?, ?, NULL, NULL, '[]', ?, '[]', NULL, "
        "UTC_TIMESTAMP(3))",
        {std::nullopt, m.conversation_id, m.text, m.time, m.channel,
         std::string(m.is_from_shop ? "1" : "0"), m.attachments});
    db.execute("DELETE FROM comment_words_pending WHERE comment_id = CAST(? AS UNSIGNED)", {id});
    db.execute("COMMIT", {});
    return id;
}

}  // namespace it::tickets

// Fixtures shared by the CSAT tests (api-v1 §7, contract §4-§7): UTC time arithmetic done
// independently of the server, query strings, a shop with a customer and a conversation to
// record surveys on, shortcuts for POST / GET /api/v1/csat, and assertions for the list shape
// and the statistics (expected values computed from the marks with exact integer arithmetic).
//
// Like the harness, every helper that cannot do its job throws std::runtime_error saying why.
#pragma once

#include <json/json.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "harness.h"

namespace it::csat {

inline constexpr char kCsatPath[] = "/api/v1/csat";

// ---------------------------------------------------------------------------------------------
// Time: milliseconds since the Unix epoch, UTC (negative before 1970).

using Millis = int64_t;
inline constexpr Millis kSecond = 1000;
inline constexpr Millis kMinute = 60 * kSecond;
inline constexpr Millis kHour = 60 * kMinute;
inline constexpr Millis kDay = 24 * kHour;

// The local clock.
Millis now_ms();
// 00:00:00.000 UTC of the day of t.
Millis start_of_day(Millis t);
// 23:59:59.999 UTC of the day of t.
Millis end_of_day(Millis t);
// "YYYY-MM-DDTHH:MM:SS.mmmZ".
std::string iso(Millis t);
// "YYYY-MM-DD", the UTC day of t.
std::string date_of(Millis t);
// "YYYY-MM-DD HH:MM:SS.mmm", a DATETIME(3) literal.
std::string db_time(Millis t);
// t written in the zone `offset_minutes` east of UTC: "YYYY-MM-DDTHH:MM:SS.mmm+HH:MM".
std::string iso_with_offset(Millis t, int offset_minutes);
// "YYYY-MM-DD" (midnight UTC), "YYYY-MM-DDTHH:MM:SSZ" or "YYYY-MM-DDTHH:MM:SS.mmmZ". Throws on
// anything else.
Millis at(const std::string& text);

// The day the test runs in, read once per test.
struct Today {
    Millis midnight = 0;  // 00:00:00.000 UTC of today
};
// When the clock is within 2 minutes before or 1 minute after a UTC midnight, sleeps until
// 00:01 UTC (at most about 3 minutes), so that the day cannot change while a test runs. Then
// reads the server's default window with `shop`'s key and checks that it agrees with the
// local clock (start 00:00 UTC seven days before today, end 23:59:59.999 today).
Today pin_today(const Shop& shop);
// True while the local clock is still in `today` (for a final sanity check).
::testing::AssertionResult still_today(const Today& today);

// ---------------------------------------------------------------------------------------------
// Query strings.

using Query = std::vector<std::pair<std::string, std::string>>;
// Percent-encodes everything but A-Z a-z 0-9 - _ . ~
std::string encode(const std::string& text);
// "/api/v1/csat" plus "?name=value&..." (names and values percent-encoded).
std::string csat_path(const Query& query = {});

// ---------------------------------------------------------------------------------------------
// Test data.

// A shop (optionally in a brand) with one customer ("Ann" "Lee", email, phone_number) and one
// conversation of that customer.
struct CsatShop {
    Shop shop;
    int64_t customer_id = 0;
    Json::Value customer;  // as fetched by GET /api/v1/customers/{id}
    std::string conversation_id;
};
CsatShop make_csat_shop(std::optional<int64_t> brand_id = std::nullopt);

// POST /api/v1/csat with any body.
HttpResponse post_survey(const Shop& shop, const Json::Value& body);
// Records a survey on the shop's conversation with `mark`, createdAt = iso(created_at) and the
// members of `extra`; expects 201 and returns the "survey" object. Throws otherwise.
Json::Value add_survey(const CsatShop& s, int mark, Millis created_at,
                       const Json::Value& extra = Json::Value());
// Same, returning the survey id.
int64_t add_survey_id(const CsatShop& s, int mark, Millis created_at);

// GET /api/v1/csat?query with the shop's key.
HttpResponse get_csat(const Shop& shop, const Query& query = {});
// Same, expecting 200 and the list shape (is_csat_list); returns the body. Throws otherwise.
Json::Value list(const Shop& shop, const Query& query = {});

// The ids of the listed surveys, in order.
std::vector<int64_t> ids_of(const Json::Value& body);

// A survey planned by a test: its mark and createdAt, and its id once recorded.
struct Planned {
    int mark = 0;
    Millis created_at = 0;
    int64_t id = 0;
};
// Records every planned survey on the shop's conversation (in order) and fills in the ids.
void record(const CsatShop& s, std::vector<Planned>& surveys);
// The ids of `surveys` whose createdAt is in [from, to], ordered createdAt desc then id desc.
std::vector<int64_t> expected_ids(const std::vector<Planned>& surveys, Millis from, Millis to);
// The marks of `surveys` whose createdAt is in [from, to].
std::vector<int> marks_in(const std::vector<Planned>& surveys, Millis from, Millis to);

// ---------------------------------------------------------------------------------------------
// Assertions.

// Status 200, the success envelope, and the list shape: exactly the members success, surveys,
// total, stats, scope, dateRange, pagination, with their types; every survey in the survey
// shape; surveys ordered createdAt desc then id desc; total == stats.totalSurveys.
::testing::AssertionResult is_csat_list(const HttpResponse& r);
// Exactly the members of a survey (id, mark, comment, graphNodes, nodeIds, messageId,
// createdAt, shopDomain, conversationId, customer {id, email, name, phone}) with their types.
::testing::AssertionResult is_survey_shape(const Json::Value& survey);

// The list body is the window [from, to] over `surveys` (all of them on this page): the ids in
// order, total, the stats of their marks, and dateRange {iso(from), iso(to)}.
::testing::AssertionResult window_is(const Json::Value& body, const std::vector<Planned>& surveys,
                                     Millis from, Millis to);

// round_half_up(numerator * 100 / denominator) / 100, as the nearest double; 0 when the
// denominator is 0.
double round2(int64_t numerator, int64_t denominator);

// Counts per mark (index 1..5; index 0 unused).
using MarkCounts = std::array<int64_t, 6>;
MarkCounts count_marks(const std::vector<int>& marks);

// The stats object is {totalSurveys, averageRating, satisfactionRate, ratingDistribution
// {"1".."5"}} with the values that `counts` give: averageRating the mean mark and
// satisfactionRate the percentage of marks >= 4, both rounded half up to 2 decimals.
::testing::AssertionResult stats_are(const Json::Value& stats, const MarkCounts& counts);
::testing::AssertionResult stats_are(const Json::Value& stats, const std::vector<int>& marks);

}  // namespace it::csat

// GET /api/v1/csat (api-v1 §7, contract §4, §5, §7): the list shape and its defaults, the UTC
// day rules of startDate / endDate (bare dates, datetimes, offsets, the default window and its
// midnight edges), every invalid_query row, pagination (past the end, the cap at 100), the
// order createdAt desc then id desc with ties, and that other shops' surveys never show.
#include <string>
#include <vector>

#include "csat_fixtures.h"
#include "harness.h"
#include "tickets_fixtures.h"

namespace {

using it::HttpResponse;
using it::object;
using it::csat::at;
using it::csat::CsatShop;
using it::csat::date_of;
using it::csat::iso;
using it::csat::kDay;
using it::csat::kHour;
using it::csat::kMinute;
using it::csat::kSecond;
using it::csat::Millis;
using it::csat::Planned;
using it::csat::Query;

// The whole window in one page.
Query whole(Query q) {
    q.emplace_back("limit", "100");
    return q;
}

// ---------------------------------------------------------------------------------------------
// Shape and defaults.

TEST(CsatList, AFreshShopHasAnEmptyListWithTheDefaults) {
    const CsatShop s = it::csat::make_csat_shop();
    const it::csat::Today today = it::csat::pin_today(s.shop);
    const HttpResponse r = it::csat::get_csat(s.shop);
    ASSERT_TRUE(it::csat::is_csat_list(r));
    const Json::Value& b = r.json();
    EXPECT_EQ(b["surveys"], Json::Value(Json::arrayValue));
    EXPECT_EQ(b["total"], Json::Value(0));
    EXPECT_TRUE(it::csat::stats_are(b["stats"], std::vector<int>{}));
    EXPECT_EQ(b["stats"]["averageRating"].asDouble(), 0.0);
    EXPECT_EQ(b["stats"]["satisfactionRate"].asDouble(), 0.0);
    EXPECT_EQ(b["scope"], Json::Value("shop"));
    EXPECT_EQ(b["dateRange"]["startDate"], Json::Value(iso(today.midnight - 7 * kDay)));
    EXPECT_EQ(b["dateRange"]["endDate"], Json::Value(iso(today.midnight + kDay - 1)));
    EXPECT_EQ(b["pagination"], object({{"page", 0}, {"limit", 10}}));
    // The scope given explicitly is echoed.
    EXPECT_EQ(it::csat::list(s.shop, {{"scope", "shop"}})["scope"], Json::Value("shop"));
    EXPECT_TRUE(it::csat::still_today(today));
}

TEST(CsatList, ListedSurveysAreTheCreatedOnes) {
    const CsatShop s = it::csat::make_csat_shop();
    const Json::Value a = it::csat::add_survey(
        s, 2, at("2025-03-10T08:00:00.000Z"),
        object({{"comment", "slow"}, {"messageId", 7}, {"nodeIds", it::tickets::array({1, 2})}}));
    const Json::Value b =
        it::csat::add_survey(s, 5, at("2025-03-11T08:00:00.000Z"),
                             object({{"graphNodes", object({{"n", object({{"to", "m"}})}})}}));
    const Json::Value body =
        it::csat::list(s.shop, {{"startDate", "2025-03-10"}, {"endDate", "2025-03-11"}});
    ASSERT_EQ(body["surveys"].size(), 2u) << it::to_json(body);
    EXPECT_EQ(body["surveys"][0], b);
    EXPECT_EQ(body["surveys"][1], a);
    for (const Json::Value& v : body["surveys"]) {
        EXPECT_EQ(v["shopDomain"], Json::Value(s.shop.domain));
        EXPECT_EQ(v["conversationId"], Json::Value(s.conversation_id));
        EXPECT_EQ(v["customer"], object({{"id", Json::Int64(s.customer_id)},
                                         {"email", s.customer["email"]},
                                         {"name", s.customer["full_name"]},
                                         {"phone", s.customer["phone_number"]}}));
    }
}

// ---------------------------------------------------------------------------------------------
// The default window: 00:00 UTC seven days before today .. 23:59:59.999 UTC today.

TEST(CsatList, DefaultWindowEdges) {
    const CsatShop s = it::csat::make_csat_shop();
    const it::csat::Today today = it::csat::pin_today(s.shop);
    const Millis t = today.midnight;
    const Millis now = it::csat::now_ms();
    std::vector<Planned> surveys{
        {1, now - 8 * kDay},        // 8 days old: out
        {2, now - 6 * kDay},        // 6 days old: in
        {3, t - 7 * kDay},          // 00:00:00.000 of the start day: in
        {4, t - 7 * kDay - 1},      // 23:59:59.999 of the day before: out
        {5, t + kDay - 1},          // 23:59:59.999 today: in
        {1, t + kDay},              // 00:00 tomorrow: out
        {4, t - 6 * kDay - 1},      // last instant of the start day: in
        {2, t - 8 * kDay + kHour},  // out
    };
    it::csat::record(s, surveys);
    // One more at "now" (createdAt defaulted): in.
    const HttpResponse r =
        it::csat::post_survey(s.shop, object({{"conversationId", s.conversation_id}, {"mark", 4}}));
    ASSERT_TRUE(it::is_success(r, 201));
    surveys.push_back(
        {4, at(r.json()["survey"]["createdAt"].asString()), r.json()["survey"]["id"].asInt64()});

    const Millis from = t - 7 * kDay;
    const Millis to = t + kDay - 1;
    ASSERT_EQ(it::csat::expected_ids(surveys, from, to).size(), 5u);
    const Json::Value defaults = it::csat::list(s.shop, whole({}));
    EXPECT_TRUE(it::csat::window_is(defaults, surveys, from, to));
    // Spelled out as bare dates, the same window.
    EXPECT_TRUE(it::csat::window_is(
        it::csat::list(s.shop, whole({{"startDate", date_of(from)}, {"endDate", date_of(t)}})),
        surveys, from, to));
    // Only the start given: the end is still the end of today; only the end given: the start is
    // still seven days back.
    EXPECT_TRUE(
        it::csat::window_is(it::csat::list(s.shop, whole({{"startDate", date_of(t - 6 * kDay)}})),
                            surveys, t - 6 * kDay, to));
    EXPECT_TRUE(
        it::csat::window_is(it::csat::list(s.shop, whole({{"endDate", date_of(t - 6 * kDay)}})),
                            surveys, from, t - 5 * kDay - 1));
    EXPECT_TRUE(it::csat::still_today(today));
}

// ---------------------------------------------------------------------------------------------
// startDate / endDate forms.

class CsatDays : public ::testing::Test {
  protected:
    void SetUp() override {
        s_ = it::csat::make_csat_shop();
        surveys_ = {
            {1, d_ - 1},                 // 23:59:59.999 the day before
            {2, d_},                     // 00:00:00.000
            {3, d_ + 8 * kHour},         //
            {4, d_ + 12 * kHour - 1},    // 11:59:59.999
            {5, d_ + 12 * kHour},        // 12:00:00.000
            {5, d_ + 16 * kHour},        //
            {4, d_ + kDay - 1},          // 23:59:59.999
            {1, d_ + kDay},              // 00:00 of the next day
            {2, d_ + kDay + 9 * kHour},  //
            {3, d_ + 2 * kDay - 1},      // last instant of the next day
            {5, d_ + 2 * kDay},          // 00:00 of the day after
        };
        it::csat::record(s_, surveys_);
    }

    ::testing::AssertionResult window(const Query& q, Millis from, Millis to) {
        return it::csat::window_is(it::csat::list(s_.shop, whole(q)), surveys_, from, to);
    }

    const Millis d_ = at("2025-03-10");
    CsatShop s_;
    std::vector<Planned> surveys_;
};

TEST_F(CsatDays, ABareStartDateIsTheStartOfThatDay) {
    EXPECT_TRUE(
        window({{"startDate", "2025-03-10"}, {"endDate", "2025-03-10"}}, d_, d_ + kDay - 1));
    EXPECT_TRUE(
        window({{"startDate", "2025-03-09"}, {"endDate", "2025-03-09"}}, d_ - kDay, d_ - 1));
    EXPECT_TRUE(
        window({{"startDate", "2025-03-10"}, {"endDate", "2025-03-11"}}, d_, d_ + 2 * kDay - 1));
    EXPECT_TRUE(window({{"startDate", "2025-03-09"}, {"endDate", "2025-03-12"}}, d_ - kDay,
                       d_ + 3 * kDay - 1));
    // Midnight written as a datetime is the same instant.
    EXPECT_TRUE(window({{"startDate", "2025-03-10T00:00:00.000Z"}, {"endDate", "2025-03-10"}}, d_,
                       d_ + kDay - 1));
}

TEST_F(CsatDays, ADatetimeStartDateIsUsedAsGiven) {
    // Mid-day: the surveys earlier that day are out.
    EXPECT_TRUE(window({{"startDate", "2025-03-10T12:00:00.000Z"}, {"endDate", "2025-03-11"}},
                       d_ + 12 * kHour, d_ + 2 * kDay - 1));
    EXPECT_TRUE(window({{"startDate", "2025-03-10T12:00:00.001Z"}, {"endDate", "2025-03-11"}},
                       d_ + 12 * kHour + 1, d_ + 2 * kDay - 1));
    EXPECT_TRUE(window({{"startDate", "2025-03-10T11:59:59.999Z"}, {"endDate", "2025-03-11"}},
                       d_ + 12 * kHour - 1, d_ + 2 * kDay - 1));
    EXPECT_TRUE(window({{"startDate", "2025-03-10T08:00:00Z"}, {"endDate", "2025-03-10"}},
                       d_ + 8 * kHour, d_ + kDay - 1));
    // Same day, start after the last survey of it.
    EXPECT_TRUE(window({{"startDate", "2025-03-10T23:59:59.999Z"}, {"endDate", "2025-03-10"}},
                       d_ + kDay - 1, d_ + kDay - 1));
    // An offset: 14:00+02:00 is 12:00Z; 00:00+02:00 is 22:00Z the day before.
    EXPECT_TRUE(window({{"startDate", "2025-03-10T14:00:00+02:00"}, {"endDate", "2025-03-10"}},
                       d_ + 12 * kHour, d_ + kDay - 1));
    EXPECT_TRUE(window({{"startDate", "2025-03-10T00:00:00+02:00"}, {"endDate", "2025-03-10"}},
                       d_ - 2 * kHour, d_ + kDay - 1));
    EXPECT_TRUE(window({{"startDate", "2025-03-09T20:00:00.000-04:00"}, {"endDate", "2025-03-10"}},
                       d_, d_ + kDay - 1));
}

TEST_F(CsatDays, EndDateIsMovedToTheEndOfItsUtcDay) {
    const Millis end = d_ + kDay - 1;
    for (const char* given : {"2025-03-10", "2025-03-10T00:00:00Z", "2025-03-10T00:00:00.000Z",
                              "2025-03-10T12:00:00Z", "2025-03-10T23:59:59.999Z",
                              "2025-03-11T01:00:00+02:00",     // 23:00Z on the 10th
                              "2025-03-09T22:00:00-05:00"}) {  // 03:00Z on the 10th
        EXPECT_TRUE(window({{"startDate", "2025-03-09"}, {"endDate", given}}, d_ - kDay, end))
            << "endDate " << given;
    }
    // 23:00-02:00 on the 10th is 01:00Z on the 11th: the end of the 11th.
    EXPECT_TRUE(window({{"startDate", "2025-03-09"}, {"endDate", "2025-03-10T23:00:00-02:00"}},
                       d_ - kDay, d_ + 2 * kDay - 1));
    EXPECT_TRUE(window({{"startDate", "2025-03-09"}, {"endDate", "2025-03-11T00:00:00Z"}},
                       d_ - kDay, d_ + 2 * kDay - 1));
}

TEST_F(CsatDays, RawAndPercentEncodedDatesAgree) {
    const std::string raw = std::string(it::csat::kCsatPath) +
                            "?startDate=2025-03-10T12:00:00Z&endDate=2025-03-11T05:00:00.000Z"
                            "&limit=100";
    const HttpResponse r = it::get(raw, s_.shop);
    ASSERT_TRUE(it::csat::is_csat_list(r));
    EXPECT_TRUE(it::csat::window_is(r.json(), surveys_, d_ + 12 * kHour, d_ + 2 * kDay - 1));
    EXPECT_TRUE(
        window({{"startDate", "2025-03-10T12:00:00Z"}, {"endDate", "2025-03-11T05:00:00.000Z"}},
               d_ + 12 * kHour, d_ + 2 * kDay - 1));
    const HttpResponse plus = it::get(std::string(it::csat::kCsatPath) +
                                          "?startDate=2025-03-10T14%3A00%3A00%2B02%3A00&limit=100"
                                          "&endDate=2025-03-10",
                                      s_.shop);
    ASSERT_TRUE(it::csat::is_csat_list(plus));
    EXPECT_TRUE(it::csat::window_is(plus.json(), surveys_, d_ + 12 * kHour, d_ + kDay - 1));
}

// ---------------------------------------------------------------------------------------------
// invalid_query (contract §4): every row with its exact message.

TEST(CsatList, EveryInvalidQueryRow) {
    const CsatShop s = it::csat::make_csat_shop();
    it::csat::add_survey(s, 5, at("2025-03-10T10:00:00Z"));
    struct Case {
        Query query;
        const char* message;
    };
    const std::vector<Case> cases{
        {{{"page", "-1"}}, "Invalid page"},
        {{{"page", "abc"}}, "Invalid page"},
        {{{"page", "1.5"}}, "Invalid page"},
        {{{"page", "1e2"}}, "Invalid page"},
        {{{"page", ""}}, "Invalid page"},
        {{{"page", " 1"}}, "Invalid page"},
        {{{"page", "+1"}}, "Invalid page"},
        {{{"page", "0x1"}}, "Invalid page"},
        {{{"limit", "0"}}, "Invalid limit"},
        {{{"limit", "-1"}}, "Invalid limit"},
        {{{"limit", "abc"}}, "Invalid limit"},
        {{{"limit", "2.5"}}, "Invalid limit"},
        {{{"limit", "1e2"}}, "Invalid limit"},
        {{{"limit", ""}}, "Invalid limit"},
        {{{"limit", "-500"}}, "Invalid limit"},
        {{{"scope", "all"}}, "Invalid scope"},
        {{{"scope", ""}}, "Invalid scope"},
        {{{"scope", "shops"}}, "Invalid scope"},
        {{{"scope", "brand "}}, "Invalid scope"},
        {{{"scope", "1"}}, "Invalid scope"},
        {{{"startDate", "yesterday"}}, "Invalid startDate"},
        {{{"startDate", ""}}, "Invalid startDate"},
        {{{"startDate", "2025-13-01"}}, "Invalid startDate"},
        {{{"startDate", "2025-02-30"}}, "Invalid startDate"},
        {{{"startDate", "2025-3-1"}}, "Invalid startDate"},
        {{{"startDate", "20250301"}}, "Invalid startDate"},
        {{{"startDate", "2025-03-10T10:00:00"}}, "Invalid startDate"},  // no zone
        {{{"startDate", "2025-03-10T25:00:00Z"}}, "Invalid startDate"},
        {{{"startDate", "2025-03-10T10:00:00+25:00"}}, "Invalid startDate"},
        {{{"startDate", "1741600800000"}}, "Invalid startDate"},
        {{{"endDate", "tomorrow"}}, "Invalid endDate"},
        {{{"endDate", ""}}, "Invalid endDate"},
        {{{"endDate", "2025-13-01"}}, "Invalid endDate"},
        {{{"endDate", "2025-02-29"}}, "Invalid endDate"},  // 2025 is not a leap year
        {{{"endDate", "2025-03-10T10:00:00"}}, "Invalid endDate"},
        {{{"endDate", "2025-03-10T10:60:00Z"}}, "Invalid endDate"},
        {{{"endDate", "10/03/2025"}}, "Invalid endDate"},
        {{{"startDate", "2025-03-11"}, {"endDate", "2025-03-10"}},
         "startDate must not be after endDate"},
        {{{"startDate", "2025-03-11T00:00:00.000Z"}, {"endDate", "2025-03-10T23:59:59.999Z"}},
         "startDate must not be after endDate"},
        {{{"startDate", "2025-03-11T00:00:00.000Z"}, {"endDate", "2025-03-10T05:00:00Z"}},
         "startDate must not be after endDate"},
        // 01:00+02:00 on the 11th is 23:00Z on the 10th; 00:30+00:00 on the 11th is not.
        {{{"startDate", "2025-03-11T00:30:00+00:00"}, {"endDate", "2025-03-11T01:00:00+02:00"}},
         "startDate must not be after endDate"},
        // A start after the default end (the end of today).
        {{{"startDate", "2999-01-01"}}, "startDate must not be after endDate"},
    };
    for (const Case& c : cases) {
        const HttpResponse r = it::csat::get_csat(s.shop, c.query);
        EXPECT_TRUE(it::is_error(r, 400, "invalid_query", c.message))
            << "query " << it::csat::csat_path(c.query);
    }
}

TEST(CsatList, StartAndEndAreComparedAfterTheEndIsMoved) {
    const CsatShop s = it::csat::make_csat_shop();
    std::vector<Planned> surveys{{3, at("2025-03-10T20:00:00Z")}, {4, at("2025-03-10T06:00:00Z")}};
    it::csat::record(s, surveys);
    const Millis end = at("2025-03-10") + kDay - 1;
    // The start is after the end as written, not after the end moved to 23:59:59.999.
    EXPECT_TRUE(it::csat::window_is(it::csat::list(s.shop, {{"startDate", "2025-03-10T18:00:00Z"},
                                                            {"endDate", "2025-03-10T06:00:00Z"}}),
                                    surveys, at("2025-03-10T18:00:00.000Z"), end));
    // Equal to the moved end.
    EXPECT_TRUE(it::csat::window_is(
        it::csat::list(s.shop,
                       {{"startDate", "2025-03-10T23:59:59.999Z"}, {"endDate", "2025-03-10"}}),
        surveys, end, end));
    // Same UTC day through offsets.
    EXPECT_TRUE(
        it::csat::window_is(it::csat::list(s.shop, {{"startDate", "2025-03-11T01:00:00+02:00"},
                                                    {"endDate", "2025-03-10T12:00:00Z"}}),
                            surveys, at("2025-03-10T23:00:00.000Z"), end));
}

TEST(CsatList, KeyIsCheckedBeforeTheQuery) {
    const HttpResponse r = it::http("GET", it::csat::csat_path({{"page", "-1"}}));
    EXPECT_TRUE(it::is_error(r, 401, "missing_api_key", "API key is required"));
}

// Shop scope resolves the key inside the statement that reads the page, whose rows come back
// for a deleted shop's surveys too: the shop must still be refused, in every scope.
TEST(CsatList, ADeletedShopsOwnSurveysAre404ShopNotFound) {
    const CsatShop s = it::csat::make_csat_shop();
    it::csat::add_survey(s, 4, at("2025-03-10T08:00:00.000Z"));
    it::admin({"shop", "delete", "--domain", s.shop.domain});
    for (const std::string scope : {"shop", "brand"}) {
        const HttpResponse r =
            it::get(it::csat::csat_path({{"startDate", "2025-03-10"}, {"scope", scope}}), s.shop);
        EXPECT_TRUE(it::is_error(r, 404, "shop_not_found", "Shop not found")) << scope;
    }
}

// ---------------------------------------------------------------------------------------------
// Pagination.

TEST(CsatList, PagesWalkTheWindowAndPastTheEndIsEmpty) {
    const CsatShop s = it::csat::make_csat_shop();
    const Millis d = at("2025-03-10");
    std::vector<Planned> surveys;
    for (int i = 0; i < 25; ++i) {
        surveys.push_back({i % 5 + 1, d + i * kHour + i * kSecond});
    }
    it::csat::record(s, surveys);
    const Millis to = d + 2 * kDay - 1;
    const std::vector<int64_t> all = it::csat::expected_ids(surveys, d, to);
    const Query window{{"startDate", "2025-03-10"}, {"endDate", "2025-03-11"}};
    auto with = [&](std::vector<std::pair<std::string, std::string>> extra) {
        Query q = window;
        q.insert(q.end(), extra.begin(), extra.end());
        return it::csat::list(s.shop, q);
    };

    // The default page size.
    const Json::Value first = with({});
    EXPECT_EQ(first["pagination"], object({{"page", 0}, {"limit", 10}}));
    EXPECT_EQ(it::csat::ids_of(first), std::vector<int64_t>(all.begin(), all.begin() + 10));
    EXPECT_TRUE(it::csat::stats_are(first["stats"], it::csat::marks_in(surveys, d, to)));
    EXPECT_EQ(first["total"].asInt64(), 25);

    for (const int limit : {10, 7, 1, 24, 25}) {
        std::vector<int64_t> walked;
        for (int page = 0;; ++page) {
            const Json::Value b =
                with({{"page", std::to_string(page)}, {"limit", std::to_string(limit)}});
            EXPECT_EQ(b["pagination"], object({{"page", page}, {"limit", limit}}));
            EXPECT_EQ(b["total"].asInt64(), 25);
            EXPECT_EQ(b["stats"], first["stats"]) << "page " << page << " limit " << limit;
            const std::vector<int64_t> ids = it::csat::ids_of(b);
            if (ids.empty()) {
                break;
            }
            EXPECT_EQ(ids.size(), static_cast<size_t>(std::min(limit, 25 - page * limit)));
            walked.insert(walked.end(), ids.begin(), ids.end());
            ASSERT_LT(page, 30) << "paging does not end";
        }
        EXPECT_EQ(walked, all) << "limit " << limit;
    }

    // Far past the end: empty, stats unchanged.
    for (const char* page : {"3", "1000000", "4294967296", "9223372036854775807"}) {
        const Json::Value b = with({{"page", page}, {"limit", "10"}});
        EXPECT_EQ(b["surveys"], Json::Value(Json::arrayValue)) << "page " << page;
        EXPECT_EQ(b["total"].asInt64(), 25) << "page " << page;
        EXPECT_EQ(b["stats"], first["stats"]) << "page " << page;
        EXPECT_EQ(b["pagination"]["page"].asString(), std::string(page));
        EXPECT_EQ(b["pagination"]["limit"].asInt64(), 10);
    }
}

// Brand scope merges each shop's own range (pages up to 1000 rows deep) and lets the
// database sort deeper pages: both give the same order, ties on createdAt included.
TEST(CsatList, BrandPagesMergeTheShopsInOrderAtAnyDepth) {
    const int64_t brand = it::make_brand();
    const CsatShop a = it::csat::make_csat_shop(brand);
    const CsatShop b = it::csat::make_csat_shop(brand);
    const Millis d = at("2025-04-02");
    std::vector<Planned> in_a, in_b;
    for (int i = 0; i < 9; ++i) {
        in_a.push_back({i % 5 + 1, d + (i / 2) * kMinute});  // pairs of equal createdAt
        in_b.push_back({(i + 2) % 5 + 1, d + (i / 3) * kMinute + 1});
    }
    it::csat::record(a, in_a);
    it::csat::record(b, in_b);
    std::vector<Planned> both = in_a;
    both.insert(both.end(), in_b.begin(), in_b.end());
    const std::vector<int64_t> all = it::csat::expected_ids(both, d, d + kDay - 1);
    ASSERT_EQ(all.size(), 18u);

    const Query window{{"scope", "brand"}, {"startDate", "2025-04-02"}, {"endDate", "2025-04-02"}};
    auto page = [&](int page_number, int limit) {
        Query q = window;
        q.emplace_back("page", std::to_string(page_number));
        q.emplace_back("limit", std::to_string(limit));
        return it::csat::list(a.shop, q);
    };
    std::vector<int64_t> walked;
    for (int p = 0; p < 5; ++p) {
        const Json::Value body = page(p, 4);
        EXPECT_EQ(body["scope"], "brand");
        EXPECT_EQ(body["total"].asInt64(), 18);
        const std::vector<int64_t> ids = it::csat::ids_of(body);
        walked.insert(walked.end(), ids.begin(), ids.end());
    }
    EXPECT_EQ(walked, all);
    // Deeper than the merge depth: the database's sort; past the end here, so empty.
    const Json::Value deep = page(11, 100);
    EXPECT_EQ(deep["surveys"], Json::Value(Json::arrayValue));
    EXPECT_EQ(deep["total"].asInt64(), 18);
}

TEST(CsatList, LimitIsCappedAt100) {
    const CsatShop s = it::csat::make_csat_shop();
    const Millis d = at("2025-03-10");
    std::vector<Planned> surveys;
    for (int i = 0; i < 105; ++i) {
        surveys.push_back({(i * 7) % 5 + 1, d + 6 * kHour + i * kMinute});
    }
    it::csat::record(s, surveys);
    const std::vector<int64_t> all = it::csat::expected_ids(surveys, d, d + kDay - 1);
    const std::vector<int> marks = it::csat::marks_in(surveys, d, d + kDay - 1);
    ASSERT_EQ(all.size(), 105u);
    const Query window{{"startDate", "2025-03-10"}, {"endDate", "2025-03-10"}};

    for (const char* limit : {"100", "101", "500", "99999999999999999999999"}) {
        Query q = window;
        q.emplace_back("limit", limit);
        const Json::Value b = it::csat::list(s.shop, q);
        EXPECT_EQ(b["pagination"], object({{"page", 0}, {"limit", 100}})) << "limit " << limit;
        EXPECT_EQ(it::csat::ids_of(b), std::vector<int64_t>(all.begin(), all.begin() + 100))
            << "limit " << limit;
        EXPECT_EQ(b["total"].asInt64(), 105);
        EXPECT_TRUE(it::csat::stats_are(b["stats"], marks));
    }
    Query q = window;
    q.emplace_back("limit", "500");
    q.emplace_back("page", "1");
    const Json::Value second = it::csat::list(s.shop, q);
    EXPECT_EQ(second["pagination"], object({{"page", 1}, {"limit", 100}}));
    EXPECT_EQ(it::csat::ids_of(second), std::vector<int64_t>(all.begin() + 100, all.end()));
    EXPECT_TRUE(it::csat::stats_are(second["stats"], marks));
    // 99 is not capped.
    Query q99 = window;
    q99.emplace_back("limit", "99");
    const Json::Value b99 = it::csat::list(s.shop, q99);
    EXPECT_EQ(b99["pagination"]["limit"], Json::Value(99));
    EXPECT_EQ(b99["surveys"].size(), 99u);
}

// ---------------------------------------------------------------------------------------------
// Order.

TEST(CsatList, OrderIsCreatedAtDescThenIdDescOnTies) {
    const CsatShop s = it::csat::make_csat_shop();
    const Millis t = at("2025-03-10T10:00:00.000Z");
    // Created out of time order so that ids and times disagree.
    std::vector<Planned> surveys{
        {1, t + 1}, {2, t},     {3, t - 1}, {4, t},        {5, t + 1},
        {1, t},     {2, t - 1}, {3, t},     {4, t + kDay}, {5, t - kDay},
    };
    it::csat::record(s, surveys);
    const Millis from = at("2025-03-09");
    const Millis to = at("2025-03-11") + kDay - 1;
    const Query window{{"startDate", "2025-03-09"}, {"endDate", "2025-03-11"}};
    Query q = window;
    q.emplace_back("limit", "100");
    const Json::Value b = it::csat::list(s.shop, q);
    EXPECT_TRUE(it::csat::window_is(b, surveys, from, to));
    // Paging splits ties the same way.
    std::vector<int64_t> walked;
    for (int page = 0; page < 10; ++page) {
        Query p = window;
        p.emplace_back("limit", "2");
        p.emplace_back("page", std::to_string(page));
        const std::vector<int64_t> ids = it::csat::ids_of(it::csat::list(s.shop, p));
        walked.insert(walked.end(), ids.begin(), ids.end());
    }
    EXPECT_EQ(walked, it::csat::expected_ids(surveys, from, to));
}

// ---------------------------------------------------------------------------------------------
// Scoping.

TEST(CsatList, OtherShopsSurveysNeverShow) {
    const int64_t brand = it::make_brand();
    const CsatShop a = it::csat::make_csat_shop();
    const CsatShop b = it::csat::make_csat_shop(brand);
    const Millis d = at("2025-03-10");
    std::vector<Planned> mine{{5, d + kHour}, {4, d + 2 * kHour}};
    std::vector<Planned> theirs{{1, d + kHour}, {1, d + 3 * kHour}, {2, d + 4 * kHour}};
    it::csat::record(a, mine);
    it::csat::record(b, theirs);
    const Query window{{"startDate", "2025-03-10"}, {"endDate", "2025-03-10"}};
    const Millis to = d + kDay - 1;

    const Json::Value own = it::csat::list(a.shop, window);
    EXPECT_TRUE(it::csat::window_is(own, mine, d, to));
    EXPECT_EQ(own["scope"], Json::Value("shop"));
    // Brand scope for a shop without a brand is shop scope, and says so.
    Query brand_q = window;
    brand_q.emplace_back("scope", "brand");
    const Json::Value as_brand = it::csat::list(a.shop, brand_q);
    EXPECT_TRUE(it::csat::window_is(as_brand, mine, d, to));
    EXPECT_EQ(as_brand["scope"], Json::Value("shop"));
    // And the other way round.
    EXPECT_TRUE(it::csat::window_is(it::csat::list(b.shop, window), theirs, d, to));
    const Json::Value b_brand = it::csat::list(b.shop, brand_q);
    EXPECT_TRUE(it::csat::window_is(b_brand, theirs, d, to));
    EXPECT_EQ(b_brand["scope"], Json::Value("brand"));
}

}  // namespace

// GET /api/v1/csat statistics (api-v1 §7, contract §5): totalSurveys, averageRating and
// satisfactionRate rounded half up to 2 decimals, ratingDistribution "1".."5", zeros for an empty
// window, stats over the whole window (not the page), whole UTC days and a partial first day,
// brand vs shop scope with sibling and unrelated shops, and agreement with a plain COUNT / AVG
// over the surveys rows for random windows.
#include <algorithm>
#include <cstdlib>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "csat_fixtures.h"
#include "harness.h"

namespace {

using it::HttpResponse;
using it::csat::at;
using it::csat::CsatShop;
using it::csat::date_of;
using it::csat::iso;
using it::csat::kDay;
using it::csat::kHour;
using it::csat::kMinute;
using it::csat::Millis;
using it::csat::Planned;
using it::csat::Query;

Query whole(Query q) {
    q.emplace_back("limit", "100");
    return q;
}

// ---------------------------------------------------------------------------------------------
// Rounding.

struct RoundingCase {
    std::vector<int> marks;
    double average;
    double satisfaction;
};

std::vector<int> repeated(int mark, int n) {
    return std::vector<int>(static_cast<size_t>(n), mark);
}

std::vector<int> joined(std::vector<int> a, const std::vector<int>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

TEST(CsatStats, AverageAndSatisfactionAreRoundedToTwoDecimals) {
    const std::vector<RoundingCase> cases{
        {{5, 4, 4}, 4.33, 100},
        {{1, 2, 5}, 2.67, 33.33},
        {{1, 1, 1, 1, 1, 1, 1, 5}, 1.5, 12.5},
        {{4, 4, 1}, 3, 66.67},
        {{1, 1, 2}, 1.33, 0},
        {{5}, 5, 100},
        {{3, 3, 3, 3}, 3, 0},
        {{5, 1, 1, 1, 1, 1}, 1.67, 16.67},
        {{4, 4, 4, 4, 4, 1, 1}, 3.14, 71.43},
        {{4, 5, 3, 2, 1, 5}, 3.33, 50},
        // Exact halves round up: 9/8 = 1.125; 36/32 = 1.125 and 1/32 = 3.125%;
        // 44/32 = 1.375 and 3/32 = 9.375%.
        {{2, 1, 1, 1, 1, 1, 1, 1}, 1.13, 0},
        {joined({5}, repeated(1, 31)), 1.13, 3.13},
        {joined({5, 5, 5}, repeated(1, 29)), 1.38, 9.38},
    };
    const CsatShop s = it::csat::make_csat_shop();
    const Millis d = at("2025-03-01");
    std::vector<int> all_marks;
    for (size_t i = 0; i < cases.size(); ++i) {
        std::vector<Planned> surveys;
        const Millis day = d + static_cast<Millis>(i) * kDay;
        for (size_t k = 0; k < cases[i].marks.size(); ++k) {
            surveys.push_back({cases[i].marks[k], day + kHour + static_cast<Millis>(k) * kMinute});
        }
        it::csat::record(s, surveys);
        all_marks.insert(all_marks.end(), cases[i].marks.begin(), cases[i].marks.end());

        // The whole day (per-day counts) and a partial first day (raw rows) give the same.
        for (const std::string& start : {date_of(day), iso(day + 30 * kMinute)}) {
            SCOPED_TRACE("case " + std::to_string(i) + ", startDate " + start);
            const Json::Value b =
                it::csat::list(s.shop, {{"startDate", start}, {"endDate", date_of(day)}});
            const Json::Value& st = b["stats"];
            EXPECT_EQ(st["totalSurveys"].asInt64(), static_cast<int64_t>(cases[i].marks.size()));
            EXPECT_EQ(st["averageRating"].asDouble(), cases[i].average) << it::to_json(st);
            EXPECT_EQ(st["satisfactionRate"].asDouble(), cases[i].satisfaction) << it::to_json(st);
            EXPECT_TRUE(it::csat::stats_are(st, cases[i].marks));
        }
    }
    // All days at once.
    const Json::Value b = it::csat::list(
        s.shop, {{"startDate", date_of(d)},
                 {"endDate", date_of(d + static_cast<Millis>(cases.size() - 1) * kDay)}});
    EXPECT_TRUE(it::csat::stats_are(b["stats"], all_marks));
}

TEST(CsatStats, AnEmptyWindowIsAllZeros) {
    const CsatShop s = it::csat::make_csat_shop();
    std::vector<Planned> surveys{{5, at("2025-03-10T10:00:00Z")}, {1, at("2025-03-12T10:00:00Z")}};
    it::csat::record(s, surveys);
    for (const Query& q :
         std::vector<Query>{{{"startDate", "2025-03-11"}, {"endDate", "2025-03-11"}},
                            {{"startDate", "2025-03-10T10:00:00.001Z"}, {"endDate", "2025-03-11"}},
                            {{"startDate", "2025-03-12T10:00:00.001Z"}, {"endDate", "2025-03-12"}},
                            {{"startDate", "2025-01-01"}, {"endDate", "2025-03-09"}}}) {
        const HttpResponse r = it::csat::get_csat(s.shop, q);
        ASSERT_TRUE(it::csat::is_csat_list(r));
        const Json::Value& st = r.json()["stats"];
        EXPECT_EQ(r.json()["total"], Json::Value(0)) << r.describe();
        EXPECT_EQ(r.json()["surveys"], Json::Value(Json::arrayValue)) << r.describe();
        EXPECT_EQ(st["totalSurveys"], Json::Value(0)) << r.describe();
        EXPECT_EQ(st["averageRating"].asDouble(), 0.0) << r.describe();
        EXPECT_EQ(st["satisfactionRate"].asDouble(), 0.0) << r.describe();
        for (const char* key : {"1", "2", "3", "4", "5"}) {
            EXPECT_EQ(st["ratingDistribution"][key], Json::Value(0)) << r.describe();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Windows.

TEST(CsatStats, StatsCoverTheWholeWindowNotThePage) {
    const CsatShop s = it::csat::make_csat_shop();
    const Millis d = at("2025-03-10");
    std::vector<Planned> surveys;
    for (int i = 0; i < 12; ++i) {
        surveys.push_back({i % 3 == 0 ? 5 : (i % 3 == 1 ? 2 : 4), d + (i + 1) * kHour});
    }
    it::csat::record(s, surveys);
    for (const std::string& start : {std::string("2025-03-10"), iso(d + 30 * kMinute)}) {
        for (const char* page : {"0", "1", "2", "3", "50"}) {
            const Json::Value b = it::csat::list(
                s.shop,
                {{"startDate", start}, {"endDate", "2025-03-10"}, {"limit", "5"}, {"page", page}});
            EXPECT_TRUE(it::csat::stats_are(b["stats"], it::csat::marks_in(surveys, d, d + kDay)))
                << "startDate " << start << " page " << page;
            EXPECT_EQ(b["total"].asInt64(), 12);
        }
    }
}

TEST(CsatStats, PartialFirstDayAndWholeDaysAgree) {
    const CsatShop s = it::csat::make_csat_shop();
    const Millis d = at("2025-03-10");
    std::vector<Planned> surveys{
        {1, d - 1},
        {2, d},
        {3, d + 1},
        {4, d + 6 * kHour},
        {5, d + 12 * kHour - 1},
        {1, d + 12 * kHour},
        {2, d + 12 * kHour + 1},
        {5, d + 18 * kHour},
        {4, d + kDay - 1},
        {3, d + kDay},
        {5, d + kDay + kHour},
        {1, d + 2 * kDay - 1},
        {2, d + 2 * kDay},
        {4, d + 2 * kDay + 5 * kHour},
        {5, d + 3 * kDay},
    };
    it::csat::record(s, surveys);
    for (const Millis start : {d, d + 1, d + 2, d + 6 * kHour, d + 12 * kHour - 1, d + 12 * kHour,
                               d + 12 * kHour + 1, d + 20 * kHour, d + kDay - 1}) {
        for (int end_day = 0; end_day <= 2; ++end_day) {
            const Millis end = d + end_day * kDay;
            EXPECT_TRUE(it::csat::window_is(
                it::csat::list(s.shop,
                               whole({{"startDate", iso(start)}, {"endDate", date_of(end)}})),
                surveys, start, it::csat::end_of_day(end)));
        }
    }
}

TEST(CsatStats, DaysAreUtcDaysWhateverTheOffsetOfCreatedAt) {
    const CsatShop s = it::csat::make_csat_shop();
    // 01:30+02:00 on the 11th is 23:30Z on the 10th; 22:30-02:00 on the 10th is 00:30Z on the
    // 11th; 23:59:59.999+00:00 and 00:00+00:00 are on their own days.
    const std::vector<std::pair<int, std::string>> given{
        {5, "2025-03-11T01:30:00+02:00"},     {1, "2025-03-10T22:30:00-02:00"},
        {4, "2025-03-10T23:59:59.999+00:00"}, {2, "2025-03-11T00:00:00.000+00:00"},
        {3, "2025-03-11T05:29:59.999+05:30"},  // 23:59:59.999Z on the 10th
    };
    std::vector<Planned> surveys;
    for (const auto& [mark, created] : given) {
        Json::Value body = it::object(
            {{"conversationId", s.conversation_id}, {"mark", mark}, {"createdAt", created}});
        const HttpResponse r = it::csat::post_survey(s.shop, body);
        ASSERT_TRUE(it::is_success(r, 201)) << created;
        surveys.push_back({mark, at(r.json()["survey"]["createdAt"].asString()),
                           r.json()["survey"]["id"].asInt64()});
    }
    const Millis d = at("2025-03-10");
    EXPECT_EQ(it::csat::marks_in(surveys, d, d + kDay - 1), (std::vector<int>{5, 4, 3}));
    EXPECT_TRUE(it::csat::window_is(
        it::csat::list(s.shop, {{"startDate", "2025-03-10"}, {"endDate", "2025-03-10"}}), surveys,
        d, d + kDay - 1));
    EXPECT_TRUE(it::csat::window_is(
        it::csat::list(s.shop, {{"startDate", "2025-03-11"}, {"endDate", "2025-03-11"}}), surveys,
        d + kDay, d + 2 * kDay - 1));
    EXPECT_TRUE(it::csat::window_is(
        it::csat::list(s.shop, {{"startDate", "2025-03-10T23:30:00Z"}, {"endDate", "2025-03-11"}}),
        surveys, d + kDay - 30 * kMinute, d + 2 * kDay - 1));
}

TEST(CsatStats, DaysAroundTheEpoch) {
    const CsatShop s = it::csat::make_csat_shop();
    const Millis e = 0;  // 1970-01-01T00:00:00.000Z
    std::vector<Planned> surveys{
        {1, e - kDay}, {2, e - 12 * kHour}, {3, e - 1}, {4, e}, {5, e + 6 * kHour}, {2, e + kDay},
    };
    it::csat::record(s, surveys);
    EXPECT_TRUE(it::csat::window_is(
        it::csat::list(s.shop, {{"startDate", "1969-12-31"}, {"endDate", "1969-12-31"}}), surveys,
        e - kDay, e - 1));
    EXPECT_TRUE(it::csat::window_is(
        it::csat::list(s.shop, {{"startDate", "1970-01-01"}, {"endDate", "1970-01-01"}}), surveys,
        e, e + kDay - 1));
    EXPECT_TRUE(it::csat::window_is(it::csat::list(s.shop, {{"startDate", "1969-12-31T18:00:00Z"},
                                                            {"endDate", "1970-01-01T03:00:00Z"}}),
                                    surveys, e - 6 * kHour, e + kDay - 1));
    EXPECT_TRUE(
        it::csat::window_is(it::csat::list(s.shop, {{"startDate", "1969-12-31T23:59:59.999Z"},
                                                    {"endDate", "1969-12-31T00:00:00+00:00"}}),
                            surveys, e - 1, e - 1));
}

// Surveys and windows at the first and last days a DATETIME(3) column holds.
TEST(CsatStats, TheEdgesOfTheDatetimeRange) {
    const CsatShop s = it::csat::make_csat_shop();
    const Millis first = at("1000-01-01T00:00:00.000Z");
    const Millis last = at("9999-12-31T23:59:59.999Z");
    std::vector<Planned> surveys{{1, first}, {2, first + kDay}, {4, last - kDay}, {5, last}};
    it::csat::record(s, surveys);
    EXPECT_TRUE(it::csat::window_is(
        it::csat::list(s.shop, {{"startDate", "1000-01-01"}, {"endDate", "9999-12-31"}}), surveys,
        first, last));
    EXPECT_TRUE(it::csat::window_is(
        it::csat::list(s.shop, {{"startDate", "1000-01-01"}, {"endDate", "1000-01-01"}}), surveys,
        first, first + kDay - 1));
    // A startDate with a time of day on the last day DATETIME holds: there is no next whole day,
    // and the stats must still cover [start, end] only (one survey), like the list.
    EXPECT_TRUE(it::csat::window_is(
        it::csat::list(s.shop,
                       {{"startDate", "9999-12-31T23:59:59.999Z"}, {"endDate", "9999-12-31"}}),
        surveys, last, last));
    EXPECT_TRUE(it::csat::window_is(
        it::csat::list(s.shop, {{"startDate", "9999-12-30T12:00:00Z"}, {"endDate", "9999-12-31"}}),
        surveys, last - kDay - 12 * kHour + 1, last));
}

// ---------------------------------------------------------------------------------------------
// Brand scope.

TEST(CsatStats, BrandScopeIncludesSiblingShopsAndNothingElse) {
    const int64_t brand = it::make_brand();
    const int64_t other_brand = it::make_brand();
    const CsatShop a = it::csat::make_csat_shop(brand);
    const CsatShop s1 = it::csat::make_csat_shop(brand);
    const CsatShop s2 = it::csat::make_csat_shop(brand);
    const CsatShop x = it::csat::make_csat_shop(other_brand);
    const CsatShop u = it::csat::make_csat_shop();
    const Millis d = at("2025-03-10");

    std::vector<Planned> pa{{5, d + kHour}, {4, d + 13 * kHour}, {1, d + kDay + kHour}};
    std::vector<Planned> p1{{2, d + kHour}, {3, d + 14 * kHour}};
    std::vector<Planned> p2{{5, d + 2 * kHour}, {5, d + 15 * kHour}, {4, d - 1}};
    std::vector<Planned> px{{1, d + 3 * kHour}, {1, d + 16 * kHour}};
    std::vector<Planned> pu{{1, d + 4 * kHour}, {2, d + 17 * kHour}};
    it::csat::record(a, pa);
    it::csat::record(s1, p1);
    it::csat::record(s2, p2);
    it::csat::record(x, px);
    it::csat::record(u, pu);
    std::vector<Planned> family = pa;
    family.insert(family.end(), p1.begin(), p1.end());
    family.insert(family.end(), p2.begin(), p2.end());
    const std::set<std::string> family_domains{a.shop.domain, s1.shop.domain, s2.shop.domain};

    struct Window {
        Query query;
        Millis from, to;
    };
    const std::vector<Window> windows{
        {{{"startDate", "2025-03-10"}, {"endDate", "2025-03-10"}}, d, d + kDay - 1},
        {{{"startDate", "2025-03-09"}, {"endDate", "2025-03-11"}}, d - kDay, d + 2 * kDay - 1},
        {{{"startDate", "2025-03-10T12:00:00Z"}, {"endDate", "2025-03-11"}},
         d + 12 * kHour,
         d + 2 * kDay - 1},
        {{{"startDate", "2025-03-09T23:59:59.999Z"}, {"endDate", "2025-03-10"}},
         d - 1,
         d + kDay - 1},
    };
    for (const Window& w : windows) {
        SCOPED_TRACE(it::csat::csat_path(w.query));
        for (const CsatShop* from : {&a, &s1, &s2}) {
            Query q = whole(w.query);
            q.emplace_back("scope", "brand");
            const Json::Value b = it::csat::list(from->shop, q);
            EXPECT_EQ(b["scope"], Json::Value("brand"));
            EXPECT_TRUE(it::csat::window_is(b, family, w.from, w.to));
            for (const Json::Value& v : b["surveys"]) {
                EXPECT_TRUE(family_domains.count(v["shopDomain"].asString())) << it::to_json(v);
            }
        }
        // Shop scope (explicit and default) of a shop in a brand: its own only.
        for (const char* scope : {"shop", ""}) {
            Query q = whole(w.query);
            if (*scope != '\0') {
                q.emplace_back("scope", scope);
            }
            const Json::Value b = it::csat::list(a.shop, q);
            EXPECT_EQ(b["scope"], Json::Value("shop"));
            EXPECT_TRUE(it::csat::window_is(b, pa, w.from, w.to));
        }
        // A brand of one shop, and a shop with no brand.
        Query q = whole(w.query);
        q.emplace_back("scope", "brand");
        const Json::Value bx = it::csat::list(x.shop, q);
        EXPECT_EQ(bx["scope"], Json::Value("brand"));
        EXPECT_TRUE(it::csat::window_is(bx, px, w.from, w.to));
        const Json::Value bu = it::csat::list(u.shop, q);
        EXPECT_EQ(bu["scope"], Json::Value("shop"));
        EXPECT_TRUE(it::csat::window_is(bu, pu, w.from, w.to));
    }
    // Brand pages walk the family in order.
    std::vector<int64_t> walked;
    for (int page = 0; page < 10; ++page) {
        const Json::Value b = it::csat::list(a.shop, {{"startDate", "2025-03-09"},
                                                      {"endDate", "2025-03-11"},
                                                      {"scope", "brand"},
                                                      {"limit", "3"},
                                                      {"page", std::to_string(page)}});
        const std::vector<int64_t> ids = it::csat::ids_of(b);
        walked.insert(walked.end(), ids.begin(), ids.end());
    }
    EXPECT_EQ(walked, it::csat::expected_ids(family, d - kDay, d + 2 * kDay - 1));
}

// ---------------------------------------------------------------------------------------------
// Agreement with the surveys table over random windows.

// The window [from, to] over the given shops, straight from the surveys rows.
struct SqlTruth {
    int64_t total = 0;
    it::csat::MarkCounts by_mark{};
    int64_t sum = 0;
    std::optional<std::string> avg;  // AVG(mark) as MariaDB prints it; nullopt when empty
    std::string ids;                 // GROUP_CONCAT in list order
};

SqlTruth sql_truth(it::Db& db, const std::vector<int64_t>& shop_ids, Millis from, Millis to) {
    std::string in = "(";
    std::vector<std::string> params;
    for (const int64_t id : shop_ids) {
        in += params.empty() ? "?" : ",?";
        params.push_back(std::to_string(id));
    }
    in += ")";
    params.push_back(it::csat::db_time(from));
    params.push_back(it::csat::db_time(to));
    const std::string where =
        " FROM surveys WHERE shop_id IN " + in + " AND created_at BETWEEN ? AND ?";
    SqlTruth t;
    t.total = db.count("SELECT COUNT(*)" + where, params);
    for (int m = 1; m <= 5; ++m) {
        std::vector<std::string> p = params;
        p.push_back(std::to_string(m));
        t.by_mark[static_cast<size_t>(m)] =
            db.count("SELECT COUNT(*)" + where + " AND mark = ?", p);
    }
    t.sum = std::stoll(
        db.scalar("SELECT CAST(COALESCE(SUM(mark), 0) AS CHAR)" + where, params).value_or("0"));
    t.avg = db.scalar("SELECT CAST(AVG(mark) AS CHAR)" + where, params);
    t.ids =
        db.scalar("SELECT GROUP_CONCAT(id ORDER BY created_at DESC, id DESC SEPARATOR ',')" + where,
                  params)
            .value_or("");
    return t;
}

std::string joined_ids(const std::vector<int64_t>& ids) {
    std::string out;
    for (const int64_t id : ids) {
        out += (out.empty() ? "" : ",") + std::to_string(id);
    }
    return out;
}

TEST(CsatStats, AgreeWithTheSurveysTableOverRandomWindows) {
    const int64_t brand = it::make_brand();
    const CsatShop a = it::csat::make_csat_shop(brand);
    const CsatShop sibling = it::csat::make_csat_shop(brand);
    const CsatShop unrelated = it::csat::make_csat_shop();
    const it::csat::Today today = it::csat::pin_today(a.shop);
    const Millis t = today.midnight;

    const uint64_t seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    auto uniform = [&rng](int64_t lo, int64_t hi) {  // inclusive
        return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    // A time of day, often on an edge or repeated (ties).
    std::vector<Millis> used_times;
    auto time_of_day = [&]() -> Millis {
        const int64_t pick = uniform(0, 9);
        if (pick == 0) {
            return 0;
        }
        if (pick == 1) {
            return kDay - 1;
        }
        if (pick == 2 && !used_times.empty()) {
            return used_times[static_cast<size_t>(uniform(0, int64_t(used_times.size()) - 1))];
        }
        const Millis ms = uniform(0, kDay - 1);
        used_times.push_back(ms);
        return ms;
    };

    // Surveys spread over the ten days up to today, in all three shops.
    for (const auto& [shop, n] :
         std::vector<std::pair<const CsatShop*, int>>{{&a, 30}, {&sibling, 20}, {&unrelated, 15}}) {
        std::vector<Planned> surveys;
        for (int i = 0; i < n; ++i) {
            surveys.push_back(
                {static_cast<int>(uniform(1, 5)), t - uniform(0, 9) * kDay + time_of_day()});
        }
        it::csat::record(*shop, surveys);
    }

    const std::vector<int> offsets{-480, -300, -60, 60, 120, 330, 540, 840};
    it::Db db;
    int checked = 0;
    for (int round = 0; round < 40; ++round) {
        // 0: absent (default), 1: bare date, 2: datetime Z, 3: datetime with an offset.
        const int64_t start_form = uniform(0, 3);
        const int64_t end_form = uniform(0, 3);
        Query q;
        Millis from = t - 7 * kDay;
        Millis to = t + kDay - 1;
        const Millis start_day = t - uniform(0, 10) * kDay;
        const Millis start = start_form == 1 ? start_day : start_day + time_of_day();
        if (start_form == 1) {
            q.emplace_back("startDate", date_of(start));
        } else if (start_form == 2) {
            q.emplace_back("startDate", iso(start));
        } else if (start_form == 3) {
            q.emplace_back("startDate", it::csat::iso_with_offset(
                                            start, offsets[static_cast<size_t>(uniform(0, 7))]));
        }
        if (start_form != 0) {
            from = start;
        }
        const Millis end = (start_form == 0 ? t - uniform(0, 8) * kDay : start_day) +
                           uniform(-1, 5) * kDay + time_of_day();
        if (end_form == 1) {
            q.emplace_back("endDate", date_of(end));
        } else if (end_form == 2) {
            q.emplace_back("endDate", iso(end));
        } else if (end_form == 3) {
            q.emplace_back("endDate", it::csat::iso_with_offset(
                                          end, offsets[static_cast<size_t>(uniform(0, 7))]));
        }
        if (end_form != 0) {
            to = it::csat::end_of_day(end);
        }
        // Shop or brand scope, asked by the shop or its sibling; now and then the unrelated shop.
        const int64_t who = uniform(0, 4);
        const bool brand_scope = uniform(0, 1) == 1;
        if (brand_scope) {
            q.emplace_back("scope", "brand");
        }
        q.emplace_back("limit", "100");
        const CsatShop& asker = who == 4 ? unrelated : (who % 2 == 0 ? a : sibling);
        std::vector<int64_t> shop_ids{asker.shop.id};
        if (brand_scope && who != 4) {
            shop_ids = {a.shop.id, sibling.shop.id};
        }
        SCOPED_TRACE("round " + std::to_string(round) + ": " + asker.shop.domain + " " +
                     it::csat::csat_path(q));

        const HttpResponse r = it::csat::get_csat(asker.shop, q);
        if (from > to) {
            EXPECT_TRUE(
                it::is_error(r, 400, "invalid_query", "startDate must not be after endDate"));
            continue;
        }
        ASSERT_TRUE(it::csat::is_csat_list(r));
        const Json::Value& b = r.json();
        EXPECT_EQ(b["scope"], Json::Value(brand_scope && who != 4 ? "brand" : "shop"));
        EXPECT_EQ(b["dateRange"]["startDate"], Json::Value(iso(from)));
        EXPECT_EQ(b["dateRange"]["endDate"], Json::Value(iso(to)));

        const SqlTruth truth = sql_truth(db, shop_ids, from, to);
        ASSERT_LE(truth.total, 100) << "the window must fit one page";
        EXPECT_EQ(b["total"].asInt64(), truth.total);
        EXPECT_TRUE(it::csat::stats_are(b["stats"], truth.by_mark));
        const Json::Value& st = b["stats"];
        EXPECT_EQ(st["averageRating"].asDouble(), it::csat::round2(truth.sum, truth.total));
        if (truth.avg) {
            EXPECT_LE(std::abs(st["averageRating"].asDouble() - std::stod(*truth.avg)),
                      0.005 + 1e-9)
                << "AVG(mark) = " << *truth.avg << ", averageRating " << it::to_json(st);
        } else {
            EXPECT_EQ(truth.total, 0);
        }
        EXPECT_EQ(joined_ids(it::csat::ids_of(b)), truth.ids);
        ++checked;
    }
    EXPECT_GE(checked, 10) << "too few valid windows; the generator needs a look";
    EXPECT_TRUE(it::csat::still_today(today));
}

}  // namespace

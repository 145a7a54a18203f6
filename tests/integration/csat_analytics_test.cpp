// extensions.md §E4: GET /api/v1/csat's filters (mark, channel, assignedTo, customerId), time
// zones (tz), groups (groupBy day / channel / agent / mark), satisfiedCount and the
// dateRange's timezone; GET /api/v1/csat/export (ndjson, CSV). Expected values are computed
// here from the surveys each test records: plain counts over the planned rows, and zone days
// from the C library (mktime with TZ in this process), never from the server's own zone code.
#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "csat_fixtures.h"
#include "harness.h"
#include "tickets_fixtures.h"

namespace {

using it::HttpResponse;
using it::csat::at;
using it::csat::iso;
using it::csat::kDay;
using it::csat::kHour;
using it::csat::kMinute;
using it::csat::MarkCounts;
using it::csat::Millis;
using it::csat::Query;

constexpr char kExportPath[] = "/api/v1/csat/export";

// ---------------------------------------------------------------------------------------------
// Zone days from the C library: TZ is switched in this (test) process only.

class ZoneClock {
  public:
    explicit ZoneClock(const std::string& zone) {
        const char* old = getenv("TZ");
        saved_ = old ? std::optional<std::string>(old) : std::nullopt;
        setenv("TZ", zone.c_str(), 1);
        tzset();
    }
    ~ZoneClock() {
        if (saved_) {
            setenv("TZ", saved_->c_str(), 1);
        } else {
            unsetenv("TZ");
        }
        tzset();
    }
    // The first instant of the local day y-m-d (midnight; after a gap, the gap's end).
    Millis day_start(int y, int m, int d) const {
        // mktime normalizes a nonexistent time forward; search the first second whose local
        // date is y-m-d around its answer.
        struct tm t {};
        t.tm_year = y - 1900;
        t.tm_mon = m - 1;
        t.tm_mday = d;
        t.tm_isdst = -1;
        time_t guess = mktime(&t);
        time_t lo = guess - 26 * 3600, hi = guess + 26 * 3600;
        while (lo < hi) {
            time_t mid = lo + (hi - lo) / 2;
            if (local_key(mid) >= y * 10000 + m * 100 + d) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return static_cast<Millis>(lo) * 1000;
    }
    // "YYYY-MM-DD" of the local day of an instant, and that day's first instant.
    std::string date_of(Millis ms) const {
        int k = local_key(static_cast<time_t>(floor_div(ms, 1000)));
        char buf[16];
        std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", k / 10000, k / 100 % 100, k % 100);
        return buf;
    }
    Millis start_of_day_of(Millis ms) const {
        int k = local_key(static_cast<time_t>(floor_div(ms, 1000)));
        return day_start(k / 10000, k / 100 % 100, k % 100);
    }
    Millis next_day_start(Millis day_start_ms) const {
        return start_of_day_of(day_start_ms + 26 * kHour);
    }

  private:
    static Millis floor_div(Millis a, Millis b) { return a / b - (a % b < 0 ? 1 : 0); }
    static int local_key(time_t t) {
        struct tm lt {};
        localtime_r(&t, &lt);
        return (lt.tm_year + 1900) * 10000 + (lt.tm_mon + 1) * 100 + lt.tm_mday;
    }
    std::optional<std::string> saved_;
};

// ---------------------------------------------------------------------------------------------
// A shop with several conversations: channels, agents, two customers.

struct Conv {
    std::string id;
    int64_t customer_id = 0;
    std::string channel;
    std::optional<int64_t> agent;
};

struct Survey {
    Survey() = default;
    Survey(int m, Millis at_, size_t c, int64_t id_ = 0, std::string text = "")
        : mark(m), created_at(at_), conv(c), id(id_), comment(std::move(text)) {}
    int mark = 0;
    Millis created_at = 0;
    size_t conv = 0;  // index into World::convs
    int64_t id = 0;   // once recorded
    std::string comment;
};

struct World {
    it::csat::CsatShop base;
    std::vector<Conv> convs;
    std::vector<int64_t> agents;
    int64_t other_customer = 0;
};

World make_world(std::optional<int64_t> brand = std::nullopt) {
    World w;
    w.base = it::csat::make_csat_shop(brand);
    const it::Shop& shop = w.base.shop;
    w.agents.push_back(it::tickets::make_user(shop, it::unique_email("agent")));
    w.agents.push_back(it::tickets::make_user(shop, it::unique_email("agent")));
    w.other_customer = it::tickets::make_customer(shop);
    auto conv = [&](int64_t customer, const std::string& channel, std::optional<int64_t> agent) {
        Json::Value body =
            it::object({{"customerId", Json::Int64(customer)}, {"Channel", channel}});
        if (agent) {
            body["assigned_to"] = Json::Int64(*agent);
        }
        Json::Value t = it::tickets::create_ticket(shop, body);
        w.convs.push_back({t["id"].asString(), customer, channel, agent});
    };
    conv(w.base.customer_id, "Mail", w.agents[0]);
    conv(w.base.customer_id, "Chat", w.agents[1]);
    conv(w.base.customer_id, "Chat", std::nullopt);
    conv(w.other_customer, "Mail", w.agents[1]);
    conv(w.other_customer, "Instagram", std::nullopt);
    return w;
}

void record(const World& w, std::vector<Survey>& surveys) {
    for (Survey& s : surveys) {
        Json::Value body = it::object({{"conversationId", w.convs[s.conv].id},
                                       {"mark", s.mark},
                                       {"createdAt", iso(s.created_at)}});
        if (!s.comment.empty()) {
            body["comment"] = s.comment;
        }
        HttpResponse r = it::csat::post_survey(w.base.shop, body);
        if (r.status != 201) {
            throw std::runtime_error("survey not recorded: " + r.describe());
        }
        s.id = r.json()["survey"]["id"].asInt64();
    }
}

struct Filter {
    std::set<int> marks;  // empty: all
    std::optional<std::string> channel;
    std::optional<int64_t> agent;
    std::optional<int64_t> customer;
};

bool passes(const World& w, const Survey& s, const Filter& f) {
    const Conv& c = w.convs[s.conv];
    return (f.marks.empty() || f.marks.count(s.mark)) && (!f.channel || *f.channel == c.channel) &&
           (!f.agent || c.agent == f.agent) && (!f.customer || *f.customer == c.customer_id);
}

Query filter_query(const Filter& f) {
    Query q;
    if (!f.marks.empty()) {
        std::string list;
        for (int m : f.marks) {
            list += (list.empty() ? "" : ",") + std::to_string(m);
        }
        q.emplace_back("mark", list);
    }
    if (f.channel) {
        q.emplace_back("channel", *f.channel);
    }
    if (f.agent) {
        q.emplace_back("assignedTo", std::to_string(*f.agent));
    }
    if (f.customer) {
        q.emplace_back("customerId", std::to_string(*f.customer));
    }
    return q;
}

MarkCounts counts_of(const std::vector<const Survey*>& rows) {
    MarkCounts c{};
    for (const Survey* s : rows) {
        ++c[static_cast<size_t>(s->mark)];
    }
    return c;
}

std::vector<const Survey*> select(const World& w, const std::vector<Survey>& all, Millis from,
                                  Millis to, const Filter& f) {
    std::vector<const Survey*> out;
    for (const Survey& s : all) {
        if (s.created_at >= from && s.created_at <= to && passes(w, s, f)) {
            out.push_back(&s);
        }
    }
    std::sort(out.begin(), out.end(), [](const Survey* a, const Survey* b) {
        return a->created_at != b->created_at ? a->created_at > b->created_at : a->id > b->id;
    });
    return out;
}

Json::Value get_list(const it::Shop& shop, const Query& q) {
    HttpResponse r = it::csat::get_csat(shop, q);
    EXPECT_TRUE(it::csat::is_csat_list(r)) << r.describe();
    return r.json();
}

HttpResponse get_export(const it::Shop& shop, const Query& q) {
    std::string path = kExportPath;
    for (size_t i = 0; i < q.size(); ++i) {
        path += (i == 0 ? "?" : "&") + it::csat::encode(q[i].first) + "=" +
                it::csat::encode(q[i].second);
    }
    // Not JSON (ndjson, CSV) unless it is an error: no JSON check of the body, but the OpenAPI
    // proxy's verdict when it runs (scripts/openapi check).
    HttpResponse r = it::http_any_body("GET", path, it::key_header(shop));
    if (r.status != 200) {
        it::expect_json_body(r);
    }
    it::expect_described(r);
    return r;
}

// scripts/openapi check puts Prism's proxy in front of nginx; it reads the whole body and
// answers with a Content-Length.
bool through_openapi_proxy() {
    const char* v = std::getenv("SUPPORTCRM_OPENAPI_CHECK");
    return v != nullptr && std::string(v) == "1";
}

std::vector<std::string> lines_of(const std::string& body, const std::string& end = "\n") {
    std::vector<std::string> lines;
    size_t from = 0;
    while (from < body.size()) {
        size_t e = body.find(end, from);
        if (e == std::string::npos) {
            lines.push_back(body.substr(from));
            break;
        }
        lines.push_back(body.substr(from, e - from));
        from = e + end.size();
    }
    return lines;
}

// The body agrees with the rows: page ids (limit 100 holds them all), total and stats.
void expect_window(const Json::Value& b, const std::vector<const Survey*>& rows,
                   const std::string& what) {
    std::vector<int64_t> want;
    for (const Survey* s : rows) {
        want.push_back(s->id);
    }
    EXPECT_EQ(it::csat::ids_of(b), want) << what;
    EXPECT_EQ(b["total"].asInt64(), static_cast<int64_t>(rows.size())) << what;
    EXPECT_TRUE(it::csat::stats_are(b["stats"], counts_of(rows))) << what;
}

// ---------------------------------------------------------------------------------------------
// Checks and their order.

TEST(CsatAnalytics, InvalidParametersHaveE4sMessages) {
    const it::csat::CsatShop s = it::csat::make_csat_shop();
    const std::vector<std::pair<Query, std::string>> cases{
        {{{"mark", "0"}}, "Invalid mark"},
        {{{"mark", "6"}}, "Invalid mark"},
        {{{"mark", ""}}, "Invalid mark"},
        {{{"mark", "1,,2"}}, "Invalid mark"},
        {{{"mark", "1,"}}, "Invalid mark"},
        {{{"mark", "12"}}, "Invalid mark"},
        {{{"mark", "4.0"}}, "Invalid mark"},
        {{{"assignedTo", "abc"}}, "Invalid assignedTo"},
        {{{"assignedTo", "0"}}, "Invalid assignedTo"},
        {{{"assignedTo", "-3"}}, "Invalid assignedTo"},
        {{{"assignedTo", ""}}, "Invalid assignedTo"},
        {{{"customerId", "x"}}, "Invalid customerId"},
        {{{"customerId", "0"}}, "Invalid customerId"},
        {{{"tz", "Mars/Olympus_Mons"}}, "Invalid tz"},
        {{{"tz", ""}}, "Invalid tz"},
        {{{"tz", "../../etc/passwd"}}, "Invalid tz"},
        {{{"tz", "Europe"}}, "Invalid tz"},
        {{{"tz", "europe/paris"}}, "Invalid tz"},
        // Files of /usr/share/zoneinfo that are not tzdata's zones (issue 25).
        {{{"tz", "localtime"}}, "Invalid tz"},
        {{{"tz", "posixrules"}}, "Invalid tz"},
        {{{"tz", "Factory"}}, "Invalid tz"},
        {{{"tz", "posix/Europe/Paris"}}, "Invalid tz"},
        {{{"tz", "right/Europe/Paris"}}, "Invalid tz"},
        {{{"tz", "zone1970.tab"}}, "Invalid tz"},
        {{{"groupBy", "week"}}, "Invalid groupBy"},
        {{{"groupBy", ""}}, "Invalid groupBy"},
        {{{"groupBy", "Day"}}, "Invalid groupBy"},
        // Order: v1's checks, then E4's table order, then the window's order.
        {{{"page", "x"}, {"mark", "9"}}, "Invalid page"},
        {{{"startDate", "nope"}, {"mark", "9"}}, "Invalid startDate"},
        {{{"mark", "9"}, {"assignedTo", "x"}}, "Invalid mark"},
        {{{"assignedTo", "x"}, {"customerId", "x"}}, "Invalid assignedTo"},
        {{{"customerId", "x"}, {"tz", "Nowhere"}}, "Invalid customerId"},
        {{{"tz", "Nowhere"}, {"groupBy", "x"}}, "Invalid tz"},
        {{{"groupBy", "x"}, {"startDate", "2026-02-02"}, {"endDate", "2026-02-01"}},
         "Invalid groupBy"},
        {{{"tz", "Nowhere"}, {"startDate", "2026-02-02"}, {"endDate", "2026-02-01"}}, "Invalid tz"},
        // A window of more days than groupBy=day answers for.
        {{{"groupBy", "day"}, {"startDate", "2000-01-01"}, {"endDate", "2020-01-01"}},
         "Invalid groupBy"},
    };
    for (const auto& [q, message] : cases) {
        HttpResponse r = it::csat::get_csat(s.shop, q);
        EXPECT_TRUE(it::is_error(r, 400, "invalid_query", message)) << r.describe();
        HttpResponse e = get_export(s.shop, q);
        if (q.front().first != "page") {  // page is not the export's parameter
            EXPECT_EQ(e.status, 400) << e.describe();
            EXPECT_TRUE(it::is_error(e, 400, "invalid_query", message)) << e.describe();
        }
    }
    for (const char* format : {"xml", "", "CSV", "json"}) {
        HttpResponse e = get_export(s.shop, {{"format", format}});
        EXPECT_TRUE(it::is_error(e, 400, "invalid_query", "Invalid format")) << e.describe();
    }
    // format comes after E4's parameters.
    HttpResponse e = get_export(s.shop, {{"format", "xml"}, {"tz", "Nowhere"}});
    EXPECT_TRUE(it::is_error(e, 400, "invalid_query", "Invalid tz")) << e.describe();
    // The key comes first.
    HttpResponse unauth = it::http("GET", std::string(kExportPath) + "?format=xml");
    EXPECT_EQ(unauth.status, 401) << unauth.describe();
}

TEST(CsatAnalytics, NoE4ParameterStillAnswersV1PlusSatisfiedCountAndTimezone) {
    const it::csat::CsatShop s = it::csat::make_csat_shop();
    const Millis d = at("2025-06-10");
    it::csat::add_survey(s, 5, d + kHour);
    it::csat::add_survey(s, 4, d + 2 * kHour);
    it::csat::add_survey(s, 2, d + 3 * kHour);
    Json::Value b = get_list(s.shop, {{"startDate", "2025-06-10"}, {"endDate", "2025-06-10"}});
    EXPECT_EQ(b["stats"]["satisfiedCount"].asInt64(), 2);
    EXPECT_EQ(b["dateRange"]["timezone"].asString(), "UTC");
    EXPECT_FALSE(b["stats"].isMember("groups"));
    // tz=UTC gives the same answer.
    Json::Value u =
        get_list(s.shop, {{"startDate", "2025-06-10"}, {"endDate", "2025-06-10"}, {"tz", "UTC"}});
    EXPECT_EQ(it::to_json(u), it::to_json(b));
}

// ---------------------------------------------------------------------------------------------
// Zone days.

TEST(CsatAnalytics, ParisDaysAroundTheLastSundayOfOctober) {
    World w = make_world();
    // 2026-10-25: CEST until 01:00 UTC, then CET. Paris days: the 24th starts at 22:00 UTC on
    // the 23rd; the 25th at 22:00 UTC on the 24th (25 hours long); the 26th at 23:00 UTC.
    std::vector<Survey> surveys{
        {5, at("2026-10-23T21:59:59.999Z"), 0},  // Paris 23rd
        {4, at("2026-10-23T22:00:00.000Z"), 0},  // Paris 24th, first instant
        {3, at("2026-10-24T21:59:59.999Z"), 1},  // Paris 24th, last instant
        {2, at("2026-10-24T22:00:00.000Z"), 1},  // Paris 25th, first instant
        {5, at("2026-10-25T00:30:00.000Z"), 2},  // 02:30 CEST
        {1, at("2026-10-25T01:30:00.000Z"), 2},  // 02:30 CET (the repeated hour)
        {4, at("2026-10-25T22:59:59.999Z"), 3},  // Paris 25th, last instant
        {5, at("2026-10-25T23:00:00.000Z"), 4},  // Paris 26th, first instant
        {3, at("2026-10-26T22:59:59.999Z"), 4},  // Paris 26th, last instant
        {2, at("2026-10-26T23:00:00.000Z"), 0},  // Paris 27th
    };
    record(w, surveys);
    Json::Value b = get_list(w.base.shop, {{"tz", "Europe/Paris"},
                                           {"startDate", "2026-10-24"},
                                           {"endDate", "2026-10-26"},
                                           {"groupBy", "day"},
                                           {"limit", "100"}});
    EXPECT_EQ(b["dateRange"]["startDate"].asString(), "2026-10-23T22:00:00.000Z");
    EXPECT_EQ(b["dateRange"]["endDate"].asString(), "2026-10-26T22:59:59.999Z");
    EXPECT_EQ(b["dateRange"]["timezone"].asString(), "Europe/Paris");
    EXPECT_EQ(b["total"].asInt64(), 8);
    const Json::Value& g = b["stats"]["groups"];
    ASSERT_EQ(g.size(), 3u) << it::to_json(b);
    EXPECT_EQ(g[0]["key"].asString(), "2026-10-24");
    EXPECT_TRUE(it::csat::stats_are(g[0], std::vector<int>{4, 3}));
    EXPECT_EQ(g[1]["key"].asString(), "2026-10-25");
    EXPECT_TRUE(it::csat::stats_are(g[1], std::vector<int>{2, 5, 1, 4}));
    EXPECT_EQ(g[2]["key"].asString(), "2026-10-26");
    EXPECT_TRUE(it::csat::stats_are(g[2], std::vector<int>{5, 3}));
    // The same dates as UTC days group differently: the zone matters.
    Json::Value u = get_list(
        w.base.shop, {{"startDate", "2026-10-24"}, {"endDate", "2026-10-26"}, {"groupBy", "day"}});
    ASSERT_EQ(u["stats"]["groups"].size(), 3u);
    EXPECT_TRUE(it::csat::stats_are(u["stats"]["groups"][0], std::vector<int>{3, 2}));
    EXPECT_TRUE(it::csat::stats_are(u["stats"]["groups"][1], std::vector<int>{5, 1, 4, 5}));
    EXPECT_EQ(u["dateRange"]["timezone"].asString(), "UTC");
}

TEST(CsatAnalytics, HalfHourAndQuarterHourZones) {
    World w = make_world();
    std::vector<Survey> surveys{
        {5, at("2026-03-09T18:29:59.999Z"), 0},  // Kolkata 9th (+05:30)
        {4, at("2026-03-09T18:30:00.000Z"), 1},  // Kolkata 10th
        {3, at("2026-03-10T18:14:59.999Z"), 2},  // Kolkata 10th; Kathmandu 10th (+05:45)
        {2, at("2026-03-10T18:15:00.000Z"), 3},  // Kolkata 10th; Kathmandu 11th
        {1, at("2026-03-10T18:29:59.999Z"), 4},  // Kolkata 10th; Kathmandu 11th
        {5, at("2026-03-10T18:30:00.000Z"), 0},  // Kolkata 11th; Kathmandu 11th
    };
    record(w, surveys);
    Json::Value k = get_list(w.base.shop, {{"tz", "Asia/Kolkata"},
                                           {"startDate", "2026-03-10"},
                                           {"endDate", "2026-03-10"},
                                           {"groupBy", "day"}});
    EXPECT_EQ(k["dateRange"]["startDate"].asString(), "2026-03-09T18:30:00.000Z");
    EXPECT_EQ(k["dateRange"]["endDate"].asString(), "2026-03-10T18:29:59.999Z");
    EXPECT_TRUE(it::csat::stats_are(k["stats"], std::vector<int>{4, 3, 2, 1}));
    ASSERT_EQ(k["stats"]["groups"].size(), 1u);
    EXPECT_TRUE(it::csat::stats_are(k["stats"]["groups"][0], std::vector<int>{4, 3, 2, 1}));
    Json::Value n = get_list(
        w.base.shop,
        {{"tz", "Asia/Kathmandu"}, {"startDate", "2026-03-11"}, {"endDate", "2026-03-11"}});
    EXPECT_EQ(n["dateRange"]["startDate"].asString(), "2026-03-10T18:15:00.000Z");
    EXPECT_TRUE(it::csat::stats_are(n["stats"], std::vector<int>{2, 1, 5}));
}

TEST(CsatAnalytics, DayGroupsListEveryDayWithZeros) {
    World w = make_world();
    std::vector<Survey> surveys{{4, at("2026-05-02T10:00:00Z"), 0},
                                {2, at("2026-05-05T10:00:00Z"), 1}};
    record(w, surveys);
    Json::Value b = get_list(w.base.shop, {{"startDate", "2026-05-01"},
                                           {"endDate", "2026-05-06"},
                                           {"groupBy", "day"},
                                           {"mark", "4"}});
    const Json::Value& g = b["stats"]["groups"];
    ASSERT_EQ(g.size(), 6u) << it::to_json(b);
    for (unsigned i = 0; i < 6; ++i) {
        EXPECT_EQ(g[i]["key"].asString(), "2026-05-0" + std::to_string(i + 1));
        EXPECT_TRUE(it::csat::stats_are(g[i], i == 1 ? std::vector<int>{4} : std::vector<int>{}));
    }
    // A datetime startDate: its day is partial, but listed.
    Json::Value p = get_list(
        w.base.shop,
        {{"startDate", "2026-05-02T10:00:00.001Z"}, {"endDate", "2026-05-05"}, {"groupBy", "day"}});
    ASSERT_EQ(p["stats"]["groups"].size(), 4u);
    EXPECT_EQ(p["stats"]["groups"][0]["key"].asString(), "2026-05-02");
    EXPECT_EQ(p["stats"]["groups"][0]["totalSurveys"].asInt64(), 0);
    EXPECT_EQ(p["total"].asInt64(), 1);
}

// ---------------------------------------------------------------------------------------------
// Groups.

TEST(CsatAnalytics, ChannelAgentAndMarkGroupsAndTheirOrder) {
    World w = make_world();
    const Millis d = at("2026-04-01T12:00:00Z");
    // Mail: 3 (conv 0 x2, conv 3 x1); Chat: 3 (conv 1, conv 2 x2); Instagram: 1.
    // agents: a0: 2 (conv 0), a1: 2 (conv 1, conv 3), unassigned: 3 (conv 2 x2, conv 4).
    std::vector<Survey> surveys{{5, d, 0},
                                {3, d + kMinute, 0},
                                {4, d + 2 * kMinute, 3},
                                {1, d + 3 * kMinute, 1},
                                {2, d + 4 * kMinute, 2},
                                {5, d + 5 * kMinute, 2},
                                {4, d + 6 * kMinute, 4}};
    record(w, surveys);
    const Query window{{"startDate", "2026-04-01"}, {"endDate", "2026-04-01"}};
    auto with = [&](Query q, const std::string& group) {
        q.emplace_back("groupBy", group);
        return get_list(w.base.shop, q);
    };
    Json::Value c = with(window, "channel");
    const Json::Value& cg = c["stats"]["groups"];
    ASSERT_EQ(cg.size(), 3u) << it::to_json(c);
    EXPECT_EQ(cg[0]["key"].asString(), "Chat");  // 3 each: key ascending
    EXPECT_TRUE(it::csat::stats_are(cg[0], std::vector<int>{1, 2, 5}));
    EXPECT_EQ(cg[1]["key"].asString(), "Mail");
    EXPECT_TRUE(it::csat::stats_are(cg[1], std::vector<int>{5, 3, 4}));
    EXPECT_EQ(cg[2]["key"].asString(), "Instagram");
    Json::Value a = with(window, "agent");
    const Json::Value& ag = a["stats"]["groups"];
    ASSERT_EQ(ag.size(), 3u) << it::to_json(a);
    EXPECT_TRUE(ag[0]["key"].isNull());  // 3 surveys
    EXPECT_TRUE(it::csat::stats_are(ag[0], std::vector<int>{2, 5, 4}));
    const int64_t lo = std::min(w.agents[0], w.agents[1]), hi = std::max(w.agents[0], w.agents[1]);
    EXPECT_EQ(ag[1]["key"].asString(), std::to_string(lo));  // 2 each: numerically
    EXPECT_EQ(ag[2]["key"].asString(), std::to_string(hi));
    // With a filter, only keys that still have surveys; null last among equals.
    Query five = window;
    five.emplace_back("mark", "5,4");
    Json::Value a5 = with(five, "agent");
    const Json::Value& ag5 = a5["stats"]["groups"];
    ASSERT_EQ(ag5.size(), 3u) << it::to_json(a5);
    EXPECT_EQ(ag5[0]["totalSurveys"].asInt64(), 2);
    EXPECT_TRUE(ag5[0]["key"].isNull());
    EXPECT_EQ(ag5[1]["key"].asString(), std::to_string(lo));
    EXPECT_EQ(ag5[2]["key"].asString(), std::to_string(hi));
    Json::Value m = with(window, "mark");
    const Json::Value& mg = m["stats"]["groups"];
    ASSERT_EQ(mg.size(), 5u);
    for (unsigned i = 0; i < 5; ++i) {
        EXPECT_EQ(mg[i]["key"].asString(), std::to_string(i + 1));
    }
    EXPECT_EQ(mg[4]["totalSurveys"].asInt64(), 2);
    EXPECT_EQ(mg[4]["satisfiedCount"].asInt64(), 2);
    EXPECT_EQ(mg[0]["satisfactionRate"].asDouble(), 0.0);
    EXPECT_EQ(c["stats"]["satisfiedCount"].asInt64(), 4);
}

TEST(CsatAnalytics, ChannelAndAgentAreThoseAtRecordTime) {
    World w = make_world();
    std::vector<Survey> surveys{{5, at("2026-04-02T12:00:00Z"), 0}};
    record(w, surveys);
    // The conversation moves to another agent and channel afterwards (no API does this).
    it::tickets::SqlDb db;
    db.execute("UPDATE conversations SET assigned_to = ?, channel = 'Phone' WHERE id = ?",
               {std::to_string(w.agents[1]), w.convs[0].id});
    const Query day{{"startDate", "2026-04-02"}, {"endDate", "2026-04-02"}};
    auto total = [&](Query q) { return get_list(w.base.shop, q)["total"].asInt64(); };
    Query q = day;
    q.emplace_back("assignedTo", std::to_string(w.agents[0]));
    EXPECT_EQ(total(q), 1);
    q = day;
    q.emplace_back("assignedTo", std::to_string(w.agents[1]));
    EXPECT_EQ(total(q), 0);
    q = day;
    q.emplace_back("channel", "Mail");
    EXPECT_EQ(total(q), 1);
    q = day;
    q.emplace_back("channel", "Phone");
    EXPECT_EQ(total(q), 0);
}

// ---------------------------------------------------------------------------------------------
// Random windows, zones and filter combinations against counts over the planned rows.

TEST(CsatAnalytics, RandomWindowsZonesAndFiltersAgreeWithPlainCounts) {
    World w = make_world();
    std::mt19937 rng(4242);
    const Millis base = at("2026-10-20");
    std::vector<Survey> surveys;
    for (int i = 0; i < 90; ++i) {
        Survey s;
        s.mark = 1 + static_cast<int>(rng() % 5);
        // Over 12 days, at any millisecond, a few exactly on quarter hours.
        s.created_at = base + static_cast<Millis>(rng() % (12 * kDay));
        if (i % 7 == 0) {
            s.created_at -= s.created_at % (15 * kMinute);
        }
        s.conv = rng() % 5;
        surveys.push_back(s);
    }
    record(w, surveys);
    const std::vector<std::string> zones{"UTC",
                                         "Europe/Paris",
                                         "Asia/Kolkata",
                                         "Asia/Kathmandu",
                                         "America/New_York",
                                         "Australia/Lord_Howe"};
    const std::vector<std::string> groups{"", "day", "channel", "agent", "mark"};
    for (int round = 0; round < 60; ++round) {
        const std::string zone = zones[rng() % zones.size()];
        ZoneClock clock(zone);
        Filter f;
        if (rng() % 2) {
            for (int m = 1; m <= 5; ++m) {
                if (rng() % 2) {
                    f.marks.insert(m);
                }
            }
        }
        if (rng() % 3 == 0) {
            f.channel = std::vector<std::string>{"Mail", "Chat", "Instagram", "Phone"}[rng() % 4];
        }
        if (rng() % 3 == 0) {
            f.agent = w.agents[rng() % 2];
        }
        if (rng() % 4 == 0) {
            f.customer = rng() % 2 ? w.base.customer_id : w.other_customer;
        }
        // startDate: a bare date or a datetime at any millisecond; endDate a bare date.
        const Millis first = base - kDay + static_cast<Millis>(rng() % (8 * kDay));
        const Millis last = first + static_cast<Millis>(rng() % (6 * kDay));
        Query q = filter_query(f);
        Millis from;
        const std::string end_date = clock.date_of(last);
        if (rng() % 2) {
            q.emplace_back("startDate", clock.date_of(first));
            from = clock.start_of_day_of(first);
        } else {
            q.emplace_back("startDate", iso(first));
            from = first;
        }
        q.emplace_back("endDate", end_date);
        const Millis to = clock.next_day_start(clock.start_of_day_of(last)) - 1;
        if (zone != "UTC" || rng() % 2) {
            q.emplace_back("tz", zone);
        }
        const std::string group = groups[rng() % groups.size()];
        if (!group.empty()) {
            q.emplace_back("groupBy", group);
        }
        q.emplace_back("limit", "100");
        std::ostringstream what;
        for (const auto& [k, v] : q) {
            what << k << "=" << v << "&";
        }
        SCOPED_TRACE(what.str());
        Json::Value b = get_list(w.base.shop, q);
        EXPECT_EQ(b["dateRange"]["startDate"].asString(), iso(from));
        EXPECT_EQ(b["dateRange"]["endDate"].asString(), iso(to));
        std::vector<const Survey*> rows = select(w, surveys, from, to, f);
        expect_window(b, rows, what.str());
        if (group == "day") {
            std::vector<std::pair<std::string, std::vector<const Survey*>>> days;
            for (Millis d = clock.start_of_day_of(from); d <= to; d = clock.next_day_start(d)) {
                days.push_back({clock.date_of(d), {}});
            }
            for (const Survey* s : rows) {
                for (auto& [key, in] : days) {
                    if (key == clock.date_of(s->created_at)) {
                        in.push_back(s);
                    }
                }
            }
            const Json::Value& g = b["stats"]["groups"];
            ASSERT_EQ(g.size(), days.size());
            for (unsigned i = 0; i < days.size(); ++i) {
                EXPECT_EQ(g[i]["key"].asString(), days[i].first);
                EXPECT_TRUE(it::csat::stats_are(g[i], counts_of(days[i].second)));
            }
        } else if (group == "channel" || group == "agent") {
            std::map<std::string, std::vector<const Survey*>> by;
            for (const Survey* s : rows) {
                const Conv& c = w.convs[s->conv];
                by[group == "channel" ? c.channel
                                      : (c.agent ? std::to_string(*c.agent) : std::string("null"))]
                    .push_back(s);
            }
            const Json::Value& g = b["stats"]["groups"];
            ASSERT_EQ(g.size(), by.size());
            for (const Json::Value& e : g) {
                std::string key = e["key"].isNull() ? "null" : e["key"].asString();
                ASSERT_TRUE(by.count(key)) << key;
                EXPECT_TRUE(it::csat::stats_are(e, counts_of(by[key])));
            }
            for (unsigned i = 1; i < g.size(); ++i) {
                EXPECT_GE(g[i - 1]["totalSurveys"].asInt64(), g[i]["totalSurveys"].asInt64());
            }
        }
    }
}

TEST(CsatAnalytics, BrandScopeFiltersAndGroups) {
    const int64_t brand = it::make_brand();
    World a = make_world(brand);
    World b = make_world(brand);
    World other = make_world();
    const Millis d = at("2026-06-01T08:00:00Z");
    std::vector<Survey> sa{{5, d, 0}, {4, d + kHour, 1}, {1, d + 2 * kHour, 2}};
    std::vector<Survey> sb{{2, d + 30 * kMinute, 0}, {5, d + 90 * kMinute, 4}};
    std::vector<Survey> so{{5, d, 0}};
    record(a, sa);
    record(b, sb);
    record(other, so);
    Json::Value r = get_list(a.base.shop, {{"scope", "brand"},
                                           {"startDate", "2026-06-01"},
                                           {"endDate", "2026-06-01"},
                                           {"groupBy", "channel"},
                                           {"tz", "Asia/Kolkata"}});
    EXPECT_EQ(r["scope"].asString(), "brand");
    EXPECT_EQ(r["total"].asInt64(), 5);
    const Json::Value& g = r["stats"]["groups"];
    ASSERT_EQ(g.size(), 3u) << it::to_json(r);
    EXPECT_EQ(g[0]["key"].asString(), "Chat");  // 2 each: key ascending
    EXPECT_TRUE(it::csat::stats_are(g[0], std::vector<int>{4, 1}));
    EXPECT_EQ(g[1]["key"].asString(), "Mail");
    EXPECT_TRUE(it::csat::stats_are(g[1], std::vector<int>{5, 2}));
    EXPECT_EQ(g[2]["key"].asString(), "Instagram");
    Json::Value m = get_list(a.base.shop, {{"scope", "brand"},
                                           {"startDate", "2026-06-01"},
                                           {"endDate", "2026-06-01"},
                                           {"mark", "5"}});
    EXPECT_EQ(m["total"].asInt64(), 2);
    ASSERT_EQ(m["surveys"].size(), 2u);
    EXPECT_EQ(m["surveys"][0]["id"].asInt64(), sb[1].id);
    EXPECT_EQ(m["surveys"][1]["id"].asInt64(), sa[0].id);
    // Export in brand scope: both shops, newest first.
    HttpResponse e = get_export(
        a.base.shop, {{"scope", "brand"}, {"startDate", "2026-06-01"}, {"endDate", "2026-06-01"}});
    ASSERT_EQ(e.status, 200) << e.describe();
    std::vector<std::string> lines = lines_of(e.body);
    ASSERT_EQ(lines.size(), 5u) << e.body;
    std::vector<int64_t> want{sa[2].id, sb[1].id, sa[1].id, sb[0].id, sa[0].id};
    for (size_t i = 0; i < lines.size(); ++i) {
        EXPECT_EQ(it::parse_json(lines[i])["id"].asInt64(), want[i]);
    }
}

// ---------------------------------------------------------------------------------------------
// Export.

TEST(CsatAnalytics, ExportNdjsonIsTheListShapeNewestFirst) {
    World w = make_world();
    const Millis d = at("2026-07-01T08:00:00Z");
    std::vector<Survey> surveys;
    for (int i = 0; i < 25; ++i) {
        surveys.push_back({1 + i % 5, d + (i % 4) * kHour, static_cast<size_t>(i % 5), 0,
                           i % 3 ? "" : "note " + std::to_string(i)});
    }
    record(w, surveys);
    const Query window{{"startDate", "2026-07-01"}, {"endDate", "2026-07-01"}};
    HttpResponse e = get_export(w.base.shop, window);
    ASSERT_EQ(e.status, 200) << e.describe();
    EXPECT_EQ(e.header("content-type").value_or(""), "application/x-ndjson");
    if (!through_openapi_proxy()) {
        EXPECT_FALSE(e.header("content-length")) << "a streamed body has no length";
    }
    EXPECT_FALSE(e.header("x-accel-buffering")) << "nginx consumes it";
    ASSERT_FALSE(e.body.empty());
    EXPECT_EQ(e.body.back(), '\n');
    std::vector<std::string> lines = lines_of(e.body);
    Query page = window;
    page.emplace_back("limit", "100");
    Json::Value list = get_list(w.base.shop, page);
    ASSERT_EQ(lines.size(), list["surveys"].size());
    for (size_t i = 0; i < lines.size(); ++i) {
        EXPECT_TRUE(it::is_strict_json(lines[i])) << lines[i];
        EXPECT_EQ(it::parse_json(lines[i]), list["surveys"][static_cast<unsigned>(i)]) << lines[i];
    }
    // Filters narrow it like the list.
    Query f = window;
    f.emplace_back("mark", "5");
    f.emplace_back("channel", "Chat");
    HttpResponse fe = get_export(w.base.shop, f);
    std::vector<const Survey*> rows =
        select(w, surveys, at("2026-07-01"), at("2026-07-01") + kDay - 1, {{5}, "Chat", {}, {}});
    std::vector<std::string> flines = lines_of(fe.body);
    ASSERT_EQ(flines.size(), rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(it::parse_json(flines[i])["id"].asInt64(), rows[i]->id);
    }
    // customerId (read through the customer's index) and a zone, as CSV.
    Query c = window;
    c.emplace_back("customerId", std::to_string(w.other_customer));
    c.emplace_back("tz", "Asia/Kolkata");
    HttpResponse ce = get_export(w.base.shop, c);
    ASSERT_EQ(ce.status, 200) << ce.describe();
    ZoneClock kolkata("Asia/Kolkata");
    const Millis kfrom = kolkata.day_start(2026, 7, 1), kto = kolkata.day_start(2026, 7, 2) - 1;
    Filter cf;
    cf.customer = w.other_customer;
    std::vector<const Survey*> crows = select(w, surveys, kfrom, kto, cf);
    std::vector<std::string> clines = lines_of(ce.body);
    ASSERT_EQ(clines.size(), crows.size());
    ASSERT_FALSE(crows.empty());
    for (size_t i = 0; i < crows.size(); ++i) {
        EXPECT_EQ(it::parse_json(clines[i])["id"].asInt64(), crows[i]->id);
    }
    // An empty window is an empty body.
    HttpResponse none =
        get_export(w.base.shop, {{"startDate", "2001-01-01"}, {"endDate", "2001-01-02"}});
    EXPECT_EQ(none.status, 200);
    EXPECT_EQ(none.body, "");
}

TEST(CsatAnalytics, ExportCsvQuotesAndDefusesFormulas) {
    World w = make_world();
    const Millis d = at("2026-07-02T08:00:00Z");
    std::vector<Survey> surveys{
        {5, d, 0, 0, "plain"},
        {4, d + kMinute, 1, 0, "with, comma"},
        {3, d + 2 * kMinute, 2, 0, "say \"hi\"\nnext line"},
        {2, d + 3 * kMinute, 3, 0, "=HYPERLINK(\"http://evil\",\"x\")"},
        {1, d + 4 * kMinute, 4, 0, "+33 1 23 45"},
        {1, d + 5 * kMinute, 4, 0, "-1"},
        {1, d + 6 * kMinute, 4, 0, "@SUM(A1)"},
        {1, d + 7 * kMinute, 4, 0, "\tlead tab"},
        {1, d + 8 * kMinute, 4, 0, "caf\xc3\xa9 ok"},
        {2, d + 9 * kMinute, 0, 0, ""},
    };
    record(w, surveys);
    HttpResponse e = get_export(
        w.base.shop, {{"startDate", "2026-07-02"}, {"endDate", "2026-07-02"}, {"format", "csv"}});
    ASSERT_EQ(e.status, 200) << e.describe();
    EXPECT_EQ(e.header("content-type").value_or(""), "text/csv; charset=utf-8");
    const std::string header =
        "id,createdAt,mark,comment,conversationId,messageId,customerId,customerEmail,"
        "customerName,channel,assignedTo,shopDomain\r\n";
    ASSERT_EQ(e.body.substr(0, header.size()), header);
    std::string want = header;
    const std::vector<std::string> comments{
        "",
        "caf\xc3\xa9 ok",
        "'\tlead tab",
        "'@SUM(A1)",
        "'-1",
        "'+33 1 23 45",
        "\"'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\"",
        "\"say \"\"hi\"\"\nnext line\"",
        "\"with, comma\"",
        "plain",
    };
    for (size_t i = 0; i < surveys.size(); ++i) {
        const Survey& s = surveys[surveys.size() - 1 - i];
        const Conv& c = w.convs[s.conv];
        const Json::Value customer = it::fetch_customer(w.base.shop, c.customer_id);
        want += std::to_string(s.id) + "," + iso(s.created_at) + "," + std::to_string(s.mark) +
                "," + comments[i] + "," + c.id + ",," + std::to_string(c.customer_id) + "," +
                customer["email"].asString() + "," +
                (customer["full_name"].isNull() ? "" : customer["full_name"].asString()) + "," +
                c.channel + "," + (c.agent ? std::to_string(*c.agent) : "") + "," +
                w.base.shop.domain + "\r\n";
    }
    EXPECT_EQ(e.body, want);
}

TEST(CsatAnalytics, ExportReadsInChunksAcrossEqualTimestamps) {
    // More rows than a chunk (500), many sharing one createdAt: the keyset (createdAt, id)
    // must neither skip nor repeat a row across chunk boundaries. Rows are planted in SQL (the
    // export reads surveys only), then the list is the reference.
    World w = make_world();
    it::tickets::SqlDb db;
    const std::string shop_id = std::to_string(w.base.shop.id);
    db.execute(
        "INSERT INTO surveys (shop_id, conversation_id, customer_id, mark, graph_nodes, node_ids, "
        "channel, assigned_to, created_at) SELECT ?, ?, ?, 1 + seq % 5, '{}', '[]', 'Mail', NULL, "
        "'2026-08-01 10:00:00' + INTERVAL (seq DIV 700) SECOND FROM seq_1_to_1300",
        {shop_id, w.convs[0].id, std::to_string(w.base.customer_id)});
    HttpResponse e =
        get_export(w.base.shop, {{"startDate", "2026-08-01"}, {"endDate", "2026-08-01"}});
    ASSERT_EQ(e.status, 200);
    std::vector<std::string> lines = lines_of(e.body);
    ASSERT_EQ(lines.size(), 1300u);
    std::set<int64_t> seen;
    int64_t prev_id = INT64_MAX;
    std::string prev_at = "9999";
    for (const std::string& line : lines) {
        Json::Value v = it::parse_json(line);
        const int64_t id = v["id"].asInt64();
        const std::string created = v["createdAt"].asString();
        EXPECT_TRUE(seen.insert(id).second) << "repeated " << id;
        EXPECT_TRUE(created < prev_at || (created == prev_at && id < prev_id)) << line;
        prev_at = created;
        prev_id = id;
    }
    const int64_t in_db = db.count(
        "SELECT COUNT(*) FROM surveys WHERE shop_id = ? AND created_at >= '2026-08-01' AND "
        "created_at < '2026-08-02'",
        {shop_id});
    EXPECT_EQ(in_db, 1300);
}

}  // namespace

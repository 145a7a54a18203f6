#include "csat_fixtures.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "tickets_fixtures.h"

namespace it::csat {

// ---------------------------------------------------------------------------------------------
// Time.

namespace {

// Floor division and the matching non-negative remainder.
Millis floor_div(Millis a, Millis b) {
    Millis q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// Broken-down UTC time of t; `millis` gets the millisecond part.
std::tm utc_parts(Millis t, int& millis) {
    const Millis secs = floor_div(t, kSecond);
    millis = static_cast<int>(t - secs * kSecond);
    const auto tt = static_cast<time_t>(secs);
    std::tm tm{};
    if (gmtime_r(&tt, &tm) == nullptr) {
        throw std::runtime_error("gmtime_r failed for " + std::to_string(t));
    }
    return tm;
}

std::string format_parts(Millis t, char separator) {
    int ms = 0;
    const std::tm tm = utc_parts(t, ms);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d%c%02d:%02d:%02d.%03d", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, separator, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
    return buf;
}

}  // namespace

Millis now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

Millis start_of_day(Millis t) {
    return floor_div(t, kDay) * kDay;
}

Millis end_of_day(Millis t) {
    return start_of_day(t) + kDay - 1;
}

std::string iso(Millis t) {
    return format_parts(t, 'T') + "Z";
}

std::string date_of(Millis t) {
    return format_parts(t, 'T').substr(0, 10);
}

std::string db_time(Millis t) {
    return format_parts(t, ' ');
}

std::string iso_with_offset(Millis t, int offset_minutes) {
    const int magnitude = std::abs(offset_minutes);
    char zone[16];
    std::snprintf(zone, sizeof zone, "%c%02d:%02d", offset_minutes < 0 ? '-' : '+', magnitude / 60,
                  magnitude % 60);
    return format_parts(t + offset_minutes * kMinute, 'T') + zone;
}

namespace {

// "YYYY-MM-DDTHH:MM:SS.mmmZ" exactly, for any year DATETIME(3) holds (the harness's
// parse_utc_millis goes through system_clock, whose nanoseconds overflow before year 1678).
bool is_utc_millis(const std::string& text) {
    if (text.size() != 24) {
        return false;
    }
    try {
        at(text);
        return true;
    } catch (const std::runtime_error&) {
        return false;
    }
}

}  // namespace

Millis at(const std::string& text) {
    std::string full = text;
    if (text.size() == 10) {
        full += "T00:00:00.000Z";
    } else if (text.size() == 20 && text.back() == 'Z') {
        full.insert(19, ".000");
    }
    // Own parsing rather than parse_utc_millis: system_clock counts nanoseconds and cannot hold
    // the years 1000 or 9999 that DATETIME(3) can.
    std::tm tm{};
    int ms = 0;
    char zulu = 0;
    const int n =
        std::sscanf(full.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3d%c", &tm.tm_year, &tm.tm_mon,
                    &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms, &zulu);
    Millis t = 0;
    if (n == 8 && zulu == 'Z') {
        tm.tm_year -= 1900;
        tm.tm_mon -= 1;
        t = static_cast<Millis>(timegm(&tm)) * kSecond + ms;
    }
    // Round trip: rejects out-of-range fields that timegm would silently normalize.
    if (n != 8 || zulu != 'Z' || iso(t) != full) {
        throw std::runtime_error("not a date or YYYY-MM-DDTHH:MM:SS.mmmZ: \"" + text + "\"");
    }
    return t;
}

Today pin_today(const Shop& shop) {
    const Millis now = now_ms();
    const Millis time_of_day = now - start_of_day(now);
    if (time_of_day >= kDay - 2 * kMinute || time_of_day < kMinute) {
        const Millis midnight =
            time_of_day < kMinute ? start_of_day(now) : start_of_day(now) + kDay;
        const Millis wait = midnight + kMinute + kSecond - now;  // at most ~3 minutes
        std::this_thread::sleep_for(std::chrono::milliseconds(wait));
    }
    Today today;
    today.midnight = start_of_day(now_ms());
    const Json::Value body = list(shop);
    const std::string want_start = iso(today.midnight - 7 * kDay);
    const std::string want_end = iso(today.midnight + kDay - 1);
    if (body["dateRange"]["startDate"].asString() != want_start ||
        body["dateRange"]["endDate"].asString() != want_end) {
        throw std::runtime_error("the server's default window " + to_json(body["dateRange"]) +
                                 " is not [" + want_start + ", " + want_end +
                                 "] of the local clock's day");
    }
    return today;
}

::testing::AssertionResult still_today(const Today& today) {
    const Millis midnight = start_of_day(now_ms());
    if (midnight != today.midnight) {
        return ::testing::AssertionFailure()
               << "the UTC day changed during the test (pinned " << date_of(today.midnight)
               << ", now " << date_of(midnight) << ")";
    }
    return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------------
// Query strings.

std::string encode(const std::string& text) {
    static const char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_' || c == '.' || c == '~') {
            out += ch;
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

std::string csat_path(const Query& query) {
    std::string path = kCsatPath;
    char separator = '?';
    for (const auto& [name, value] : query) {
        path += separator;
        path += encode(name) + "=" + encode(value);
        separator = '&';
    }
    return path;
}

// ---------------------------------------------------------------------------------------------
// Test data.

CsatShop make_csat_shop(std::optional<int64_t> brand_id) {
    CsatShop s;
    s.shop = make_shop(brand_id);
    const std::string suffix = unique_suffix();
    const Json::Value created =
        create_customer(s.shop, object({{"email", unique_email("cs")},
                                        {"phone_number", "+1-555-" + suffix},
                                        {"first_name", "Ann"},
                                        {"last_name", "Lee"}}));
    s.customer_id = created["id"].asInt64();
    s.customer = fetch_customer(s.shop, s.customer_id);
    tickets::World w;
    w.shop = s.shop;
    w.customer = s.customer;
    w.customer_id = s.customer_id;
    s.conversation_id = tickets::create_ticket_id(w);
    return s;
}

HttpResponse post_survey(const Shop& shop, const Json::Value& body) {
    return post_json(kCsatPath, shop, body);
}

Json::Value add_survey(const CsatShop& s, int mark, Millis created_at, const Json::Value& extra) {
    Json::Value body = object(
        {{"conversationId", s.conversation_id}, {"mark", mark}, {"createdAt", iso(created_at)}});
    if (extra.isObject()) {
        for (const std::string& name : extra.getMemberNames()) {
            body[name] = extra[name];
        }
    }
    const HttpResponse r = post_survey(s.shop, body);
    if (r.status != 201 || !r.json().isObject() || !r.json()["survey"].isObject() ||
        !is_json_integer(r.json()["survey"]["id"])) {
        throw std::runtime_error("recording a survey failed: " + r.describe());
    }
    return r.json()["survey"];
}

int64_t add_survey_id(const CsatShop& s, int mark, Millis created_at) {
    return add_survey(s, mark, created_at)["id"].asInt64();
}

HttpResponse get_csat(const Shop& shop, const Query& query) {
    return get(csat_path(query), shop);
}

Json::Value list(const Shop& shop, const Query& query) {
    const HttpResponse r = get_csat(shop, query);
    const ::testing::AssertionResult shape = is_csat_list(r);
    if (!shape) {
        throw std::runtime_error(std::string("listing surveys failed: ") + shape.message());
    }
    return r.json();
}

std::vector<int64_t> ids_of(const Json::Value& body) {
    std::vector<int64_t> ids;
    for (const Json::Value& s : body["surveys"]) {
        ids.push_back(s["id"].asInt64());
    }
    return ids;
}

void record(const CsatShop& s, std::vector<Planned>& surveys) {
    for (Planned& p : surveys) {
        const Json::Value v = add_survey(s, p.mark, p.created_at);
        if (v["createdAt"].asString() != iso(p.created_at)) {
            throw std::runtime_error("survey recorded with createdAt " + to_json(v["createdAt"]) +
                                     ", asked for " + iso(p.created_at));
        }
        p.id = v["id"].asInt64();
    }
}

std::vector<int64_t> expected_ids(const std::vector<Planned>& surveys, Millis from, Millis to) {
    std::vector<Planned> in;
    for (const Planned& p : surveys) {
        if (p.created_at >= from && p.created_at <= to) {
            in.push_back(p);
        }
    }
    std::sort(in.begin(), in.end(), [](const Planned& a, const Planned& b) {
        return a.created_at != b.created_at ? a.created_at > b.created_at : a.id > b.id;
    });
    std::vector<int64_t> ids;
    for (const Planned& p : in) {
        ids.push_back(p.id);
    }
    return ids;
}

std::vector<int> marks_in(const std::vector<Planned>& surveys, Millis from, Millis to) {
    std::vector<int> marks;
    for (const Planned& p : surveys) {
        if (p.created_at >= from && p.created_at <= to) {
            marks.push_back(p.mark);
        }
    }
    return marks;
}

// ---------------------------------------------------------------------------------------------
// Assertions.

namespace {

bool is_number(const Json::Value& v) {
    return v.isNumeric() && !v.isBool();
}

bool is_string_or_null(const Json::Value& v) {
    return v.isString() || v.isNull();
}

::testing::AssertionResult names_are(const Json::Value& v, std::vector<std::string> want,
                                     const char* what) {
    std::sort(want.begin(), want.end());
    if (!v.isObject()) {
        return ::testing::AssertionFailure() << what << " is not an object: " << to_json(v);
    }
    const std::vector<std::string> got = member_names(v);
    if (got != want) {
        std::string g, w;
        for (const std::string& n : got) {
            g += (g.empty() ? "" : ",") + n;
        }
        for (const std::string& n : want) {
            w += (w.empty() ? "" : ",") + n;
        }
        return ::testing::AssertionFailure()
               << what << " has members [" << g << "], want [" << w << "]: " << to_json(v);
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult stats_shape(const Json::Value& stats) {
    // E4: satisfiedCount always; groups with groupBy (checked by the E4 tests).
    std::vector<std::string> names{"totalSurveys", "averageRating", "satisfactionRate",
                                   "satisfiedCount", "ratingDistribution"};
    if (stats.isObject() && stats.isMember("groups")) {
        names.push_back("groups");
    }
    if (stats.isObject() && stats.isMember("key")) {  // an entry of stats.groups
        names.insert(names.begin(), "key");
    }
    auto ok = names_are(stats, names, "stats");
    if (!ok) {
        return ok;
    }
    if (!is_json_integer(stats["totalSurveys"]) || stats["totalSurveys"].asInt64() < 0 ||
        !is_json_integer(stats["satisfiedCount"]) || !is_number(stats["averageRating"]) ||
        !is_number(stats["satisfactionRate"])) {
        return ::testing::AssertionFailure() << "stats has ill-typed values: " << to_json(stats);
    }
    const Json::Value& dist = stats["ratingDistribution"];
    ok = names_are(dist, {"1", "2", "3", "4", "5"}, "ratingDistribution");
    if (!ok) {
        return ok;
    }
    int64_t sum = 0;
    for (const char* key : {"1", "2", "3", "4", "5"}) {
        if (!is_json_integer(dist[key]) || dist[key].asInt64() < 0) {
            return ::testing::AssertionFailure()
                   << "ratingDistribution[" << key << "] is not a count: " << to_json(dist);
        }
        sum += dist[key].asInt64();
    }
    if (sum != stats["totalSurveys"].asInt64()) {
        return ::testing::AssertionFailure()
               << "ratingDistribution sums to " << sum << ", not totalSurveys: " << to_json(stats);
    }
    return ::testing::AssertionSuccess();
}

}  // namespace

::testing::AssertionResult is_survey_shape(const Json::Value& s) {
    auto ok = names_are(s,
                        {"id", "mark", "comment", "graphNodes", "nodeIds", "messageId", "createdAt",
                         "shopDomain", "conversationId", "customer"},
                        "survey");
    if (!ok) {
        return ok;
    }
    if (!is_json_integer(s["id"]) || s["id"].asInt64() <= 0) {
        return ::testing::AssertionFailure()
               << "survey id is not a positive integer: " << to_json(s);
    }
    if (!is_json_integer(s["mark"]) || s["mark"].asInt64() < 1 || s["mark"].asInt64() > 5) {
        return ::testing::AssertionFailure() << "survey mark is not 1..5: " << to_json(s);
    }
    if (!is_string_or_null(s["comment"]) || !s["graphNodes"].isObject() ||
        !s["nodeIds"].isArray() || !(is_json_integer(s["messageId"]) || s["messageId"].isNull()) ||
        !s["shopDomain"].isString()) {
        return ::testing::AssertionFailure() << "survey has ill-typed values: " << to_json(s);
    }
    if (!s["createdAt"].isString() || !is_utc_millis(s["createdAt"].asString())) {
        return ::testing::AssertionFailure()
               << "survey createdAt is not YYYY-MM-DDTHH:MM:SS.mmmZ: " << to_json(s);
    }
    ok = tickets::is_id_string(s["conversationId"]);
    if (!ok) {
        return ok << " (conversationId of " << to_json(s) << ")";
    }
    const Json::Value& c = s["customer"];
    ok = names_are(c, {"id", "email", "name", "phone"}, "survey customer");
    if (!ok) {
        return ok;
    }
    if (!is_json_integer(c["id"]) || !is_string_or_null(c["email"]) ||
        !is_string_or_null(c["name"]) || !is_string_or_null(c["phone"])) {
        return ::testing::AssertionFailure()
               << "survey customer has ill-typed values: " << to_json(c);
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult is_csat_list(const HttpResponse& r) {
    auto ok = is_success(r, 200);
    if (!ok) {
        return ok;
    }
    const Json::Value& b = r.json();
    ok = names_are(b, {"success", "surveys", "total", "stats", "scope", "dateRange", "pagination"},
                   "list body");
    if (!ok) {
        return ok << "\n  response: " << r.describe();
    }
    if (!b["surveys"].isArray() || !is_json_integer(b["total"]) ||
        !(b["scope"] == Json::Value("shop") || b["scope"] == Json::Value("brand"))) {
        return ::testing::AssertionFailure() << "ill-typed list body: " << r.describe();
    }
    ok = stats_shape(b["stats"]);
    if (!ok) {
        return ok;
    }
    if (b["total"].asInt64() != b["stats"]["totalSurveys"].asInt64()) {
        return ::testing::AssertionFailure() << "total != stats.totalSurveys: " << r.describe();
    }
    ok = names_are(b["dateRange"], {"startDate", "endDate", "timezone"}, "dateRange");
    if (!ok) {
        return ok;
    }
    for (const char* edge : {"startDate", "endDate"}) {
        const Json::Value& v = b["dateRange"][edge];
        if (!v.isString() || !is_utc_millis(v.asString())) {
            return ::testing::AssertionFailure()
                   << "dateRange." << edge << " is not YYYY-MM-DDTHH:MM:SS.mmmZ: " << to_json(v);
        }
    }
    ok = names_are(b["pagination"], {"page", "limit"}, "pagination");
    if (!ok) {
        return ok;
    }
    if (!is_json_integer(b["pagination"]["page"]) || !is_json_integer(b["pagination"]["limit"])) {
        return ::testing::AssertionFailure() << "ill-typed pagination: " << r.describe();
    }
    if (b["surveys"].size() > b["pagination"]["limit"].asLargestUInt()) {
        return ::testing::AssertionFailure() << "more surveys than the limit: " << r.describe();
    }
    const Json::Value* previous = nullptr;
    for (const Json::Value& s : b["surveys"]) {
        ok = is_survey_shape(s);
        if (!ok) {
            return ok;
        }
        if (previous != nullptr) {
            const std::string& pc = (*previous)["createdAt"].asString();
            const std::string& sc = s["createdAt"].asString();
            const bool ordered =
                pc > sc || (pc == sc && (*previous)["id"].asInt64() > s["id"].asInt64());
            if (!ordered) {
                return ::testing::AssertionFailure()
                       << "surveys not ordered by createdAt desc, id desc: " << to_json(*previous)
                       << " before " << to_json(s);
            }
        }
        previous = &s;
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult window_is(const Json::Value& body, const std::vector<Planned>& surveys,
                                     Millis from, Millis to) {
    const std::vector<int64_t> want = expected_ids(surveys, from, to);
    const std::vector<int64_t> got = ids_of(body);
    if (got != want) {
        std::string g, w;
        for (const int64_t id : got) {
            g += (g.empty() ? "" : ",") + std::to_string(id);
        }
        for (const int64_t id : want) {
            w += (w.empty() ? "" : ",") + std::to_string(id);
        }
        return ::testing::AssertionFailure()
               << "window [" << iso(from) << ", " << iso(to) << "] lists ids [" << g << "], want ["
               << w << "]\n  body: " << to_json(body);
    }
    if (body["total"].asInt64() != static_cast<int64_t>(want.size())) {
        return ::testing::AssertionFailure()
               << "total is " << to_json(body["total"]) << ", want " << want.size();
    }
    auto ok = stats_are(body["stats"], marks_in(surveys, from, to));
    if (!ok) {
        return ok << "\n  window [" << iso(from) << ", " << iso(to) << "]";
    }
    if (body["dateRange"]["startDate"].asString() != iso(from) ||
        body["dateRange"]["endDate"].asString() != iso(to)) {
        return ::testing::AssertionFailure() << "dateRange is " << to_json(body["dateRange"])
                                             << ", want [" << iso(from) << ", " << iso(to) << "]";
    }
    return ::testing::AssertionSuccess();
}

double round2(int64_t numerator, int64_t denominator) {
    if (denominator == 0) {
        return 0;
    }
    const int64_t hundredths = (numerator * 100 * 2 + denominator) / (denominator * 2);
    return static_cast<double>(hundredths) / 100.0;
}

MarkCounts count_marks(const std::vector<int>& marks) {
    MarkCounts counts{};
    for (const int m : marks) {
        if (m < 1 || m > 5) {
            throw std::runtime_error("mark out of 1..5: " + std::to_string(m));
        }
        ++counts[static_cast<size_t>(m)];
    }
    return counts;
}

::testing::AssertionResult stats_are(const Json::Value& stats, const MarkCounts& counts) {
    auto ok = stats_shape(stats);
    if (!ok) {
        return ok;
    }
    int64_t total = 0;
    int64_t sum = 0;
    for (int m = 1; m <= 5; ++m) {
        total += counts[static_cast<size_t>(m)];
        sum += m * counts[static_cast<size_t>(m)];
    }
    const int64_t satisfied = counts[4] + counts[5];
    Json::Value want(Json::objectValue);
    want["totalSurveys"] = Json::Int64(total);
    want["averageRating"] = round2(sum, total);
    want["satisfactionRate"] = round2(satisfied * 100, total);
    for (int m = 1; m <= 5; ++m) {
        want["ratingDistribution"][std::to_string(m)] = Json::Int64(counts[static_cast<size_t>(m)]);
    }
    want["satisfiedCount"] = Json::Int64(satisfied);
    bool same = stats["totalSurveys"].asInt64() == total &&
                stats["satisfiedCount"].asInt64() == satisfied &&
                stats["averageRating"].asDouble() == want["averageRating"].asDouble() &&
                stats["satisfactionRate"].asDouble() == want["satisfactionRate"].asDouble();
    for (int m = 1; m <= 5; ++m) {
        const std::string key = std::to_string(m);
        same = same && stats["ratingDistribution"][key].asInt64() ==
                           want["ratingDistribution"][key].asInt64();
    }
    if (!same) {
        return ::testing::AssertionFailure()
               << "stats " << to_json(stats) << "\n  want  " << to_json(want);
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult stats_are(const Json::Value& stats, const std::vector<int>& marks) {
    return stats_are(stats, count_marks(marks));
}

}  // namespace it::csat

#include "api/csat_query.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "common/text.h"

namespace supportcrm {
namespace {

using timeutil::kMillisPerDay;

bool parse_date_param(const QueryParams& q, const char* name, timeutil::ParsedInstant& out) {
    std::optional<std::string> v = q.get(name);
    if (!v) {
        return true;
    }
    auto parsed = timeutil::parse_iso8601(*v);
    if (!parsed) {
        return false;
    }
    out = *parsed;
    return true;
}

// "1,4,5": each item one mark 1..5; nullopt for anything else (empty items included).
std::optional<unsigned> parse_marks(std::string_view text) {
    unsigned marks = 0;
    std::size_t from = 0;
    while (true) {
        std::size_t comma = text.find(',', from);
        std::string_view item =
            text.substr(from, comma == std::string_view::npos ? comma : comma - from);
        if (item.size() != 1 || item[0] < '1' || item[0] > '5') {
            return std::nullopt;
        }
        marks |= 1u << (item[0] - '0');
        if (comma == std::string_view::npos) {
            return marks;
        }
        from = comma + 1;
    }
}

// A row id: digits, at least 1 (ids start at 1); beyond 64 bits it matches nothing but is
// still an id.
std::optional<std::uint64_t> parse_id(const std::string& text) {
    if (!text::is_digits(text)) {
        return std::nullopt;
    }
    std::uint64_t id = text::parse_u64(text).value_or(UINT64_MAX);
    return id == 0 ? std::nullopt : std::optional<std::uint64_t>(id);
}

// E4's parameters, in its table's order; the message of the first invalid one, or empty.
std::string parse_e4(const QueryParams& q, CsatParams& p, CsatEndpoint endpoint) {
    if (auto mark = q.get("mark")) {
        auto marks = parse_marks(*mark);
        if (!marks) {
            return "Invalid mark";
        }
        p.filters.marks = *marks;
    }
    p.filters.channel = q.get("channel");
    if (auto agent = q.get("assignedTo")) {
        if (!(p.filters.assigned_to = parse_id(*agent))) {
            return "Invalid assignedTo";
        }
    }
    if (auto customer = q.get("customerId")) {
        if (!(p.filters.customer_id = parse_id(*customer))) {
            return "Invalid customerId";
        }
    }
    if (auto name = q.get("tz")) {
        if (!(p.zone = tz::find_zone(*name))) {
            return "Invalid tz";
        }
        p.tz_name = *name;
    }
    if (auto group = q.get("groupBy")) {
        static const std::pair<const char*, CsatGroupBy> kGroups[] = {
            {"day", CsatGroupBy::day},
            {"channel", CsatGroupBy::channel},
            {"agent", CsatGroupBy::agent},
            {"mark", CsatGroupBy::mark}};
        auto it = std::find_if(std::begin(kGroups), std::end(kGroups),
                               [&](const auto& g) { return *group == g.first; });
        if (it == std::end(kGroups)) {
            return "Invalid groupBy";
        }
        p.group_by = it->second;
    }
    if (endpoint == CsatEndpoint::export_) {
        if (auto format = q.get("format")) {
            if (*format != "ndjson" && *format != "csv") {
                return "Invalid format";
            }
            p.format = *format == "csv" ? CsatFormat::csv : CsatFormat::ndjson;
        }
    }
    return {};
}

// The window in the zone's days: a bare date is the zone's day, a datetime its instant; the
// end is the last millisecond of its day in the zone.
void zone_window(const tz::Zone& zone, const timeutil::ParsedInstant* start,
                 const timeutil::ParsedInstant* end, timeutil::Millis now, CsatParams& p) {
    auto day_of_date = [](timeutil::Millis utc_midnight) {
        return utc_midnight / kMillisPerDay;  // a bare date parses to its UTC midnight
    };
    std::int64_t today = zone.local_day(now);
    if (!start) {
        p.start = zone.day_start(today - 7);
    } else {
        p.start = start->date_only ? zone.day_start(day_of_date(start->ms)) : start->ms;
    }
    std::int64_t end_day = !end             ? today
                           : end->date_only ? day_of_date(end->ms)
                                            : zone.local_day(end->ms);
    p.end = zone.day_start(end_day + 1) - 1;
}

}  // namespace

CsatParse parse_csat_query(const QueryParams& q, timeutil::Millis now, CsatEndpoint endpoint) {
    CsatParse out;
    CsatParams& p = out.params;
    if (endpoint == CsatEndpoint::export_) {
        // page and limit are not the export's parameters: whatever they say is ignored.
    } else if (auto page = q.get("page")) {
        if (!text::is_digits(*page)) {
            out.error = "Invalid page";
            return out;
        }
        p.page = text::parse_u64(*page).value_or(UINT64_MAX);
    }
    if (endpoint == CsatEndpoint::export_) {
    } else if (auto limit = q.get("limit")) {
        std::uint64_t n =
            text::is_digits(*limit) ? text::parse_u64(*limit).value_or(UINT64_MAX) : 0;
        if (n == 0) {
            out.error = "Invalid limit";
            return out;
        }
        p.limit = std::min(n, kCsatMaxLimit);
    }
    if (auto scope = q.get("scope")) {
        if (*scope != "shop" && *scope != "brand") {
            out.error = "Invalid scope";
            return out;
        }
        p.brand = *scope == "brand";
    }
    timeutil::Millis today = timeutil::start_of_utc_day(now);
    timeutil::ParsedInstant start{today - 7 * kMillisPerDay, true};
    timeutil::ParsedInstant end{now, false};
    if (!parse_date_param(q, "startDate", start)) {
        out.error = "Invalid startDate";
        return out;
    }
    if (!parse_date_param(q, "endDate", end)) {
        out.error = "Invalid endDate";
        return out;
    }
    p.start = start.ms;
    p.end = timeutil::start_of_utc_day(end.ms) + kMillisPerDay - 1;
    out.error = parse_e4(q, p, endpoint);
    if (!out.error.empty()) {
        return out;
    }
    if (p.zone) {
        zone_window(*p.zone, q.get("startDate") ? &start : nullptr,
                    q.get("endDate") ? &end : nullptr, now, p);
    }
    if (p.start > p.end) {
        out.error = "startDate must not be after endDate";
    } else if (p.group_by == CsatGroupBy::day && csat_window_days(p) > kCsatMaxGroupDays) {
        out.error = "Invalid groupBy";
    }
    return out;
}

const tz::Zone& csat_zone(const CsatParams& p) {
    static const tz::Zone utc;  // no transitions: offset 0 at every instant
    return p.zone ? *p.zone : utc;
}

std::int64_t csat_window_days(const CsatParams& p) {
    const tz::Zone& zone = csat_zone(p);
    return zone.local_day(p.end) - zone.local_day(p.start) + 1;
}

std::vector<WindowPart> csat_window_parts(const CsatParams& p) {
    if (p.group_by != CsatGroupBy::day) {
        return {WindowPart{p.start, p.end, 0}};
    }
    const tz::Zone& zone = csat_zone(p);
    std::vector<WindowPart> parts;
    const std::int64_t first = zone.local_day(p.start), last = zone.local_day(p.end);
    for (std::int64_t day = first; day <= last; ++day) {
        WindowPart part;
        part.start = std::max(p.start, zone.day_start(day));
        part.end = std::min(p.end, zone.day_start(day + 1) - 1);
        part.tag = static_cast<std::uint32_t>(day - first);
        parts.push_back(part);
    }
    return parts;
}

double round2_ratio(std::uint64_t numerator, std::uint64_t denominator, std::uint64_t scale) {
    if (denominator == 0) {
        return 0;
    }
    // hundredths = round_half_up(numerator * scale * 100 / denominator)
    unsigned __int128 scaled =
        static_cast<unsigned __int128>(numerator) * scale * 100 * 2 + denominator;
    auto hundredths =
        static_cast<std::uint64_t>(scaled / (static_cast<unsigned __int128>(denominator) * 2));
    return static_cast<double>(hundredths) / 100.0;
}

CsatStats csat_stats(const std::array<std::uint64_t, 6>& by_mark) {
    CsatStats s;
    std::uint64_t sum = 0;
    std::uint64_t satisfied = 0;
    for (std::uint64_t mark = 1; mark <= 5; ++mark) {
        s.total += by_mark[mark];
        sum += by_mark[mark] * mark;
        if (mark >= 4) {
            satisfied += by_mark[mark];
        }
    }
    s.satisfied = satisfied;
    s.average_rating = round2_ratio(sum, s.total, 1);
    s.satisfaction_rate = round2_ratio(satisfied, s.total, 100);
    return s;
}

}  // namespace supportcrm

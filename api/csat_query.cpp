#include "api/csat_query.h"

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

}  // namespace

CsatParse parse_csat_query(const QueryParams& q, timeutil::Millis now) {
    CsatParse out;
    CsatParams& p = out.params;
    if (auto page = q.get("page")) {
        if (!text::is_digits(*page)) {
            out.error = "Invalid page";
            return out;
        }
        p.page = text::parse_u64(*page).value_or(UINT64_MAX);
    }
    if (auto limit = q.get("limit")) {
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
    if (p.start > p.end) {
        out.error = "startDate must not be after endDate";
    }
    return out;
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
    s.average_rating = round2_ratio(sum, s.total, 1);
    s.satisfaction_rate = round2_ratio(satisfied, s.total, 100);
    return s;
}

}  // namespace supportcrm

// GET /api/v1/csat's query rules (contract §5 "CSAT") and statistics arithmetic, kept apart
// from I/O so they can be tested on their own.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "api/query.h"
#include "common/time_util.h"
#include "common/time_zone.h"
#include "db/survey_repo.h"

namespace supportcrm {

constexpr std::uint64_t kCsatDefaultLimit = 10;
constexpr std::uint64_t kCsatMaxLimit = 100;

// extensions.md §E4's filters (db/survey_repo.h's SurveyFilter).
constexpr unsigned kAllMarks = kAllSurveyMarks;
using CsatFilters = SurveyFilter;

enum class CsatGroupBy { none, day, channel, agent, mark };

enum class CsatFormat { ndjson, csv };

struct CsatParams {
    std::uint64_t page = 0;
    std::uint64_t limit = kCsatDefaultLimit;
    bool brand = false;          // scope=brand was asked for
    timeutil::Millis start = 0;  // inclusive
    timeutil::Millis end = 0;    // inclusive: the last millisecond of its day in the zone
    // E4. zone is nullptr when no tz was given: v1's UTC days, computed as v1 does.
    CsatFilters filters;
    const tz::Zone* zone = nullptr;
    std::string tz_name = "UTC";
    CsatGroupBy group_by = CsatGroupBy::none;
    CsatFormat format = CsatFormat::ndjson;  // the export's
    // Whether v1's statements answer: no E4 parameter beyond tz=UTC's equivalent "no tz".
    bool v1_answerable() const {
        return !filters.any() && zone == nullptr && group_by == CsatGroupBy::none;
    }
};

struct CsatParse {
    CsatParams params;
    std::string error;  // the invalid_query message; empty when valid
};

// Defaults: page 0, limit 10 (over 100 becomes 100), scope shop, startDate 00:00 UTC seven days
// before today, endDate today; a bare startDate is that day's start; endDate is moved to the
// end of its UTC day. With tz (E4), "day" is that zone's day. Order of checks: v1's (page,
// limit, scope, startDate, endDate), then E4's in its table's order (mark, assignedTo,
// customerId, tz, groupBy), then format (the export's), then startDate after endDate (which
// needs the zone).
enum class CsatEndpoint { list, export_ };
CsatParse parse_csat_query(const QueryParams& query, timeutil::Millis now,
                           CsatEndpoint endpoint = CsatEndpoint::list);

// E4: the zone of the params (UTC when none was given).
const tz::Zone& csat_zone(const CsatParams& p);

// The most days groupBy=day answers for: one group per day, so a window of centuries would
// be an answer of hundreds of megabytes. Beyond it: 400 "Invalid groupBy".
constexpr std::int64_t kCsatMaxGroupDays = 3660;

// The window as parts to count: one per day of the zone (tag = the day's index from the first,
// the first and last clipped to the window) with groupBy=day, else the whole window (tag 0).
std::vector<WindowPart> csat_window_parts(const CsatParams& p);

// The number of zone days the window touches.
std::int64_t csat_window_days(const CsatParams& p);

struct CsatStats {
    std::uint64_t total = 0;
    std::uint64_t satisfied = 0;   // marks >= 4
    double average_rating = 0;     // 2 decimals, half up
    double satisfaction_rate = 0;  // percentage of marks >= 4, 2 decimals, half up
};

CsatStats csat_stats(const std::array<std::uint64_t, 6>& by_mark);

// numerator / denominator * scale, rounded half up to 2 decimals, in exact integer arithmetic
// (no 4.335 becoming 4.33 through binary floating point).
double round2_ratio(std::uint64_t numerator, std::uint64_t denominator, std::uint64_t scale);

}  // namespace supportcrm

// GET /api/v1/csat's query rules (contract §5 "CSAT") and statistics arithmetic, kept apart
// from I/O so they can be tested on their own.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "api/query.h"
#include "common/time_util.h"

namespace supportcrm {

constexpr std::uint64_t kCsatDefaultLimit = 10;
constexpr std::uint64_t kCsatMaxLimit = 100;

struct CsatParams {
    std::uint64_t page = 0;
    std::uint64_t limit = kCsatDefaultLimit;
    bool brand = false;          // scope=brand was asked for
    timeutil::Millis start = 0;  // inclusive
    timeutil::Millis end = 0;    // inclusive: 23:59:59.999 UTC of its day
};

struct CsatParse {
    CsatParams params;
    std::string error;  // the invalid_query message; empty when valid
};

// Defaults: page 0, limit 10 (over 100 becomes 100), scope shop, startDate 00:00 UTC seven days
// before today, endDate today; a bare startDate is that day's start; endDate is moved to the
// end of its UTC day.
CsatParse parse_csat_query(const QueryParams& query, timeutil::Millis now);

struct CsatStats {
    std::uint64_t total = 0;
    double average_rating = 0;     // 2 decimals, half up
    double satisfaction_rate = 0;  // percentage of marks >= 4, 2 decimals, half up
};

CsatStats csat_stats(const std::array<std::uint64_t, 6>& by_mark);

// numerator / denominator * scale, rounded half up to 2 decimals, in exact integer arithmetic
// (no 4.335 becoming 4.33 through binary floating point).
double round2_ratio(std::uint64_t numerator, std::uint64_t denominator, std::uint64_t scale);

}  // namespace supportcrm

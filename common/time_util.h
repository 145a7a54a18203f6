// Instants are int64 milliseconds since the Unix epoch, UTC throughout: the database stores
// DATETIME(3) in UTC (the session time zone is +00:00), JSON carries ISO 8601 with a Z.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace supportcrm::timeutil {

using Millis = std::int64_t;
constexpr Millis kMillisPerDay = 86'400'000;

Millis now_ms();

struct ParsedInstant {
    Millis ms;
    bool date_only;  // the input was a bare YYYY-MM-DD (midnight UTC)
};

// Accepts RFC 3339 / ISO 8601 with Z or an offset ("2026-01-02T03:04:05.678+02:00", seconds
// and fraction optional), or a bare date. A datetime without zone is rejected: its instant
// would be a guess.
std::optional<ParsedInstant> parse_iso8601(std::string_view s);

// "2026-11-22T01:25:52.123Z"
std::string format_iso(Millis ms);

// "2026-11-22 01:25:52.123", the literal a DATETIME(3) column takes.
std::string format_db(Millis ms);

Millis start_of_utc_day(Millis ms);

// Days since 1970-01-01 of a proleptic Gregorian date, and back.
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d);
void civil_from_days(std::int64_t z, int& y, unsigned& m, unsigned& d);

}  // namespace supportcrm::timeutil

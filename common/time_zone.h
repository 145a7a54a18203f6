// IANA time zones for CSAT's days (extensions.md §E4 `tz`), read from the system's tz database.
//
// GCC 12's libstdc++ has no C++20 time-zone database (std::chrono::locate_zone arrives in GCC
// 13), and the C library's localtime_r answers for the one zone of the TZ variable, a process
// global that would have to be switched (and its file re-read) per request. So a zone's TZif
// file (RFC 8536) is parsed once per process, the first time a request names it, and kept:
// after that an offset is a binary search over its transitions.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/time_util.h"

namespace supportcrm::tz {

// The DST rule of a TZif footer ("CET-1CEST,M3.5.0,M10.5.0/3"): offsets in seconds east of
// UTC; a rule day is "Mm.w.d" (day d of week w of month m, w = 5 the last) at `time` seconds
// local time.
struct RuleDay {
    unsigned month = 0, week = 0, weekday = 0;
    std::int32_t time = 7200;
};
struct PosixRule {
    std::int32_t std_offset = 0;
    bool has_dst = false;
    std::int32_t dst_offset = 0;
    RuleDay start, end;
};

// Parses a footer; nullopt for forms this does not know (Jn, n day forms), which the caller
// treats as "the last transition's offset holds".
std::optional<PosixRule> parse_posix_rule(std::string_view text);

class Zone {
  public:
    Zone() = default;
    Zone(std::vector<std::int64_t> transitions, std::vector<std::int32_t> offsets,
         std::int32_t initial_offset, std::optional<PosixRule> rule);

    // Seconds east of UTC in effect at this UTC second.
    std::int32_t offset_at(std::int64_t utc_seconds) const;
    // The local calendar day (days since 1970-01-01) an instant falls on.
    std::int64_t local_day(timeutil::Millis utc) const;
    // The first instant of a local day: its local midnight, or when midnight does not exist
    // (a gap), the first instant after the gap; an ambiguous midnight is its earlier instant.
    timeutil::Millis day_start(std::int64_t local_day) const;

  private:
    std::int32_t rule_offset_at(std::int64_t utc_seconds) const;

    std::vector<std::int64_t> transitions_;  // UTC seconds, ascending
    std::vector<std::int32_t> offsets_;      // offsets_[i]: from transitions_[i] on
    std::int32_t initial_offset_ = 0;        // before the first transition
    std::optional<PosixRule> rule_;          // after the last transition
};

// A TZif file's content (version 2 or later: its 64-bit data and footer). nullopt when it is
// not one, or counts leap seconds (the "right/" zones: their clock is not UTC's).
std::optional<Zone> parse_tzif(std::string_view bytes);

// The zone and link names of a tzdata.zi text (its "Z" and "L" lines), without "Factory".
std::set<std::string, std::less<>> parse_zone_list(std::string_view tzdata_zi);

// Whether name is one of tzdata's zones or links (/usr/share/zoneinfo/tzdata.zi, read once per
// process): never localtime, posixrules, Factory, posix/... or right/....
bool is_listed_zone(std::string_view name);

// The zone of an IANA name (is_listed_zone) from /usr/share/zoneinfo, loaded once per process and
// kept for the process's lifetime (there are a few hundred names; unknown names are not kept).
// nullptr for a name that is not a zone there: unknown, malformed, or a path that leaves the
// directory.
const Zone* find_zone(std::string_view name);

}  // namespace supportcrm::tz

// E4's counting plan (extensions.md): which spans of survey_span_counts cover a window's parts,
// which ends of them must be read survey by survey, and the tally the counts add up in. Pure
// computation, no statements: survey_repo.cpp runs what this plans.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/time_util.h"
#include "db/survey_repo.h"

namespace supportcrm {

// [start, end): a part of a window read survey by survey (off the quarter-hour grid).
struct RawPart {
    timeutil::Millis start, end;
    std::uint32_t tag;
};

struct SpanPlan {
    // The spans that cover the parts' stretches on the quarter-hour grid, as JSON_TABLE's input
    // "[[span,start,tag],...]" (span and start in minutes since 1000-01-01, sql/005).
    std::string json;
    // What the spans leave: the parts' ends off the grid.
    std::vector<RawPart> raw;
    bool has_spans() const { return json.size() > 2; }
};

// Greedy: at each minute the largest aligned span of kCsatSpans that fits (each span divides
// the next larger one, so the cover is exact).
SpanPlan plan_cover(const std::vector<WindowPart>& parts);

// Counts by key; a group's identity is the key's value as text.
class Tally {
  public:
    Tally(CountKey key, unsigned marks) : key_(key), marks_(marks) {}
    // The counts (indexed by mark, 1..5) of the group of this tag, channel or agent.
    std::array<std::uint64_t, 6>& at(std::uint32_t tag, std::string_view channel,
                                     std::uint64_t agent);
    // Only the filter's marks, and only groups with surveys left.
    std::vector<GroupCounts> take();

  private:
    CountKey key_;
    unsigned marks_;
    std::map<std::string, GroupCounts, std::less<>> groups_;
};

}  // namespace supportcrm

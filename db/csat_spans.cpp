#include "db/csat_spans.h"

#include <utility>

#include "db/survey_sql.h"

namespace supportcrm {
namespace {

constexpr timeutil::Millis kMinuteMs = 60'000;
constexpr timeutil::Millis kGridMs = 15 * kMinuteMs;
// 1000-01-01T00:00:00Z, where survey_span_counts' minutes start (sql/005).
constexpr timeutil::Millis kSpanEpochMs = -354'285LL * timeutil::kMillisPerDay;

timeutil::Millis floor_to_grid(timeutil::Millis ms) {
    timeutil::Millis r = (ms - kSpanEpochMs) % kGridMs;
    return r < 0 ? ms - r - kGridMs : ms - r;
}
timeutil::Millis ceil_to_grid(timeutil::Millis ms) {
    timeutil::Millis f = floor_to_grid(ms);
    return f == ms ? ms : f + kGridMs;
}

void append_span(std::string& json, unsigned span, std::uint64_t minute, std::uint32_t tag) {
    if (json.size() > 1) {
        json += ',';
    }
    json.append("[")
        .append(std::to_string(span))
        .append(",")
        .append(std::to_string(minute))
        .append(",")
        .append(std::to_string(tag))
        .append("]");
}

// The spans of [a, b) (both on the grid) into json.
void cover_grid(std::string& json, timeutil::Millis a, timeutil::Millis b, std::uint32_t tag) {
    auto minute = static_cast<std::uint64_t>((a - kSpanEpochMs) / kMinuteMs);
    const auto last = static_cast<std::uint64_t>((b - kSpanEpochMs) / kMinuteMs);
    while (minute < last) {
        for (unsigned span : kCsatSpans) {
            if (minute % span == 0 && minute + span <= last) {
                append_span(json, span, minute, tag);
                minute += span;
                break;
            }
        }
    }
}

}  // namespace

SpanPlan plan_cover(const std::vector<WindowPart>& parts) {
    SpanPlan plan;
    plan.json = "[";
    for (const WindowPart& p : parts) {
        const timeutil::Millis end = p.end + 1;
        const timeutil::Millis a = ceil_to_grid(p.start), b = floor_to_grid(end);
        if (a >= b) {
            plan.raw.push_back({p.start, end, p.tag});
            continue;
        }
        if (p.start < a) {
            plan.raw.push_back({p.start, a, p.tag});
        }
        if (b < end) {
            plan.raw.push_back({b, end, p.tag});
        }
        cover_grid(plan.json, a, b, p.tag);
    }
    plan.json += "]";
    return plan;
}

std::array<std::uint64_t, 6>& Tally::at(std::uint32_t tag, std::string_view channel,
                                        std::uint64_t agent) {
    std::string id;
    switch (key_) {
        case CountKey::tag:
            id = std::to_string(tag);
            break;
        case CountKey::channel:
            id = channel;
            break;
        case CountKey::agent:
            id = std::to_string(agent);
            break;
    }
    auto [it, inserted] = groups_.try_emplace(std::move(id));
    if (inserted) {
        it->second.tag = tag;
        it->second.channel = channel;
        if (agent != 0) {
            it->second.agent = agent;
        }
    }
    return it->second.by_mark;
}

std::vector<GroupCounts> Tally::take() {
    std::vector<GroupCounts> out;
    for (auto& [id, g] : groups_) {
        std::uint64_t total = 0;
        for (unsigned mark = 1; mark <= 5; ++mark) {
            if (!(marks_ >> mark & 1)) {
                g.by_mark[mark] = 0;
            }
            total += g.by_mark[mark];
        }
        if (total > 0) {
            out.push_back(std::move(g));
        }
    }
    return out;
}

}  // namespace supportcrm

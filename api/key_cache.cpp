#include "api/key_cache.h"

#include <unordered_map>

namespace supportcrm::key_cache {
namespace {

// A worker serves few keys; should a flood of distinct keys grow the maps, they start over
// (an entry is only ever a saving, never needed).
constexpr std::size_t kMaxEntries = 4096;
constexpr std::int64_t kTouchEveryMs = 60'000;

struct Entry {
    Seen seen;
    std::int64_t read_ms = 0;
};

std::unordered_map<std::string, Entry>& entries() {
    static std::unordered_map<std::string, Entry> map;  // per worker (after fork)
    return map;
}

std::unordered_map<std::uint64_t, std::int64_t>& touched() {
    static std::unordered_map<std::uint64_t, std::int64_t> map;
    return map;
}

}  // namespace

std::optional<Seen> fresh(const std::string& digest, std::int64_t now_ms) {
    auto it = entries().find(digest);
    if (it == entries().end() || now_ms - it->second.read_ms >= kFreshMs ||
        now_ms < it->second.read_ms) {
        return std::nullopt;
    }
    return it->second.seen;
}

void remember(const std::string& digest, const Seen& seen, std::int64_t now_ms) {
    auto& map = entries();
    if (map.size() >= kMaxEntries && map.find(digest) == map.end()) {
        map.clear();
    }
    map[digest] = Entry{seen, now_ms};
}

bool touch_due(std::uint64_t key_id, std::int64_t now_ms) {
    auto& map = touched();
    auto it = map.find(key_id);
    if (it != map.end() && now_ms - it->second < kTouchEveryMs && now_ms >= it->second) {
        return false;
    }
    if (map.size() >= kMaxEntries) {
        map.clear();
    }
    map[key_id] = now_ms;
    return true;
}

}  // namespace supportcrm::key_cache

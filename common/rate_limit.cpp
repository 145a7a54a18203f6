#include "common/rate_limit.h"

#include <time.h>

#include <algorithm>

#include "common/scoreboard.h"

namespace supportcrm::rate_limit {
namespace {

constexpr int kTatBits = 48;
constexpr std::uint64_t kTatMask = (std::uint64_t{1} << kTatBits) - 1;
constexpr std::int64_t kMicros = 1'000'000;

std::uint64_t tag_of(std::uint64_t key_id) {
    return (key_id / kSlots) & 0xFFFF;
}

std::uint64_t pack(std::uint64_t tag, std::int64_t tat) {
    return (tag << kTatBits) | (static_cast<std::uint64_t>(tat) & kTatMask);
}

// The word's arrival time for this key: a word of another key (or none) is a full bucket.
std::int64_t tat_of(std::uint64_t word, std::uint64_t tag) {
    if (word == 0 || (word >> kTatBits) != tag) {
        return 0;
    }
    return static_cast<std::int64_t>(word & kTatMask);
}

std::uint32_t ceil_seconds(std::int64_t us) {
    return us <= 0 ? 0 : static_cast<std::uint32_t>((us + kMicros - 1) / kMicros);
}

struct Bucket {
    std::int64_t period;     // µs
    std::int64_t interval;   // µs between two requests at the steady rate
    std::int64_t tolerance;  // how far ahead of now the arrival time may be: the burst
};

Bucket bucket_of(Rate rate) {
    Bucket b;
    b.period = std::int64_t{rate.period_s} * kMicros;
    b.interval = std::max<std::int64_t>(1, b.period / rate.count);
    b.tolerance = b.period - b.interval;
    return b;
}

Decision refused(const Bucket& b, Rate rate, std::int64_t tat, std::int64_t now) {
    Decision d;
    d.allowed = false;
    d.limit = rate.count;
    d.remaining = 0;
    d.reset_s = ceil_seconds(tat - now);
    d.retry_after_s = std::max<std::uint32_t>(1, ceil_seconds(tat - now - b.tolerance));
    return d;
}

Decision standing(const Bucket& b, Rate rate, std::int64_t tat, std::int64_t now) {
    Decision d;
    d.limit = rate.count;
    const std::int64_t left = (now + b.period - std::max(tat, now)) / b.interval;
    d.remaining = static_cast<std::uint32_t>(std::clamp<std::int64_t>(left, 0, rate.count));
    d.reset_s = ceil_seconds(tat - now);
    return d;
}

}  // namespace

Decision take(std::atomic<std::uint64_t>* slots, std::uint64_t key_id, Rate rate,
              std::int64_t now_us) {
    const Bucket b = bucket_of(rate);
    const std::uint64_t tag = tag_of(key_id);
    std::atomic<std::uint64_t>& slot = slots[key_id % kSlots];
    std::uint64_t word = slot.load(std::memory_order_relaxed);
    while (true) {
        const std::int64_t tat = std::max(tat_of(word, tag), now_us);
        if (tat - now_us > b.tolerance) {
            return refused(b, rate, tat, now_us);
        }
        const std::int64_t next = tat + b.interval;
        // On failure `word` is reloaded: another process took a token; decide again with it.
        if (slot.compare_exchange_weak(word, pack(tag, next), std::memory_order_relaxed)) {
            return standing(b, rate, next, now_us);
        }
    }
}

Decision peek(const std::atomic<std::uint64_t>* slots, std::uint64_t key_id, Rate rate,
              std::int64_t now_us) {
    const Bucket b = bucket_of(rate);
    const std::int64_t tat = std::max(
        tat_of(slots[key_id % kSlots].load(std::memory_order_relaxed), tag_of(key_id)), now_us);
    return tat - now_us > b.tolerance ? refused(b, rate, tat, now_us)
                                      : standing(b, rate, tat, now_us);
}

std::int64_t monotonic_us() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t{ts.tv_sec} * kMicros + ts.tv_nsec / 1000;
}

std::atomic<std::uint64_t>* host_slots() {
    if (Scoreboard* board = Scoreboard::attached()) {
        return board->header().rate_slots;
    }
    static std::atomic<std::uint64_t> own[kSlots] = {};
    return own;
}

}  // namespace supportcrm::rate_limit

// Per-key rate limits (extensions.md §E12), one budget for every worker of a host: a generic
// cell rate algorithm (GCRA, the token bucket told as a time) over a fixed table of 64-bit
// words in shared memory (the scoreboard's region, common/scoreboard.h). A key's word is its
// "theoretical arrival time": a request is allowed when that time is at most one period's
// burst ahead of now, and moves it one emission interval on. The word is updated with one
// compare-and-swap, so there is no lock a crashed worker could leave held and no database round
// trip: a worker killed between its load and its CAS simply did not take its token.
//
// A word is [tag:16 | tat:48]: tat in microseconds of CLOCK_MONOTONIC (boot-relative, 48 bits
// last 8.9 years of uptime), the tag is the key id's high part. The slot is key id mod kSlots;
// two keys on one slot (ids kSlots apart) take it from each other, which only ever makes a
// budget more generous (a fresh bucket), never refuses a request that was within its key's.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace supportcrm::rate_limit {

constexpr std::size_t kSlots = 1024;

struct Rate {
    std::uint32_t count = 0;     // requests ...
    std::uint32_t period_s = 0;  // ... per this many seconds; 0: no limit
};

// What one request learns about its key's budget: whether it may run, and the RateLimit-*
// headers (seconds, rounded up; Retry-After at least 1).
struct Decision {
    bool allowed = true;
    std::uint32_t limit = 0;
    std::uint32_t remaining = 0;
    std::uint32_t reset_s = 0;
    std::uint32_t retry_after_s = 0;
};

// Takes one token of key_id's bucket from slots[kSlots] at now_us (monotonic microseconds),
// or refuses. Lock-free, safe from any number of processes sharing the slots.
Decision take(std::atomic<std::uint64_t>* slots, std::uint64_t key_id, Rate rate,
              std::int64_t now_us);

// The bucket as it stands, taking nothing (for answers that are refused before the rate is
// looked at: they still carry the headers).
Decision peek(const std::atomic<std::uint64_t>* slots, std::uint64_t key_id, Rate rate,
              std::int64_t now_us);

// CLOCK_MONOTONIC in microseconds: shared by every process of the host.
std::int64_t monotonic_us();

// This host's table: the pool's scoreboard when this process has one (a worker), else a table
// of this process alone (tests, tools).
std::atomic<std::uint64_t>* host_slots();

}  // namespace supportcrm::rate_limit

#include "common/changes_feed.h"

#include <linux/futex.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <ctime>

#include "common/signals.h"

namespace supportcrm::changes_feed {
namespace {

constexpr auto relaxed = std::memory_order_relaxed;

// Without a shared scoreboard (unit tests, a lone process) the words are this process's own.
std::atomic<std::uint32_t> g_local_generation{0};
std::atomic<std::uint32_t> g_local_waiting{0};

std::atomic<std::uint32_t>* g_generation = &g_local_generation;
std::atomic<std::uint32_t>* g_waiting = &g_local_waiting;
WorkerSlot* g_slot = nullptr;
unsigned g_max_waiting = 1;
unsigned g_retention_days = 30;
std::int64_t g_waited_ns = 0;  // the worker serves one request at a time: no atomic needed

// The word is in a MAP_SHARED region: a process-shared futex (no FUTEX_PRIVATE_FLAG).
long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t value, const timespec* timeout) {
    static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
    return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op, value, timeout, nullptr,
                   0);
}

void show_state(WorkerState state) {
    if (g_slot == nullptr) {
        return;
    }
    // The slot's seqlock: /status reads state with method and route as one.
    g_slot->seq.fetch_add(1, std::memory_order_acq_rel);
    g_slot->state.store(static_cast<std::uint32_t>(state), relaxed);
    if (state == WorkerState::busy) {
        // request-terminate-timeout counts the busy time: the wait is not work.
        g_slot->request_started_ns.store(scoreboard::monotonic_ns(), relaxed);
    }
    g_slot->seq.fetch_add(1, std::memory_order_release);
}

}  // namespace

void configure(Scoreboard* board, WorkerSlot* own, unsigned max_waiting, unsigned retention_days) {
    g_retention_days = retention_days;
    if (board != nullptr) {
        g_generation = &board->header().change_generation;
        g_waiting = &board->header().changes_waiting;
    }
    g_slot = own;
    g_max_waiting = std::max(1U, max_waiting);
}

unsigned retention_days() {
    return g_retention_days;
}

std::uint32_t generation() {
    return g_generation->load(std::memory_order_acquire);
}

void notify() {
    g_generation->fetch_add(1, std::memory_order_release);
    if (g_waiting->load(relaxed) != 0) {
        futex(g_generation, FUTEX_WAKE, INT_MAX, nullptr);
    }
}

bool Place::take() {
    if (held_) {
        return true;
    }
    std::uint32_t n = g_waiting->load(relaxed);
    do {
        if (n >= g_max_waiting) {
            return false;
        }
    } while (!g_waiting->compare_exchange_weak(n, n + 1, std::memory_order_acq_rel));
    held_ = true;
    show_state(WorkerState::waiting);
    return true;
}

Place::~Place() {
    if (held_) {
        show_state(WorkerState::busy);
        g_waiting->fetch_sub(1, std::memory_order_acq_rel);
    }
}

bool wait_for_change(std::uint32_t seen, unsigned ms) {
    // The worker blocks its stop signals while it serves (common/signals.h): they are let in for
    // the wait. One that comes between the check and the futex is seen after at most kPollMs.
    sigset_t before;
    pthread_sigmask(SIG_SETMASK, &signals::wait_mask(), &before);
    if (!signals::stop_requested) {
        const unsigned slice = std::min(ms, kPollMs);
        const timespec timeout{static_cast<time_t>(slice / 1000),
                               static_cast<long>(slice % 1000) * 1'000'000L};
        const auto before_wait = std::chrono::steady_clock::now();
        futex(g_generation, FUTEX_WAIT, seen, &timeout);
        g_waited_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now() - before_wait)
                           .count();
    }
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    return !signals::stop_requested;
}

std::int64_t take_waited_ns() {
    const std::int64_t waited = g_waited_ns;
    g_waited_ns = 0;
    return waited;
}

}  // namespace supportcrm::changes_feed

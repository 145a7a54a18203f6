// The pool's scoreboard (extensions.md §E6): one shared-memory region (mmap MAP_SHARED |
// MAP_ANONYMOUS) the master creates before it forks, so every worker inherits it. One
// cache-line-aligned slot per worker, written only by that worker while it lives (the master
// fills it before the fork and folds it into the totals after the worker is reaped), and a
// header written only by the master. No lock anywhere: every field is a lone-writer atomic
// (a relaxed load and store, no locked instruction), and the fields that must be read together
// (a worker's current request; a dead worker's counters moving into the totals) are guarded
// by a seqlock, so a reader never sees them half-written and retries instead.
//
// A re-executed master (SIGHUP) starts a fresh scoreboard: exec drops the mapping, so the
// counters restart at a reload, as php-fpm's do (docs/operations.md, "Watching it").
#pragma once

#include <sys/types.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/rate_limit.h"

namespace supportcrm {
namespace scoreboard {

// The dimensions of the counters. Routes are the route table's entries (RouteMatch::label,
// api/route.h): 0 for a path no route matches; more entries than this count as 0 too.
constexpr std::size_t kRoutes = 40;
constexpr std::size_t kMethods = 8;    // method_name()
constexpr std::size_t kStatuses = 16;  // status_label()
// Upper bounds (seconds) of the latency histogram's buckets; the last bucket is +Inf.
constexpr std::array<double, 13> kBucketBounds = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                  0.25,  0.5,    1,     2.5,  5,     10};
constexpr std::size_t kBuckets = kBucketBounds.size() + 1;

// "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other".
const char* method_name(std::size_t index);
std::size_t method_index(std::string_view method);
// "200", "201", ... or "other" for a status outside the list.
const char* status_label(std::size_t index);
std::size_t status_index(int status);
std::size_t bucket_index(std::int64_t duration_ns);

// CLOCK_MONOTONIC in nanoseconds: the clock master and workers share for elapsed times.
std::int64_t monotonic_ns();

}  // namespace scoreboard

enum class WorkerState : std::uint32_t {
    free = 0,  // no worker owns the slot
    starting,  // forked, connecting to the database
    idle,      // waiting for a connection
    busy,      // serving a request
    waiting,   // serving a long-poll of the changes feed that waits for a change (E11)
};
const char* worker_state_name(WorkerState state);

// The statement a worker is running, set by Db::run (db/db.h) when the worker gives its Db
// one: the master names it when it kills a worker for request-terminate-timeout.
struct StatementProbe {
    std::atomic<std::int32_t> statement{-1};  // a Stmt value, -1 between statements
    std::atomic<std::int64_t> started_ns{0};  // monotonic
};

// What one worker counts; the header's copy holds the dead workers' sums.
struct PoolCounters {
    using Counter = std::atomic<std::uint64_t>;
    Counter requests[scoreboard::kRoutes][scoreboard::kMethods][scoreboard::kStatuses];
    Counter duration_buckets[scoreboard::kRoutes][scoreboard::kBuckets];
    Counter duration_sum_us[scoreboard::kRoutes];
    Counter accepted;
    Counter slow;
    Counter db_errors;
};

struct alignas(64) WorkerSlot {
    // Written by the master while no worker owns the slot.
    std::atomic<std::int32_t> pid;
    std::atomic<std::int64_t> started_ms;  // realtime, ms since the epoch
    // The worker's current request, under the seqlock `seq` (odd while being written).
    std::atomic<std::uint32_t> seq;
    std::atomic<std::uint32_t> state;  // WorkerState
    std::atomic<std::uint32_t> method;
    std::atomic<std::uint32_t> route;
    std::atomic<std::int64_t> request_started_ns;  // monotonic
    static constexpr std::size_t kIdWords = 17;    // 136 bytes: a request id is at most 128
    std::atomic<std::uint64_t> request_id[kIdWords];
    alignas(64) StatementProbe probe;
    alignas(64) PoolCounters counters;
};

struct alignas(64) ScoreboardHeader {
    std::atomic<std::int64_t> started_ms;  // when this master (image) started
    std::atomic<std::uint32_t> fold_seq;   // seqlock: a dead worker's slot moving into totals
    std::atomic<std::uint64_t> max_listen_queue;
    std::atomic<std::uint64_t> worker_restarts;      // workers that died unasked
    std::atomic<std::uint64_t> requests_terminated;  // by request-terminate-timeout
    // nginx keep-alive (fcgi/parking.h): the idle kept connections parked with the master, and
    // the readable ones it holds back because the hand-off queue to the pool is full.
    std::atomic<std::uint64_t> parked_connections;
    std::atomic<std::uint64_t> handoff_held;
    // The search indexer task (fcgi/indexer_task.h), their lone writer: the age of the oldest
    // comment its last batch took (0: none was queued), when that batch ran (realtime ms; 0:
    // none yet), and the comments it has indexed since the master started.
    std::atomic<std::int64_t> indexer_lag_ms;
    std::atomic<std::int64_t> indexer_checked_ms;
    std::atomic<std::uint64_t> indexer_comments;
    alignas(64) PoolCounters totals;
    // The per-key rate budgets of the host (common/rate_limit.h): written by every worker with
    // a CAS, never locked; zero (every bucket full) when the master maps the region.
    alignas(64) std::atomic<std::uint64_t> rate_slots[rate_limit::kSlots];
    // The changes feed's long-poll (extensions.md §E11, common/changes_wait.h): a futex word
    // every write of the pool bumps after its commit, and the requests waiting now (at most
    // changes-max-waiting; a worker that dies waiting gives its place back in release()).
    alignas(64) std::atomic<std::uint32_t> change_generation;
    std::atomic<std::uint32_t> changes_waiting;
};

// A consistent copy of one worker's slot.
struct WorkerView {
    std::size_t slot = 0;
    pid_t pid = 0;
    WorkerState state = WorkerState::free;
    std::int64_t started_ms = 0;
    std::uint64_t requests = 0;
    // Set when busy:
    std::size_t method = 0;
    std::size_t route = 0;
    std::int64_t elapsed_ms = 0;
    std::string request_id;
    std::int32_t statement = -1;
    std::int64_t statement_ms = 0;
};

// A consistent copy of the whole board: the dead workers' totals plus every live slot.
struct PoolView {
    std::int64_t started_ms = 0;
    std::uint64_t accepted = 0;
    std::uint64_t slow = 0;
    std::uint64_t db_errors = 0;
    std::uint64_t max_listen_queue = 0;
    std::uint64_t worker_restarts = 0;
    std::uint64_t requests_terminated = 0;
    // nginx keep-alive: idle kept connections parked with the master (no worker holds them),
    // and kept connections with a request that wait for a free worker (the hand-off queue:
    // what the channel holds now plus what the master holds back), the keep-alive
    // counterpart of the listen queue.
    std::uint64_t parked_connections = 0;
    std::uint64_t handoff_queue = 0;
    // The search indexer's last batch (ScoreboardHeader).
    std::int64_t indexer_lag_ms = 0;
    std::int64_t indexer_checked_ms = 0;
    std::uint64_t indexer_comments = 0;
    // Flattened [route][method][status], [route][bucket] and [route].
    std::vector<std::uint64_t> requests;
    std::vector<std::uint64_t> duration_buckets;
    std::vector<std::uint64_t> duration_sum_us;
    std::vector<WorkerView> workers;  // slots not free, in slot order

    std::uint64_t request_count(std::size_t route, std::size_t method, std::size_t status) const {
        return requests[(route * scoreboard::kMethods + method) * scoreboard::kStatuses + status];
    }
};

class Scoreboard {
  public:
    // Maps room for `capacity` workers. Throws std::system_error when mmap fails.
    explicit Scoreboard(std::size_t capacity);
    ~Scoreboard();
    Scoreboard(const Scoreboard&) = delete;
    Scoreboard& operator=(const Scoreboard&) = delete;

    // The board of this process (set by the master before it forks; workers inherit it), for
    // the /status and /metrics handlers; nullptr in a process without a pool (tests, tools).
    static Scoreboard* attached();
    static void attach(Scoreboard* board);

    // --- master -----------------------------------------------------------------------------
    // A free slot made ready for a worker about to be forked (zeroed, starting); -1 when all
    // are taken (the worker then runs without a slot and is not shown).
    int reserve();
    // The slot's worker was forked as pid (or, pid 0, could not be: the slot is free again).
    void assign(int slot, pid_t pid);
    // The worker pid was reaped: its counters move into the totals and its slot is freed.
    // False when it had no slot (a worker of the master's previous image).
    bool release(pid_t pid);
    ScoreboardHeader& header() { return *header_; }
    WorkerSlot& slot(std::size_t i) { return slots_[i]; }
    std::size_t capacity() const { return capacity_; }
    // The pool's listen socket, for the live listen-queue length of /status.
    void set_listen_fd(int fd) { listen_fd_ = fd; }
    int listen_fd() const { return listen_fd_; }
    // The pool's end of the hand-off channel (fcgi/parking.h), whose queue view() counts.
    void set_handoff_fd(int fd) { handoff_fd_ = fd; }

    // --- readers (master and workers) -------------------------------------------------------
    PoolView view() const;
    // One slot's worker and current request, without its counters (what the master watches).
    WorkerView worker(std::size_t i) const;

  private:
    void* region_ = nullptr;
    std::size_t bytes_ = 0;
    ScoreboardHeader* header_ = nullptr;
    WorkerSlot* slots_ = nullptr;
    std::size_t capacity_ = 0;
    int listen_fd_ = -1;
    int handoff_fd_ = -1;
};

// The writing side of one worker's slot: only the worker that owns the slot uses it. A worker
// without a slot (board full) writes to a private slot of its own that nobody reads.
class SlotWriter {
  public:
    explicit SlotWriter(WorkerSlot* slot);
    SlotWriter(const SlotWriter&) = delete;
    SlotWriter& operator=(const SlotWriter&) = delete;

    StatementProbe& probe() { return slot_->probe; }
    WorkerSlot* slot() { return slot_; }
    void idle();
    // A request was accepted: it shows as busy with its method, route and start.
    void begin(std::size_t method, std::size_t route, std::string_view request_id,
               std::int64_t started_ns);
    // It was answered: counted, and the worker shows idle again.
    void end(std::size_t method, std::size_t route, int status, std::int64_t duration_ns, bool slow,
             std::uint64_t db_errors);

  private:
    std::unique_ptr<WorkerSlot> own_;  // when there is no shared slot
    WorkerSlot* slot_;
};

// The number of connections waiting in the accept queue of a listening socket, or -1 when it
// cannot be told. TCP: getsockopt(TCP_INFO), whose tcpi_unacked is the accept queue's length
// on a listening socket. Unix: a NETLINK_SOCK_DIAG query (unix_diag, UDIAG_SHOW_RQLEN) for
// the socket's inode, whose udiag_rqueue is that length (what `ss -xl` shows as Recv-Q).
long listen_queue_length(int fd);

}  // namespace supportcrm

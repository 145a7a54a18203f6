#include "common/scoreboard.h"

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <system_error>

#include "common/time_util.h"

namespace supportcrm {
namespace scoreboard {
namespace {

constexpr const char* kMethodNames[kMethods] = {"GET",   "HEAD",   "POST",    "PUT",
                                                "PATCH", "DELETE", "OPTIONS", "other"};
constexpr int kStatusCodes[kStatuses - 1] = {200, 201, 204, 304, 400, 401, 403, 404,
                                             405, 409, 413, 415, 429, 500, 503};
constexpr const char* kStatusLabels[kStatuses] = {"200", "201", "204", "304",  "400", "401",
                                                  "403", "404", "405", "409",  "413", "415",
                                                  "429", "500", "503", "other"};

}  // namespace

const char* method_name(std::size_t index) {
    return kMethodNames[index < kMethods ? index : kMethods - 1];
}

std::size_t method_index(std::string_view method) {
    for (std::size_t i = 0; i + 1 < kMethods; ++i) {
        if (method == kMethodNames[i]) {
            return i;
        }
    }
    return kMethods - 1;
}

const char* status_label(std::size_t index) {
    return kStatusLabels[index < kStatuses ? index : kStatuses - 1];
}

std::size_t status_index(int status) {
    // 2xx first: nearly every answer is one of them.
    for (std::size_t i = 0; i + 1 < kStatuses; ++i) {
        if (kStatusCodes[i] == status) {
            return i;
        }
    }
    return kStatuses - 1;
}

std::size_t bucket_index(std::int64_t duration_ns) {
    // The bounds in nanoseconds, computed once: no floating point on the request path.
    static const std::array<std::int64_t, kBucketBounds.size()> bounds_ns = [] {
        std::array<std::int64_t, kBucketBounds.size()> ns{};
        for (std::size_t i = 0; i < ns.size(); ++i) {
            ns[i] = static_cast<std::int64_t>(kBucketBounds[i] * 1e9 + 0.5);
        }
        return ns;
    }();
    std::size_t i = 0;
    while (i < bounds_ns.size() && duration_ns > bounds_ns[i]) {
        ++i;
    }
    return i;
}

std::int64_t monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace scoreboard

namespace {

constexpr auto relaxed = std::memory_order_relaxed;

Scoreboard* g_attached = nullptr;

// The lone writer's increment: a load and a store, no locked read-modify-write.
void bump(std::atomic<std::uint64_t>& counter, std::uint64_t by = 1) {
    counter.store(counter.load(relaxed) + by, relaxed);
}

// Seqlock write side: odd while the guarded fields change.
void write_begin(std::atomic<std::uint32_t>& seq) {
    seq.store(seq.load(relaxed) + 1, relaxed);
    std::atomic_thread_fence(std::memory_order_release);
}
void write_end(std::atomic<std::uint32_t>& seq) {
    seq.store(seq.load(relaxed) + 1, std::memory_order_release);
}

void zero(PoolCounters& c) {
    for (auto& per_route : c.requests) {
        for (auto& per_method : per_route) {
            for (auto& n : per_method) {
                n.store(0, relaxed);
            }
        }
    }
    for (auto& per_route : c.duration_buckets) {
        for (auto& n : per_route) {
            n.store(0, relaxed);
        }
    }
    for (auto& n : c.duration_sum_us) {
        n.store(0, relaxed);
    }
    c.accepted.store(0, relaxed);
    c.slow.store(0, relaxed);
    c.db_errors.store(0, relaxed);
}

// Adds from into into (the master folding a dead worker; and readers summing).
void add(PoolCounters& into, const PoolCounters& from) {
    for (std::size_t r = 0; r < scoreboard::kRoutes; ++r) {
        for (std::size_t m = 0; m < scoreboard::kMethods; ++m) {
            for (std::size_t s = 0; s < scoreboard::kStatuses; ++s) {
                bump(into.requests[r][m][s], from.requests[r][m][s].load(relaxed));
            }
        }
        for (std::size_t b = 0; b < scoreboard::kBuckets; ++b) {
            bump(into.duration_buckets[r][b], from.duration_buckets[r][b].load(relaxed));
        }
        bump(into.duration_sum_us[r], from.duration_sum_us[r].load(relaxed));
    }
    bump(into.accepted, from.accepted.load(relaxed));
    bump(into.slow, from.slow.load(relaxed));
    bump(into.db_errors, from.db_errors.load(relaxed));
}

void add_to_view(PoolView& v, const PoolCounters& c) {
    std::size_t i = 0;
    std::size_t j = 0;
    for (std::size_t r = 0; r < scoreboard::kRoutes; ++r) {
        for (std::size_t m = 0; m < scoreboard::kMethods; ++m) {
            for (std::size_t s = 0; s < scoreboard::kStatuses; ++s) {
                v.requests[i++] += c.requests[r][m][s].load(relaxed);
            }
        }
        for (std::size_t b = 0; b < scoreboard::kBuckets; ++b) {
            v.duration_buckets[j++] += c.duration_buckets[r][b].load(relaxed);
        }
        v.duration_sum_us[r] += c.duration_sum_us[r].load(relaxed);
    }
    v.accepted += c.accepted.load(relaxed);
    v.slow += c.slow.load(relaxed);
    v.db_errors += c.db_errors.load(relaxed);
}

std::string read_request_id(const WorkerSlot& s) {
    char text[WorkerSlot::kIdWords * 8 + 1] = {};
    for (std::size_t w = 0; w < WorkerSlot::kIdWords; ++w) {
        const std::uint64_t word = s.request_id[w].load(relaxed);
        std::memcpy(text + w * 8, &word, 8);
    }
    return std::string(text);
}

// The current-request part of a slot, retried until the worker was not writing it.
WorkerView read_slot(const WorkerSlot& s, std::size_t index, std::int64_t now_ns) {
    WorkerView w;
    w.slot = index;
    w.pid = s.pid.load(relaxed);
    w.started_ms = s.started_ms.load(relaxed);
    while (true) {
        const std::uint32_t before = s.seq.load(std::memory_order_acquire);
        if (before % 2 != 0) {
            continue;  // being written: a few stores, over at once
        }
        w.state = static_cast<WorkerState>(s.state.load(relaxed));
        if (w.state == WorkerState::busy || w.state == WorkerState::waiting) {
            w.method = s.method.load(relaxed);
            w.route = s.route.load(relaxed);
            w.elapsed_ms = (now_ns - s.request_started_ns.load(relaxed)) / 1'000'000;
            w.request_id = read_request_id(s);
        }
        std::atomic_thread_fence(std::memory_order_acquire);
        if (s.seq.load(relaxed) == before) {
            break;
        }
    }
    w.requests = s.counters.accepted.load(relaxed);
    w.statement = s.probe.statement.load(relaxed);
    if (w.statement >= 0) {
        w.statement_ms = (now_ns - s.probe.started_ns.load(relaxed)) / 1'000'000;
    }
    return w;
}

// The messages waiting on a SOCK_SEQPACKET unix socket: SIOCINQ sums the bytes of every queued
// message, and each hand-off message is one byte (fcgi/parking.cpp); 0 without a socket.
std::uint64_t queued_messages(int fd) {
    int bytes = 0;
    if (fd < 0 || ioctl(fd, SIOCINQ, &bytes) != 0 || bytes < 0) {
        return 0;
    }
    return static_cast<std::uint64_t>(bytes);
}

}  // namespace

const char* worker_state_name(WorkerState state) {
    switch (state) {
        case WorkerState::free:
            return "free";
        case WorkerState::starting:
            return "starting";
        case WorkerState::idle:
            return "idle";
        case WorkerState::busy:
            return "busy";
        case WorkerState::waiting:
            return "waiting";
    }
    return "free";
}

Scoreboard::Scoreboard(std::size_t capacity) : capacity_(capacity) {
    bytes_ = sizeof(ScoreboardHeader) + capacity * sizeof(WorkerSlot);
    region_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (region_ == MAP_FAILED) {
        region_ = nullptr;
        throw std::system_error(errno, std::generic_category(), "scoreboard: mmap");
    }
    // The region is zero-filled: every counter starts at 0 and every slot is free.
    header_ = new (region_) ScoreboardHeader;
    slots_ = reinterpret_cast<WorkerSlot*>(static_cast<char*>(region_) + sizeof(ScoreboardHeader));
    for (std::size_t i = 0; i < capacity; ++i) {
        new (&slots_[i]) WorkerSlot;
    }
    header_->started_ms.store(timeutil::now_ms(), relaxed);
}

Scoreboard::~Scoreboard() {
    if (g_attached == this) {
        g_attached = nullptr;
    }
    if (region_ != nullptr) {
        munmap(region_, bytes_);
    }
}

Scoreboard* Scoreboard::attached() {
    return g_attached;
}

void Scoreboard::attach(Scoreboard* board) {
    g_attached = board;
}

int Scoreboard::reserve() {
    for (std::size_t i = 0; i < capacity_; ++i) {
        WorkerSlot& s = slots_[i];
        if (static_cast<WorkerState>(s.state.load(relaxed)) != WorkerState::free) {
            continue;
        }
        zero(s.counters);
        s.pid.store(0, relaxed);
        s.started_ms.store(timeutil::now_ms(), relaxed);
        s.probe.statement.store(-1, relaxed);
        write_begin(s.seq);
        s.state.store(static_cast<std::uint32_t>(WorkerState::starting), relaxed);
        write_end(s.seq);
        return static_cast<int>(i);
    }
    return -1;
}

void Scoreboard::assign(int slot, pid_t pid) {
    if (slot < 0) {
        return;
    }
    WorkerSlot& s = slots_[slot];
    if (pid > 0) {
        s.pid.store(pid, relaxed);
        return;
    }
    write_begin(s.seq);
    s.state.store(static_cast<std::uint32_t>(WorkerState::free), relaxed);
    write_end(s.seq);
}

bool Scoreboard::release(pid_t pid) {
    for (std::size_t i = 0; i < capacity_; ++i) {
        WorkerSlot& s = slots_[i];
        if (s.pid.load(relaxed) != pid ||
            static_cast<WorkerState>(s.state.load(relaxed)) == WorkerState::free) {
            continue;
        }
        // Readers sum totals and live slots: under fold_seq they never see the dead worker's
        // counts twice (or not at all).
        if (static_cast<WorkerState>(s.state.load(relaxed)) == WorkerState::waiting) {
            header_->changes_waiting.fetch_sub(1, relaxed);  // it died waiting: its place back
        }
        write_begin(header_->fold_seq);
        add(header_->totals, s.counters);
        write_begin(s.seq);
        s.state.store(static_cast<std::uint32_t>(WorkerState::free), relaxed);
        write_end(s.seq);
        s.pid.store(0, relaxed);
        write_end(header_->fold_seq);
        return true;
    }
    return false;
}

PoolView Scoreboard::view() const {
    PoolView v;
    const std::int64_t now_ns = scoreboard::monotonic_ns();
    while (true) {
        const std::uint32_t before = header_->fold_seq.load(std::memory_order_acquire);
        if (before % 2 != 0) {
            continue;
        }
        v = PoolView{};
        v.requests.assign(scoreboard::kRoutes * scoreboard::kMethods * scoreboard::kStatuses, 0);
        v.duration_buckets.assign(scoreboard::kRoutes * scoreboard::kBuckets, 0);
        v.duration_sum_us.assign(scoreboard::kRoutes, 0);
        add_to_view(v, header_->totals);
        for (std::size_t i = 0; i < capacity_; ++i) {
            const WorkerSlot& s = slots_[i];
            if (static_cast<WorkerState>(s.state.load(relaxed)) == WorkerState::free) {
                continue;
            }
            add_to_view(v, s.counters);
            v.workers.push_back(read_slot(s, i, now_ns));
        }
        std::atomic_thread_fence(std::memory_order_acquire);
        if (header_->fold_seq.load(relaxed) == before) {
            break;
        }
    }
    v.started_ms = header_->started_ms.load(relaxed);
    v.max_listen_queue = header_->max_listen_queue.load(relaxed);
    v.worker_restarts = header_->worker_restarts.load(relaxed);
    v.requests_terminated = header_->requests_terminated.load(relaxed);
    v.parked_connections = header_->parked_connections.load(relaxed);
    v.indexer_lag_ms = header_->indexer_lag_ms.load(relaxed);
    v.indexer_checked_ms = header_->indexer_checked_ms.load(relaxed);
    v.indexer_comments = header_->indexer_comments.load(relaxed);
    v.handoff_queue = header_->handoff_held.load(relaxed) + queued_messages(handoff_fd_);
    return v;
}

WorkerView Scoreboard::worker(std::size_t i) const {
    return read_slot(slots_[i], i, scoreboard::monotonic_ns());
}

SlotWriter::SlotWriter(WorkerSlot* slot) : slot_(slot) {
    if (slot_ == nullptr) {
        own_ = std::make_unique<WorkerSlot>();
        slot_ = own_.get();
    }
}

void SlotWriter::idle() {
    write_begin(slot_->seq);
    slot_->state.store(static_cast<std::uint32_t>(WorkerState::idle), relaxed);
    write_end(slot_->seq);
}

void SlotWriter::begin(std::size_t method, std::size_t route, std::string_view request_id,
                       std::int64_t started_ns) {
    WorkerSlot& s = *slot_;
    // Only the words the id uses and the one after it (its terminator): a shorter id than the
    // previous one still reads back correctly.
    const std::size_t length = std::min(request_id.size(), WorkerSlot::kIdWords * 8 - 1);
    const std::size_t used = length / 8 + 1;
    std::uint64_t words[WorkerSlot::kIdWords];
    words[used - 1] = 0;
    std::memcpy(words, request_id.data(), length);
    write_begin(s.seq);
    s.state.store(static_cast<std::uint32_t>(WorkerState::busy), relaxed);
    s.method.store(static_cast<std::uint32_t>(method), relaxed);
    s.route.store(static_cast<std::uint32_t>(route), relaxed);
    s.request_started_ns.store(started_ns, relaxed);
    for (std::size_t w = 0; w < used; ++w) {
        s.request_id[w].store(words[w], relaxed);
    }
    write_end(s.seq);
}

void SlotWriter::end(std::size_t method, std::size_t route, int status, std::int64_t duration_ns,
                     bool slow, std::uint64_t db_errors) {
    PoolCounters& c = slot_->counters;
    bump(c.requests[route][method][scoreboard::status_index(status)]);
    bump(c.duration_buckets[route][scoreboard::bucket_index(duration_ns)]);
    bump(c.duration_sum_us[route], static_cast<std::uint64_t>(duration_ns / 1000));
    bump(c.accepted);
    if (slow) {
        bump(c.slow);
    }
    if (db_errors != 0) {
        bump(c.db_errors, db_errors);
    }
    idle();
}

long listen_queue_length(int fd) {
    sockaddr_storage addr{};
    socklen_t addr_len = sizeof addr;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &addr_len) != 0) {
        return -1;
    }
    if (addr.ss_family == AF_INET || addr.ss_family == AF_INET6) {
        tcp_info info{};
        socklen_t info_len = sizeof info;
        if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &info_len) != 0) {
            return -1;
        }
        return static_cast<long>(info.tcpi_unacked);
    }
    if (addr.ss_family != AF_UNIX) {
        return -1;
    }
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        return -1;
    }
    const int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (nl < 0) {
        return -1;
    }
    struct {
        nlmsghdr header;
        unix_diag_req request;
    } query{};
    query.header.nlmsg_len = sizeof query;
    query.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    query.header.nlmsg_flags = NLM_F_REQUEST;  // no NLM_F_DUMP: the one socket of that inode
    query.request.sdiag_family = AF_UNIX;
    query.request.udiag_states = 1U << 10;  // TCP_LISTEN
    query.request.udiag_ino = static_cast<std::uint32_t>(st.st_ino);
    query.request.udiag_show = UDIAG_SHOW_RQLEN;
    query.request.udiag_cookie[0] = INET_DIAG_NOCOOKIE;
    query.request.udiag_cookie[1] = INET_DIAG_NOCOOKIE;
    long result = -1;
    alignas(nlmsghdr) char buffer[1024];
    if (send(nl, &query, sizeof query, 0) == static_cast<ssize_t>(sizeof query)) {
        const ssize_t n = recv(nl, buffer, sizeof buffer, 0);
        const auto* h = reinterpret_cast<const nlmsghdr*>(buffer);
        if (n > 0 && NLMSG_OK(h, static_cast<unsigned>(n)) &&
            h->nlmsg_type == SOCK_DIAG_BY_FAMILY) {
            const auto* msg = static_cast<const unix_diag_msg*>(NLMSG_DATA(h));
            int left = static_cast<int>(h->nlmsg_len - NLMSG_LENGTH(sizeof *msg));
            const auto* attr = reinterpret_cast<const rtattr*>(msg + 1);
            for (; RTA_OK(attr, left); attr = RTA_NEXT(attr, left)) {
                if (attr->rta_type == UNIX_DIAG_RQLEN) {
                    const auto* rq = static_cast<const unix_diag_rqlen*>(RTA_DATA(attr));
                    result = static_cast<long>(rq->udiag_rqueue);
                }
            }
        }
    }
    close(nl);
    return result;
}

}  // namespace supportcrm

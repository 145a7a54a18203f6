// Idle kept connections (nginx keep-alive to the pool: fastcgi_keep_conn, FCGI_KEEP_CONN)
// parked with the master instead of closed. nginx may send its next request on an idle
// connection at any moment; a server that closes one races that request, and nginx cannot
// pass a POST or PATCH that failed that way to another connection (issue 31). So the pool
// never closes an idle kept connection: a worker that needs to serve someone else hands its
// idle one to the master (SCM_RIGHTS over a unix socketpair made before the first fork), the
// master watches every parked one, closes it when nginx closes it (EOF) and passes it back to
// the pool when nginx sends a request on it; one free worker takes it (docs/performance.md,
// "nginx keep-alive to the pool").
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace supportcrm {

// An owned file descriptor, closed when it goes.
class Fd {
  public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    Fd& operator=(Fd&& other) noexcept;
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }

    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    int release() { return std::exchange(fd_, -1); }
    void reset();

  private:
    int fd_ = -1;
};

// What a kept connection has for its reader now, without reading it: a request, nginx's close
// (EOF, or an error such as ECONNRESET), or nothing yet. The master asks it of a parked
// connection that became readable, a worker of the one it is about to park.
enum class Pending { nothing, request, closed };
Pending pending(int fd);

// Sends `fd` (SCM_RIGHTS) as one message on the unix socket `channel`, without blocking;
// false (errno set) when it was not sent. The sender's own copy stays open.
bool send_fd(int channel, int fd);

// One descriptor received from `channel` without blocking (close-on-exec); empty when none is
// waiting (another worker took it) or on an error (logged).
Fd receive_fd(int channel);

// The two ends of the hand-off channel (SOCK_SEQPACKET: one message, one descriptor; what is
// sent on one end is received on the other). Workers send their idle connections on pool_end
// (the master receives them on master_end) and receive connections with a request on it (each
// message goes to one worker), which the master sends on master_end, and so does a worker
// whose kept connection it gives up already has a request (it skips the master's round trip).
class HandoffChannel {
  public:
    // A new socketpair, close-on-exec; throws std::runtime_error.
    HandoffChannel();
    // The ends the master's previous image made (kept open across its re-exec).
    HandoffChannel(int master_end, int pool_end) : master_(master_end), pool_(pool_end) {}

    int master_end() const { return master_.get(); }
    int pool_end() const { return pool_.get(); }

  private:
    Fd master_;
    Fd pool_;
};

// A worker's two queues of connections waiting for it: the hand-off channel's (parked
// connections nginx sent a request on) and the listen socket's. `take(handoff)` tries to take
// one from that queue; the ones with a connection waiting (`handoff`, `listener`) are tried
// from `handoff_first` on, and when both wait the other comes first next time: a worker that
// always took the hand-off first would starve the listen queue, since each connection it parks
// with its request goes back into the hand-off. False: neither gave one.
template <class Take>
bool take_in_turn(bool& handoff_first, bool handoff, bool listener, Take take) {
    const bool both = handoff && listener;
    for (const bool from_handoff : {handoff_first, !handoff_first}) {
        if (!(from_handoff ? handoff : listener)) {
            continue;
        }
        if (both) {
            handoff_first = !from_handoff;
        }
        if (take(from_handoff)) {
            return true;
        }
    }
    return false;
}

// The master's side: the parked connections, watched with one epoll set (with master_end, on
// which they arrive) that the master's loop polls beside its readiness pipe.
class Parking {
  public:
    using Clock = std::chrono::steady_clock;
    // A parked connection nginx has not used or closed for this long is closed: nginx's
    // upstream keepalive_timeout (60 s, set explicitly in the shipped site and the stacks)
    // always closes first; this only bounds connections an nginx lost track of.
    static constexpr std::chrono::seconds kIdleTimeout{300};

    // `adopted`: connections the previous image had parked (re-exec); throws on epoll errors.
    Parking(int master_end, const std::vector<int>& adopted);
    Parking(const Parking&) = delete;
    Parking& operator=(const Parking&) = delete;

    int fd() const { return epoll_.get(); }
    // Takes what workers parked, closes what nginx closed, hands what has a request to the
    // pool. Never blocks.
    void service();
    // Closes connections parked longer than kIdleTimeout; retries hand-offs the pool's queue
    // had no room for. Called every second.
    void expire();
    // In a newly forked worker: its copies of the master's descriptors go (without touching
    // the epoll set, which the fork shares with the master).
    void close_in_child();
    // The parked connections, for the re-exec handover.
    std::vector<int> fds() const;
    std::size_t count() const { return parked_.size(); }
    // Readable ones held back because the pool's hand-off queue was full (/status counts them
    // in its handoffQueue), and the others: idle, watched (its parkedConnections).
    std::size_t held() const { return held_; }
    std::size_t idle() const { return parked_.size() - held_; }

  private:
    struct Parked {
        Fd fd;
        Clock::time_point since;
        bool watched = true;  // false: readable, waiting for room in the hand-off queue
    };
    void park(Fd fd);
    void on_ready(int fd);
    bool hand_to_pool(Parked& p);
    void forget(int fd);

    int master_end_;
    Fd epoll_;
    std::map<int, Parked> parked_;
    std::size_t held_ = 0;  // entries with watched false
};

// The handover format of a list of descriptors ("3,7,9"), and back (throws
// std::runtime_error on anything else).
std::string encode_fds(const std::vector<int>& fds);
std::vector<int> decode_fds(const std::string& text);

// Raises the soft limit of open files to the hard one: the master holds every parked
// connection (up to nginx's keepalive × its worker processes).
void raise_open_files_limit();

}  // namespace supportcrm

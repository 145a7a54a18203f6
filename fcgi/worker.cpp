#include "fcgi/worker.h"

#include <fcgiapp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "api/dispatch.h"
#include "api/files.h"
#include "api/idempotency.h"
#include "api/request.h"
#include "api/response_writer.h"
#include "common/changes_feed.h"
#include "common/log.h"
#include "common/signals.h"
#include "fcgi/parking.h"
#include "fcgi/readiness.h"
#include "handlers/router.h"

namespace supportcrm {
namespace {

class FcgiBody : public BodySource {
  public:
    explicit FcgiBody(FCGX_Stream* in) : in_(in) {}
    bool read(std::string& out, std::size_t max) override {
        char buf[16384];
        while (true) {
            int n = FCGX_GetStr(buf, sizeof buf, in_);
            if (n <= 0) {
                return true;
            }
            if (out.size() + static_cast<std::size_t>(n) > max) {
                return false;
            }
            out.append(buf, static_cast<std::size_t>(n));
        }
    }
    std::size_t read_some(char* buffer, std::size_t size) override {
        const int n = FCGX_GetStr(buffer, static_cast<int>(size), in_);
        return n > 0 ? static_cast<std::size_t>(n) : 0;
    }

  private:
    FCGX_Stream* in_;
};

// The FastCGI parameters a request is read from, found in ONE pass over the environment: each
// FCGX_GetParam is a scan of every parameter (strlen + strncmp each): the eleven lookups cost
// ~3,900 instructions a request, the one pass ~1,200 (callgrind, S1: issue 26). A parameter
// sent once is its first occurrence, as FCGX_GetParam returns; the fields a request may repeat
// are joined.
struct Params {
    std::optional<std::string_view> method, request_uri, document_uri, content_type, content_length,
        x_api_key, authorization, request_id;
};

void first(std::optional<std::string_view>& slot, std::string_view value) {
    if (!slot) {
        slot = value;
    }
}

// A field sent more than once, as one value: its lines joined with ", " (RFC 9110 5.3), which
// is what nginx 1.23+ hands over itself; 1.22 passes each line as a parameter of its own.
void combined(std::optional<std::string>& slot, std::string_view value) {
    if (slot) {
        slot->append(", ").append(value);
    } else {
        slot.emplace(value);
    }
}

// One parameter "NAME=value": the names are told apart by their length first.
void read_param(std::string_view name, std::string_view value, Params& p, Request& r) {
    switch (name.size()) {
        case 11:
            if (name == "REQUEST_URI") {
                first(p.request_uri, value);
            }
            break;
        case 12:
            if (name == "CONTENT_TYPE") {
                first(p.content_type, value);
            } else if (name == "DOCUMENT_URI") {
                first(p.document_uri, value);
            }
            break;
        case 13:
            if (name == "HTTP_IF_MATCH") {
                combined(r.if_match, value);
            }
            break;
        case 14:
            if (name == "REQUEST_METHOD") {
                first(p.method, value);
            } else if (name == "HTTP_X_API_KEY") {
                first(p.x_api_key, value);
            } else if (name == "CONTENT_LENGTH") {
                first(p.content_length, value);
            }
            break;
        case 17:
            if (name == "HTTP_X_REQUEST_ID") {
                first(p.request_id, value);
            }
            break;
        case 18:
            if (name == "HTTP_AUTHORIZATION") {
                first(p.authorization, value);
            } else if (name == "HTTP_IF_NONE_MATCH") {
                combined(r.if_none_match, value);
            }
            break;
        case 20:
            if (name == "HTTP_IDEMPOTENCY_KEY") {
                combined(r.idempotency_key, value);
            }
            break;
        default:
            break;
    }
}

std::optional<std::string> owned(std::optional<std::string_view> v) {
    return v ? std::optional<std::string>(std::in_place, *v) : std::nullopt;
}

Request read_request(FCGX_Request& fcgi) {
    Request r;
    Params p;
    for (char** e = fcgi.envp; e != nullptr && *e != nullptr; ++e) {
        const char* eq = std::strchr(*e, '=');
        if (eq != nullptr) {
            read_param(std::string_view(*e, static_cast<std::size_t>(eq - *e)), eq + 1, p, r);
        }
    }
    r.method.assign(p.method.value_or("GET"));
    split_request_uri(p.request_uri ? *p.request_uri : p.document_uri.value_or("/"), r.path,
                      r.query);
    r.content_type.assign(p.content_type.value_or(""));
    if (p.content_length && !p.content_length->empty()) {
        // The value ends the parameter's NUL-terminated string: strtoull reads it in place.
        r.content_length = std::strtoull(p.content_length->data(), nullptr, 10);
    }
    r.x_api_key = owned(p.x_api_key);
    r.authorization = owned(p.authorization);
    std::optional<std::string> client_id;
    if (p.request_id) {
        client_id = acceptable_request_id(*p.request_id);
    }
    r.request_id = client_id ? std::move(*client_id) : generate_request_id();
    return r;
}

// How long one write of a streamed body may wait for nginx to take any of it. nginx buffers an
// export to a temp file (nginx/supportcrm.conf) and so reads it as fast as it comes until the file
// is at fastcgi_max_temp_file_size; then it reads only as fast as its client takes the answer. A
// write stalled this long means that (or nginx hung): the export stops and its answer is cut,
// so a worker never waits on a slow client for long (docs/operations.md, "nginx buffering").
constexpr timeval kStreamWriteStall{10, 0};

// libfcgi's stream: FCGX_PutStr copies into the request's 8 KiB buffer and sends a record when
// it fills, so a streamed body reaches nginx as it is produced. A write that fails (nginx gone,
// or stalled past kStreamWriteStall) throws: the stream stops there instead of reading the rest
// of its rows for nobody.
class FcgiSink : public BodySink {
  public:
    explicit FcgiSink(FCGX_Stream* out) : out_(out) {}
    void write(std::string_view bytes) override {
        if (FCGX_PutStr(bytes.data(), static_cast<int>(bytes.size()), out_) < 0) {
            throw std::runtime_error(
                "nginx takes no more of the answer (gone, or at its temp-file cap with a client "
                "not reading for " +
                std::to_string(kStreamWriteStall.tv_sec) + " s)");
        }
    }

  private:
    FCGX_Stream* out_;
};

// A stream that stops early must not end like a complete answer: the connection is shut down
// before FCGX_Finish_r can send END_REQUEST, so nginx drops the client's connection without
// the final chunk (it waits for END_REQUEST because the snippet's exports' location sets
// fastcgi_keep_conn; without it nginx takes the close for the end). The write timeout stays on the
// connection (FCGX_Finish_r's last flush, and later answers if it is kept, are under the same rule:
// below its cap nginx reads at once).
void write_stream(FCGX_Request& fcgi, BodyStream& stream) {
    if (setsockopt(fcgi.ipcFd, SOL_SOCKET, SO_SNDTIMEO, &kStreamWriteStall,
                   sizeof kStreamWriteStall) != 0) {
        log::error_errno("setsockopt SO_SNDTIMEO on the FastCGI connection", errno);
    }
    FcgiSink sink(fcgi.out);
    if (!stream.write_to(sink)) {
        shutdown(fcgi.ipcFd, SHUT_RDWR);
    }
}

void write_response(FCGX_Request& fcgi, const Request& request, const Response& response) {
    std::string head = render_head(response, request.request_id);
    FCGX_PutStr(head.data(), static_cast<int>(head.size()), fcgi.out);
    // A HEAD answer is GET's head, Content-Length included, and never a body (RFC 9110 9.3.2).
    if (request.method == "HEAD") {
        return;
    }
    if (response.stream) {
        write_stream(fcgi, *response.stream);
        return;
    }
    FCGX_PutStr(response.body.data(), static_cast<int>(response.body.size()), fcgi.out);
}

// On a kept connection (FCGI_KEEP_CONN) the next request follows this one's records: a body
// the handler did not read (an early 4xx, say 413) must be read to its end first, or libfcgi
// takes its STDIN records for the next request's start, a protocol error, and closes the
// connection under the request nginx sent on it.
void drain_body(FCGX_Stream* in) {
    char buf[16384];
    while (FCGX_GetStr(buf, sizeof buf, in) > 0) {
    }
}

void log_access(const Request& r, const Outcome& o, std::chrono::steady_clock::duration took) {
    char line[96];
    double ms = std::chrono::duration<double, std::milli>(took).count();
    std::snprintf(line, sizeof line, " %d %.2fms", o.response.status, ms);
    std::string message = r.method + " " + r.path + line;
    message += o.shop_id ? " shop=" + std::to_string(*o.shop_id) : std::string(" shop=-");
    log::info(message);
}

// The slow log (slowlog-threshold): one line per slow request, with the time of each SQL
// statement it ran, in order; the log line carries the request id.
// `worked` is the request's time less a long-poll's wait for a change (`waited`).
void log_slow(const Request& r, std::size_t route_index, const Outcome& o,
              std::chrono::steady_clock::duration worked, std::chrono::nanoseconds waited,
              const Db& db, unsigned threshold_ms) {
    char head[160];
    if (waited.count() == 0) {
        std::snprintf(head, sizeof head, "slow request %.1fms (slowlog-threshold %ums): ",
                      std::chrono::duration<double, std::milli>(worked).count(), threshold_ms);
    } else {
        std::snprintf(head, sizeof head,
                      "slow request %.1fms, not counting %.1fms waiting for a change "
                      "(slowlog-threshold %ums): ",
                      std::chrono::duration<double, std::milli>(worked).count(),
                      std::chrono::duration<double, std::milli>(waited).count(), threshold_ms);
    }
    const std::string_view label = route_label(route_index);
    std::string message = head + r.method + " " + (label.empty() ? r.path : std::string(label)) +
                          " " + std::to_string(o.response.status) + "; statements:";
    const std::size_t kept = std::min(db.timing_count(), Db::kMaxTimings);
    for (std::size_t i = 0; i < kept; ++i) {
        const Db::StatementTiming& t = db.timings()[i];
        char ms[32];
        std::snprintf(ms, sizeof ms, " %.1fms", static_cast<double>(t.ns) / 1e6);
        message.append(i == 0 ? " " : ", ").append(Db::name(t.id)).append(ms);
    }
    if (kept == 0) {
        message += " none";
    } else if (db.timing_count() > kept) {
        message += " and " + std::to_string(db.timing_count() - kept) + " more";
    }
    log::warning(message);
}

void serve(FCGX_Request& fcgi, Db& db, const Config& config, SlotWriter& board) {
    auto started = std::chrono::steady_clock::now();
    Request request = read_request(fcgi);
    FcgiBody body(fcgi.in);
    request.body_source = &body;
    log::set_request_id(request.request_id);
    // Looked up once: its template labels the scoreboard and the counters (never the raw path)
    // before dispatch runs its handler.
    const RouteMatch routed = route(request.method, request.path);
    const std::size_t route_index = routed.label < scoreboard::kRoutes ? routed.label : 0;
    const std::size_t method = scoreboard::method_index(request.method);
    // steady_clock is CLOCK_MONOTONIC, the clock the master reads the start against.
    board.begin(
        method, route_index, request.request_id,
        std::chrono::duration_cast<std::chrono::nanoseconds>(started.time_since_epoch()).count());
    const std::uint64_t db_errors = db.error_count();
    changes_feed::take_waited_ns();  // from 0 for this request
    Outcome outcome = respond(request, db, routed, config.max_body_bytes);
    // A write answered 2xx has committed: long-polls of the changes feed on this host wake now
    // (a write that changed nothing wakes them for nothing; they look and wait again).
    if (request.method != "GET" && request.method != "HEAD" && outcome.response.status >= 200 &&
        outcome.response.status < 300) {
        changes_feed::notify();
    }
    write_response(fcgi, request, outcome.response);
    if (fcgi.keepConnection) {
        drain_body(fcgi.in);
    }
    const auto took = std::chrono::steady_clock::now() - started;
    log_access(request, outcome, took);
    // A long-poll's wait for a change is neither slowness nor work: the slow log and the
    // duration histogram count the rest (the access log keeps the whole time).
    const std::chrono::nanoseconds waited(changes_feed::take_waited_ns());
    const auto worked = std::max(took - waited, std::chrono::steady_clock::duration::zero());
    const bool slow = config.slowlog_threshold != 0 &&
                      worked >= std::chrono::milliseconds(config.slowlog_threshold);
    if (slow) {
        log_slow(request, route_index, outcome, worked, waited, db, config.slowlog_threshold);
    }
    board.end(method, route_index, outcome.response.status,
              std::chrono::duration_cast<std::chrono::nanoseconds>(worked).count(), slow,
              db.error_count() - db_errors);
    log::set_request_id("");
}

// Waits up to a second, or less when a signal comes.
void pause_a_second() {
    timespec second{1, 0};
    ppoll(nullptr, 0, &second, &signals::wait_mask());
}

// The worker connects (and prepares its statements) before it accepts anything, so that a
// worker that cannot reach the database with its config never takes a connection the pool
// that can would have served. Each new reason it cannot is logged and reported to the master
// (the server's message); it retries every second until it connects or is told to stop.
bool connect_before_serving(Db& db, int ready_fd) {
    std::string last_reason;
    while (!signals::stop_requested) {
        std::string reason;
        try {
            db.connect();
            try {
                db.prepare_all();
            } catch (const DbError& e) {
                // Connected, so unless the connection broke meanwhile (a client error, 2xxx)
                // the statements are what the server refuses: a table or column of a migration
                // not applied yet.
                if (e.error_code >= 2000 && e.error_code < 3000) {
                    throw;
                }
                throw std::runtime_error(std::string(kSchemaNotMigrated) + e.what());
            }
            if (!send_readiness(ready_fd, {getpid(), true, ""})) {
                log::debug("the master no longer reads this worker's readiness (re-executed)");
            }
            return true;
        } catch (const std::exception& e) {
            reason = e.what();
            db.disconnect();
        }
        if (reason != last_reason) {
            log::warning(reason + "; not accepting requests, retrying every second");
            send_readiness(ready_fd, {getpid(), false, reason});
            last_reason = reason;
        }
        pause_a_second();
    }
    return false;
}

// What an idle worker waits for: a new connection on the listening socket, a connection the
// master hands on (a parked one nginx sent a request on: fcgi/parking.h), both EXCLUSIVE (one
// idle worker is woken for each, not all of them), and, while nginx keeps the connection of the
// last request open (fastcgi_keep_conn, FCGI_KEEP_CONN), the next request on that one.
class Waiter {
  public:
    struct Ready {
        bool kept = false;
        bool handoff = false;
        bool listener = false;
        bool any() const { return kept || handoff || listener; }
    };

    Waiter(int listen_fd, int handoff_fd)
        : fd_(epoll_create1(EPOLL_CLOEXEC)), listen_fd_(listen_fd), handoff_fd_(handoff_fd) {
        if (fd_ < 0 || !add(listen_fd, EPOLLIN | EPOLLEXCLUSIVE) ||
            !add(handoff_fd, EPOLLIN | EPOLLEXCLUSIVE)) {
            log::error_errno("epoll", errno);
        }
    }
    ~Waiter() {
        if (fd_ >= 0) {
            close(fd_);
        }
    }
    Waiter(const Waiter&) = delete;
    Waiter& operator=(const Waiter&) = delete;

    // Watches `kept` (-1: none) besides the two sockets. Added before every wait, not only
    // when the number changes: a closed descriptor leaves the set by itself, and libfcgi may
    // have closed the kept connection (nginx closed it) and accepted the next one under the
    // same number; EEXIST says it is still the one registered.
    void watch(int kept) {
        kept_ = kept;
        if (kept >= 0 && !add(kept, EPOLLIN | EPOLLRDHUP) && errno != EEXIST) {
            log::error_errno("epoll_ctl kept connection", errno);
        }
    }

    // Before a kept connection is handed away: the set would go on reporting it while the
    // master holds it (a registration lasts as long as any process holds the connection).
    void forget(int kept) {
        epoll_ctl(fd_, EPOLL_CTL_DEL, kept, nullptr);
        kept_ = -1;
    }

    // Waits with the handled signals unblocked.
    Ready wait() {
        epoll_event ev[3]{};
        int n = epoll_pwait(fd_, ev, 3, -1, &signals::wait_mask());
        if (n < 0 && errno != EINTR) {
            log::error_errno("epoll_pwait", errno);
            sleep(1);  // do not spin on a persistent error
        }
        Ready ready;
        for (int i = 0; i < n; ++i) {
            const int fd = ev[i].data.fd;
            ready.kept |= kept_ >= 0 && fd == kept_;
            ready.handoff |= fd == handoff_fd_;
            ready.listener |= fd == listen_fd_;
        }
        return ready;
    }

  private:
    bool add(int fd, std::uint32_t events) {
        epoll_event ev{};
        ev.events = events;
        ev.data.fd = fd;
        return epoll_ctl(fd_, EPOLL_CTL_ADD, fd, &ev) == 0;
    }

    int fd_;
    int listen_fd_;
    int handoff_fd_;
    int kept_ = -1;
};

// True when `fd` has something to read now (a request, or nginx's close).
bool readable_now(int fd) {
    pollfd p{fd, POLLIN, 0};
    return poll(&p, 1, 0) > 0;
}

// The end of the hand-off channel a worker sends on. Parked (pool end): the master watches it.
// Queued (master end: what is sent there arrives where workers receive): a connection nginx has
// already sent its next request on goes straight behind the others waiting for a worker, without
// the master's round trip.
struct Channel {
    int park;
    int queue;
};

// The worker's kept connection goes to the master, which watches it until nginx sends the next
// request on it (then a free worker gets it) or closes it; one with a request already waiting
// is queued for the pool at once, and one nginx has closed is closed. Never closed under nginx:
// it may be sending a request on it at this very moment, and it cannot pass a POST or PATCH
// that failed on a closed connection to another one (docs/performance.md, "nginx keep-alive to
// the pool"). Only if the channel cannot take it (the master is gone) is it closed.
void park(FCGX_Request& fcgi, Waiter& waiter, const Channel& channel) {
    waiter.forget(fcgi.ipcFd);
    const Pending now = pending(fcgi.ipcFd);
    if (now != Pending::closed) {
        const int to = now == Pending::request ? channel.queue : channel.park;
        if (!send_fd(to, fcgi.ipcFd) &&
            (to == channel.park || !send_fd(channel.park, fcgi.ipcFd))) {
            log::error_errno("parking an idle kept connection with the master; closing it", errno);
        }
    }
    close(fcgi.ipcFd);
    fcgi.ipcFd = -1;
}

// Takes a connection the master hands on, or a new one, in place of the kept connection
// (parked, whether idle or not). False: another worker was quicker.
bool take_instead(FCGX_Request& fcgi, Waiter& waiter, bool handoff, int listen_fd,
                  const Channel& channel) {
    Fd other =
        handoff ? receive_fd(channel.park) : Fd(accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC));
    if (!other) {
        if (!handoff && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
            errno != ECONNABORTED) {
            log::error_errno("accept", errno);
        }
        return false;
    }
    if (fcgi.ipcFd >= 0) {
        park(fcgi, waiter, channel);
    }
    // FCGX_Accept_r reads from an open ipcFd; it first finishes the last request, closing its
    // connection unless keepConnection says nginx kept it.
    fcgi.ipcFd = other.release();
    fcgi.keepConnection = 1;
    return true;
}

// The connection this worker serves next, once `ready` says something is waiting: the order a
// pool without keep-alive serves its listen queue in, as near as two queues allow. A connection
// the master hands on (a parked one whose request came while every worker was busy) and a new
// one take turns when both wait: a worker that always took the hand-off first would starve the
// listen queue, since each connection it parks with its request goes back into the hand-off.
// The next request on its own kept connection comes last. Taking another connection, the
// worker parks its own (with its request, if nginx sent one: the master hands it on at once,
// behind the others), so that neither an idle kept connection nor a client that keeps sending
// on one holds a worker others wait for. False: nothing to serve (another worker was quicker).
bool take_next(FCGX_Request& fcgi, Waiter& waiter, const Waiter::Ready& ready, int listen_fd,
               const Channel& channel) {
    static bool handoff_first = true;
    if (take_in_turn(handoff_first, ready.handoff, ready.listener, [&](bool handoff) {
            if (!handoff && fcgi.ipcFd < 0) {
                return true;  // libfcgi accepts (non-blocking socket: EAGAIN if another took it)
            }
            return take_instead(fcgi, waiter, handoff, listen_fd, channel);
        })) {
        return true;
    }
    // libfcgi reads the request from ipcFd (or nginx's close, and closes it).
    return ready.kept;
}

// How many of the pool's workers may wait in the changes feed's long-polls at once
// (changes-max-waiting; 0: a quarter of them, at least one), and how old a cursor may be.
void configure_changes_feed(const Config& config, SlotWriter& board) {
    changes_feed::configure(Scoreboard::attached(), board.slot(),
                            config.changes.max_waiting != 0 ? config.changes.max_waiting
                                                            : std::max(1U, config.workers / 4),
                            config.changes.retention_days);
}

// What a connected worker serves with.
struct Serving {
    FCGX_Request& fcgi;
    Db& db;
    const Config& config;
    SlotWriter& board;
    Waiter& waiter;
    Channel channel;
    int listen_fd;

    // The request FCGX_Accept_r has just read, answered and finished.
    void answer() {
        serve(fcgi, db, config, board);
        FCGX_Finish_r(&fcgi);
    }
};

// One request at a time, in the order take_next() gives, until the worker is told to stop.
void serve_until_stopped(Serving& s) {
    while (!signals::stop_requested) {
        // fcgi.ipcFd is open here only when nginx keeps the last request's connection.
        s.waiter.watch(s.fcgi.ipcFd);
        const Waiter::Ready ready = s.waiter.wait();
        if (!ready.any() || !take_next(s.fcgi, s.waiter, ready, s.listen_fd, s.channel)) {
            continue;
        }
        // With no connection open, libfcgi accepts one; the listen socket is non-blocking, and
        // another worker may have taken it. On a kept connection it reads the next request,
        // or nginx's close, which closes ours (and then finds nothing to accept).
        int rc = FCGX_Accept_r(&s.fcgi);
        if (rc < 0) {
            if (rc != -EAGAIN && rc != -EWOULDBLOCK && rc != -EINTR) {
                log::error_errno("FCGX_Accept_r", -rc);
            }
            continue;
        }
        s.answer();
        // After the answer went out, not on any request's latency path.
        idempotency::maintain(s.db);
    }
}

// Once told to stop, nothing that reached this worker is left unanswered or closed under nginx.
void finish_at_stop(Serving& s) {
    // A request nginx has already sent on the kept connection is answered, not dropped.
    if (s.fcgi.ipcFd >= 0 && readable_now(s.fcgi.ipcFd) && FCGX_Accept_r(&s.fcgi) == 0) {
        s.answer();
    }
    // A connection whose wake-up coincided with our stop signal may be waiting with no other
    // worker woken for it (EPOLLEXCLUSIVE wakes one): take it rather than leave it queued;
    // the same for a connection the master handed on.
    Waiter::Ready left;
    left.handoff = true;
    left.listener = true;
    if (take_next(s.fcgi, s.waiter, left, s.listen_fd, s.channel) && FCGX_Accept_r(&s.fcgi) == 0) {
        s.answer();
    }
    // An idle kept connection goes to the master (a worker of the new pool takes it on a
    // reload), not closed under a request nginx may be sending on it.
    if (s.fcgi.ipcFd >= 0) {
        park(s.fcgi, s.waiter, s.channel);
    }
}

}  // namespace

int run_worker(const WorkerFds& fds, const Config& config, WorkerSlot* slot) {
    pid_t master = getppid();
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // an orphaned worker stops too
    if (getppid() != master) {
        return 0;
    }
    signals::install_worker_handlers();
    // After our handlers: libfcgi installs its own only where the default is still set.
    if (FCGX_Init() != 0) {
        log::error("FCGX_Init failed");
        return 1;
    }
    FCGX_Request fcgi;
    FCGX_InitRequest(&fcgi, fds.listen, FCGI_FAIL_ACCEPT_ON_INTR);
    Db db(config.db);
    SlotWriter board(slot);
    db.set_probe(&board.probe());
    configure_changes_feed(config, board);
    files::configure(config.files);
    const bool connected = connect_before_serving(db, fds.ready);
    close(fds.ready);
    if (!connected) {
        FCGX_Free(&fcgi, 0);
        log::debug("worker stopping before it served");
        return 0;
    }
    Waiter waiter(fds.listen, fds.handoff);
    Serving serving{fcgi, db, config, board, waiter, Channel{fds.handoff, fds.requeue}, fds.listen};
    board.idle();
    log::debug("worker ready");
    serve_until_stopped(serving);
    finish_at_stop(serving);
    FCGX_Free(&fcgi, 0);
    log::debug("worker stopping");
    return 0;
}

}  // namespace supportcrm

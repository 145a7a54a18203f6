// Process behaviour of supportcrm-fcgi (README "Signals", issue 5): each test starts its own
// master (fork/exec, own process group, stderr in a per-test log) on a socket in its own temp
// directory and talks FastCGI to it directly, without nginx. The database is the test stack's
// (SUPPORTCRM_CONFIG); nothing here touches the stack's own pool.
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "db_fault_proxy.h"
#include "fcgi_client.h"
#include "harness.h"
#include "process_fixtures.h"
#include "tickets_fixtures.h"

namespace {

using Clock = std::chrono::steady_clock;
using it::proc::Millis;
using Proc = it::proc::Process;

// Generous bounds: the sanitizer build starts workers and answers several times slower.
constexpr Millis kStartTimeout{20000};
constexpr Millis kRequestTimeout{10000};
constexpr Millis kExitTimeout{10000};
// The bound of a wait for something that comes within milliseconds on an idle machine (a log
// line, a replacement worker): only reached when it never comes, so generous for a busy one.
constexpr Millis kWaitBound{30000};

const char kReady[] = "ready: 2 workers serving";
const char kUnavailableBody[] =
    R"({"success":false,"code":"unavailable","message":"Service temporarily unavailable"})";

it::fcgi::Request get(const std::string& uri) {
    it::fcgi::Request r;
    r.uri = uri;
    return r;
}

// One request on a connection opened with FCGI_KEEP_CONN (as nginx's fastcgi_keep_conn does);
// the connection stays open for the next.
it::fcgi::Response on_kept(it::fcgi::Connection& c, const it::fcgi::Request& request) {
    c.send_head(request, kRequestTimeout, true);
    c.end_stdin();
    return c.read_response(kRequestTimeout);
}

// True when the server closes `fd` (EOF or reset) within `timeout`.
bool closed_by_server(int fd, Millis timeout) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(timeout.count())) <= 0) {
        return false;
    }
    char byte = 0;
    return recv(fd, &byte, 1, MSG_DONTWAIT) <= 0;
}

it::fcgi::Request create_customer(const std::string& key, const std::string& email) {
    it::fcgi::Request r;
    r.method = "POST";
    r.uri = "/api/v1/customers";
    r.content_type = "application/json";
    r.api_key = key;
    r.body = it::to_json(it::object({{"email", email}, {"first_name", "Proc"}}));
    return r;
}

// A complete response with this status, the JSON content type and an X-Request-Id.
::testing::AssertionResult answered(const it::fcgi::Response& r, int status) {
    if (!r.complete()) {
        return ::testing::AssertionFailure() << "incomplete response: " << r.describe();
    }
    if (r.status != status) {
        return ::testing::AssertionFailure() << "expected " << status << ", got " << r.describe();
    }
    if (r.header("content-type").value_or("") != it::kJsonContentType) {
        return ::testing::AssertionFailure()
               << "content-type " << r.header("content-type").value_or("(none)");
    }
    if (r.header("x-request-id").value_or("").empty()) {
        return ::testing::AssertionFailure() << "no X-Request-Id: " << r.describe();
    }
    return ::testing::AssertionSuccess();
}

long millis_since(Clock::time_point t) {
    return static_cast<long>(std::chrono::duration_cast<Millis>(Clock::now() - t).count());
}

// ---------------------------------------------------------------------------------------------
// Client threads sending a steady stream of requests, recording every outcome.

struct Outcome {
    Clock::time_point started;
    Clock::time_point ended;
    bool ok = false;
    std::string what;  // failure description
};

class Load {
  public:
    // `threads` clients loop: GET /healthz (200), and with a key POST /api/v1/customers with a
    // fresh email (201).
    Load(std::string socket, int threads, std::optional<std::string> key)
        : socket_(std::move(socket)), key_(std::move(key)) {
        for (int i = 0; i < threads; ++i) {
            threads_.emplace_back([this, i] { run(i); });
        }
    }
    ~Load() { stop(); }
    Load(const Load&) = delete;
    Load& operator=(const Load&) = delete;

    void stop() {
        stop_ = true;
        for (std::thread& t : threads_) {
            if (t.joinable()) {
                t.join();
            }
        }
    }

    std::vector<Outcome> outcomes() {
        std::lock_guard<std::mutex> lock(mutex_);
        return outcomes_;
    }

    // Waits until `more` further requests have been answered (or have failed): the load has
    // run for a while, on a slow machine as on a fast one.
    bool wait_for_more(size_t more) {
        std::unique_lock<std::mutex> lock(mutex_);
        const size_t target = outcomes_.size() + more;
        return answered_.wait_for(lock, kWaitBound, [&] { return outcomes_.size() >= target; });
    }

  private:
    void run(int index) {
        for (unsigned n = 0; !stop_; ++n) {
            const bool post = key_ && (n + static_cast<unsigned>(index)) % 2 == 1;
            Outcome o;
            o.started = Clock::now();
            try {
                const it::fcgi::Request request =
                    post ? create_customer(*key_, it::unique_email("proc")) : get("/healthz");
                const it::fcgi::Response r = it::fcgi::request(socket_, request, kRequestTimeout);
                const int expected = post ? 201 : 200;
                ::testing::AssertionResult check = answered(r, expected);
                o.ok = static_cast<bool>(check);
                if (!o.ok) {
                    o.what = request.describe() + ": " + check.message();
                }
            } catch (const std::exception& e) {
                o.what = std::string(post ? "POST" : "GET") + ": " + e.what();
            }
            o.ended = Clock::now();
            {
                std::lock_guard<std::mutex> lock(mutex_);
                outcomes_.push_back(std::move(o));
            }
            answered_.notify_all();
            std::this_thread::sleep_for(Millis(1));
        }
    }

    std::string socket_;
    std::optional<std::string> key_;
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::condition_variable answered_;
    std::vector<Outcome> outcomes_;
    std::vector<std::thread> threads_;
};

// How many of `outcomes` failed, and the first few failures.
struct Failures {
    size_t count = 0;
    std::string first;
};
Failures failures_of(const std::vector<Outcome>& outcomes) {
    Failures f;
    for (const Outcome& o : outcomes) {
        if (!o.ok && ++f.count <= 5) {
            f.first += "\n  " + o.what;
        }
    }
    return f;
}

// Stops the load and expects a fair number of requests, none failed.
void expect_no_failed_request(Load& load, const char* during) {
    load.stop();
    const std::vector<Outcome> outcomes = load.outcomes();
    const Failures f = failures_of(outcomes);
    ::testing::Test::RecordProperty("requests", static_cast<int>(outcomes.size()));
    ::testing::Test::RecordProperty("failed", static_cast<int>(f.count));
    std::cerr << "[ load     ] " << outcomes.size() << " requests " << during << ", " << f.count
              << " failed\n";
    EXPECT_GE(outcomes.size(), 50u) << "too few requests to say anything";
    EXPECT_EQ(f.count, 0u) << f.count << " of " << outcomes.size() << " requests failed " << during
                           << ":" << f.first;
}

// No pid of `now` is one of `old` (the workers of a pool that was replaced).
void expect_all_replaced(const std::vector<pid_t>& old, const std::vector<pid_t>& now) {
    for (pid_t w : now) {
        EXPECT_EQ(std::count(old.begin(), old.end(), w), 0)
            << "worker " << w << " of the replaced pool is still running";
    }
}

// A POST /api/v1/customers sent up to half its body: a worker takes it and waits for the rest.
class HalfSentCreate {
  public:
    HalfSentCreate(const std::string& socket, const std::string& key, const std::string& email)
        : request_(create_customer(key, email)),
          half_(request_.body.size() / 2),
          connection_(socket) {
        connection_.send_head(request_);
        connection_.send_stdin(std::string_view(request_.body).substr(0, half_));
    }
    // Sends the rest and reads the answer.
    it::fcgi::Response finish() {
        connection_.send_stdin(std::string_view(request_.body).substr(half_));
        connection_.end_stdin();
        return connection_.read_response(kRequestTimeout);
    }

  private:
    it::fcgi::Request request_;
    size_t half_;
    it::fcgi::Connection connection_;
};

// Waits until `others` workers besides the one answering are busy (GET /status, which reads the
// scoreboard: a worker is busy from the moment it has a request's head): e.g. a HalfSentCreate
// was taken by a worker, which now waits for the rest.
bool wait_for_busy_workers(const std::string& socket, unsigned others) {
    const auto deadline = Clock::now() + kWaitBound;
    while (Clock::now() < deadline) {
        const it::fcgi::Response r = it::fcgi::request(socket, get("/status"), kRequestTimeout);
        if (r.status == 200 && it::parse_json(r.body)["workers"]["busy"].asUInt() >= others + 1) {
            return true;
        }
        std::this_thread::sleep_for(Millis(20));
    }
    return false;
}

// The executable a process runs, as /proc shows it (" (deleted)" when the file was replaced).
std::string exe_of(pid_t pid) {
    char buf[4096];
    const ssize_t n = readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), buf, sizeof buf);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("(unreadable)");
}

// ---------------------------------------------------------------------------------------------
// The fixture: a temp dir, and every process started, killed (group) and reaped at the end.

class Process : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure()) {
            for (const auto& [name, p] : procs_) {
                // The master's lines, not the workers' one line per request.
                std::string log;
                for (const std::string& line : it::proc::lines_with(p->log(), "")) {
                    if (line.find(" /healthz ") == std::string::npos &&
                        line.find(" /api/v1/") == std::string::npos) {
                        log += line + "\n";
                    }
                }
                if (log.size() > 6000) {
                    log = "..." + log.substr(log.size() - 6000);
                }
                std::cerr << "---- stderr of " << name << " (pid " << p->pid() << ") ----\n"
                          << log << "---- end of " << name << " ----\n";
            }
        }
        procs_.clear();  // SIGKILLs what is still running, before the directory goes
    }

    std::string socket_path() const { return dir_.file("s.sock"); }

    static void write_file(const std::string& path, const std::string& text) {
        std::ofstream out(path, std::ios::trunc);
        out << text;
    }

    // The stack's db-password-file.
    static std::string stack_password_file() {
        return it::read_ini(it::env().config).at("db-password-file");
    }

    // A copy of the stack's config in the test's directory; with `password_file`, that file
    // instead of the stack's db-password-file. Returns its path.
    std::string copy_config(const std::string& name, const std::string& password_file = "") {
        std::string text = it::proc::read_file(it::env().config);
        if (!password_file.empty()) {
            std::string kept;
            for (const std::string& line : it::proc::lines_with(text, "")) {
                if (line.rfind("db-password", 0) != 0) {
                    kept += line + "\n";
                }
            }
            text = kept + "db-password-file = " + password_file + "\n";
        }
        write_file(dir_.file(name), text);
        return dir_.file(name);
    }

    Proc& spawn(const std::string& name, std::vector<std::string> args, int listen_fd = -1,
                const std::string& fdnames = "", const std::string& notify_socket = "",
                const std::string& program = it::proc::fcgi_binary()) {
        it::proc::SpawnOptions o;
        o.notify_socket = notify_socket;
        o.program = program;
        o.args = std::move(args);
        o.stderr_path = dir_.file(name + ".log");
        o.stdout_path = dir_.file(name + ".out");
        o.listen_fd = listen_fd;
        o.listen_fdnames = fdnames;
        procs_.emplace_back(name, std::make_unique<Proc>(o));
        return *procs_.back().second;
    }

    // The usual master arguments: the stack's config, our socket, 2 workers.
    std::vector<std::string> master_args(unsigned shutdown_timeout,
                                         std::vector<std::string> extra = {}) const {
        std::vector<std::string> args{"--config",           it::env().config,
                                      "--listen",           socket_path(),
                                      "--workers",          "2",
                                      "--shutdown-timeout", std::to_string(shutdown_timeout)};
        // The re-index task (fcgi/reindex_task.h) and the search indexer (fcgi/indexer_task.h)
        // are children of the master too, and for the moment between a fork and its rename
        // they look like a worker: the tests that count workers run without them, the tasks'
        // own tests switch them on (the stack's own pool indexes these masters' comments).
        for (const char* task : {"--search-reindex-task", "--search-indexer"}) {
            const bool named = std::any_of(extra.begin(), extra.end(), [&](const std::string& a) {
                return a.rfind(task, 0) == 0;
            });
            if (!named) {
                args.emplace_back(std::string(task) + "=false");
            }
        }
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    }

    // Waits until the master says its whole pool serves (or it dies, or time runs out).
    ::testing::AssertionResult ready(const Proc& p) {
        const auto deadline = Clock::now() + kStartTimeout;
        while (Clock::now() < deadline) {
            if (it::proc::count(p.log(), kReady) >= 1) {
                return ::testing::AssertionSuccess();
            }
            if (!p.running()) {
                return ::testing::AssertionFailure() << "master exited before it was ready";
            }
            std::this_thread::sleep_for(Millis(20));
        }
        return ::testing::AssertionFailure()
               << "no '" << kReady << "' within " << kStartTimeout.count() << " ms";
    }

    // Waits until the pool of the last reload so far says it serves.
    static ::testing::AssertionResult ready_after_last_reload(const Proc& p) {
        const auto deadline = Clock::now() + kStartTimeout;
        while (Clock::now() < deadline) {
            const std::string log = p.log();
            const size_t last = log.rfind("reloading: ");
            if (last != std::string::npos && log.find(kReady, last) != std::string::npos) {
                return ::testing::AssertionSuccess();
            }
            std::this_thread::sleep_for(Millis(20));
        }
        return ::testing::AssertionFailure() << "the last reload's pool never said it serves";
    }

    Proc& start_master(const std::string& name, unsigned shutdown_timeout,
                       std::vector<std::string> extra = {}) {
        Proc& p = spawn(name, master_args(shutdown_timeout, std::move(extra)));
        EXPECT_TRUE(ready(p));
        return p;
    }

    // A copy of the binary in the test's directory, which the test may replace (as an upgrade
    // or a downgrade does) before a master started from it reloads.
    std::string binary_copy() {
        const std::string bin_dir = dir_.file("bin");
        std::filesystem::create_directory(bin_dir);
        const std::string exe = bin_dir + "/supportcrm-fcgi";
        std::filesystem::copy_file(it::proc::fcgi_binary(), exe);
        return exe;
    }

    // SIGTERM, then a clean exit (status 0) with no process of its group left behind.
    void stop_cleanly(Proc& p) {
        p.signal(SIGTERM);
        std::optional<it::proc::ExitStatus> st = p.wait_exit(kExitTimeout);
        ASSERT_TRUE(st) << "master did not exit within " << kExitTimeout.count()
                        << " ms of SIGTERM";
        EXPECT_EQ(st->describe(), "exit 0");
        EXPECT_TRUE(p.leftovers().empty()) << p.leftovers().size() << " processes outlived it";
    }

    it::proc::TempDir dir_;
    std::vector<std::pair<std::string, std::unique_ptr<Proc>>> procs_;
};

// `log` from the first occurrence of `marker` on ("" when there is none).
std::string log_after(const std::string& log, std::string_view marker) {
    const size_t at = log.find(marker);
    return at == std::string::npos ? std::string() : log.substr(at);
}

bool file_exists(const std::string& path) {
    struct stat st {};
    return lstat(path.c_str(), &st) == 0;
}

// ---------------------------------------------------------------------------------------------
// 1. Socket activation.

TEST_F(Process, SocketPassedBySystemdIsServedAndLeftInPlace) {
    const std::string passed = dir_.file("activated.sock");
    const std::string not_created = dir_.file("not-created.sock");
    const int fd = it::proc::listen_unix(passed);
    struct CloseAtEnd {
        int fd;
        ~CloseAtEnd() { close(fd); }
    } close_at_end{fd};
    std::vector<std::string> args = master_args(10);
    args[3] = not_created;  // --listen: must lose against the passed socket
    Proc& master = spawn("activated", args, fd, "supportcrm.socket");
    // The master and its workers hold the socket now; ours is only a reference.
    ASSERT_TRUE(ready(master));

    const it::fcgi::Response r = it::fcgi::request(passed, get("/healthz"), kRequestTimeout);
    ASSERT_TRUE(answered(r, 200));
    EXPECT_EQ(r.body, R"({"status":"ok"})");
    EXPECT_FALSE(file_exists(not_created)) << "--listen was bound although a socket was passed";
    EXPECT_TRUE(master.wait_for_log("listening on fd 3 from systemd", Millis(0)))
        << "the log does not say the passed socket is used";

    // A reload re-executes the master with the same socket (fd 3 stays open across the exec).
    master.signal(SIGHUP);
    ASSERT_TRUE(master.wait_for_log(kReady, kStartTimeout, 2));
    EXPECT_TRUE(master.wait_for_log("listening on fd 3 kept across re-exec;", Millis(0)));
    EXPECT_TRUE(answered(it::fcgi::request(passed, get("/healthz"), kRequestTimeout), 200));

    stop_cleanly(master);
    EXPECT_TRUE(file_exists(passed)) << "the master removed the socket file systemd owns";
    EXPECT_FALSE(file_exists(not_created));
}

// systemd's notify protocol (Type=notify): READY=1 once the pool serves, RELOADING=1 then
// READY=1 around a reload, STOPPING=1 on stop. A datagram socket stands in for systemd.
class NotifySocket {
  public:
    explicit NotifySocket(const std::string& path) : path_(path) {
        fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
        if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
            throw std::runtime_error("cannot bind the notify socket " + path);
        }
    }
    ~NotifySocket() { close(fd_); }
    NotifySocket(const NotifySocket&) = delete;
    NotifySocket& operator=(const NotifySocket&) = delete;

    // The next datagram, or "" when none comes within the timeout.
    std::string next(Millis timeout) {
        pollfd p{fd_, POLLIN, 0};
        if (poll(&p, 1, static_cast<int>(timeout.count())) != 1) {
            return "";
        }
        char buf[512];
        ssize_t n = recv(fd_, buf, sizeof buf, 0);
        return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
    }

  private:
    std::string path_;
    int fd_ = -1;
};

TEST_F(Process, TellsSystemdWhenReadyReloadingAndStopping) {
    NotifySocket notify(dir_.file("notify.sock"));
    Proc& master = spawn("notify", master_args(10), -1, "", dir_.file("notify.sock"));
    EXPECT_EQ(notify.next(kStartTimeout), "READY=1");
    EXPECT_TRUE(master.wait_for_log("ready: 2 workers serving", Millis(0)))
        << "READY=1 came before the pool said it serves";

    master.signal(SIGHUP);
    // RELOADING=1 with MONOTONIC_USEC= (systemd's notify-reload protocol), then READY=1 from
    // the re-executed master once its new workers have connected.
    const std::string reloading = notify.next(kStartTimeout);
    EXPECT_EQ(reloading.substr(0, 27), "RELOADING=1\nMONOTONIC_USEC=") << reloading;
    EXPECT_EQ(notify.next(kStartTimeout), "READY=1");
    EXPECT_TRUE(master.wait_for_log(kReady, Millis(0), 2));

    master.signal(SIGTERM);
    EXPECT_EQ(notify.next(kExitTimeout), "STOPPING=1");
    std::optional<it::proc::ExitStatus> st = master.wait_exit(kExitTimeout);
    ASSERT_TRUE(st);
    EXPECT_EQ(st->describe(), "exit 0");
}

// ---------------------------------------------------------------------------------------------
// 2. Binding its own socket.

TEST_F(Process, BindsItsSocketWithTheModeReplacesAStaleOneAndRemovesItOnExit) {
    // A stale socket file: bound by a "previous run" that is gone (nobody accepts on it).
    close(it::proc::listen_unix(socket_path()));
    ASSERT_TRUE(file_exists(socket_path()));

    Proc& master = start_master("own-socket", 10, {"--listen-mode", "0640"});
    ASSERT_FALSE(HasFailure());
    struct stat st {};
    ASSERT_EQ(lstat(socket_path().c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0640u) << std::oct << (st.st_mode & 07777);
    ASSERT_TRUE(answered(it::fcgi::request(socket_path(), get("/healthz"), kRequestTimeout), 200));

    // A second master on the same live socket refuses to start and leaves the socket alone.
    Proc& second = spawn("second", master_args(10));
    std::optional<it::proc::ExitStatus> second_exit = second.wait_exit(kExitTimeout);
    ASSERT_TRUE(second_exit) << "a second master on a live socket did not exit";
    EXPECT_NE(second_exit->code, 0) << second_exit->describe();
    EXPECT_EQ(second_exit->signal, 0) << second_exit->describe();
    EXPECT_NE(second.log().find("another server is accepting on " + socket_path()),
              std::string::npos)
        << second.log();
    EXPECT_EQ(it::proc::count(second.log(), "started worker"), 0u);
    ASSERT_TRUE(file_exists(socket_path())) << "the second master removed the live socket";
    EXPECT_TRUE(answered(it::fcgi::request(socket_path(), get("/healthz"), kRequestTimeout), 200))
        << "the first master stopped serving after the second one failed";

    stop_cleanly(master);
    EXPECT_FALSE(file_exists(socket_path())) << "socket file left after a clean exit";
}

// ---------------------------------------------------------------------------------------------
// 3. SIGHUP under a steady stream of requests.

TEST_F(Process, ReloadUnderLoadDropsNoRequest) {
    const it::Shop shop = it::make_shop();
    Proc& master = start_master("reload", 10);
    ASSERT_FALSE(HasFailure());
    const pid_t master_pid = master.pid();
    const std::vector<pid_t> first_workers = master.children();
    ASSERT_EQ(first_workers.size(), 2u);

    Load load(socket_path(), 3, shop.key);
    ASSERT_TRUE(load.wait_for_more(10));
    // Each SIGHUP once the previous one was taken (signals that arrive while one is pending
    // merge into one); the next may come while the previous new pool is still connecting.
    for (size_t i = 1; i <= 3; ++i) {
        master.signal(SIGHUP);
        ASSERT_TRUE(master.wait_for_log("reload: re-executing ", kStartTimeout, i));
        ASSERT_TRUE(load.wait_for_more(3));
    }
    EXPECT_TRUE(ready_after_last_reload(master));
    EXPECT_TRUE(load.wait_for_more(10)) << "the new pool serves";
    expect_no_failed_request(load, "across the reloads");

    // 2 initial + 2 per reload started; every retired worker finished its request and exited 0.
    EXPECT_TRUE(master.wait_for_log("reloading: ", kWaitBound, 3));
    EXPECT_TRUE(master.wait_for_log("started worker pid=", kWaitBound, 8));
    EXPECT_TRUE(master.wait_for_log("exited with status 0 ", kExitTimeout, 6))
        << "old workers did not all exit with status 0";
    EXPECT_TRUE(master.wait_for_children(2, kWaitBound)) << master.children().size();
    const std::string log = master.log();
    EXPECT_EQ(it::proc::count(log, "killed by signal"), 0u);
    for (const std::string& line : it::proc::lines_with(log, "exited with status")) {
        EXPECT_NE(line.find("exited with status 0 "), std::string::npos) << line;
    }
    for (const std::string& line : it::proc::lines_with(log, "reloading: ")) {
        EXPECT_NE(line.find(" pid=" + std::to_string(master_pid) + " "), std::string::npos)
            << "reload logged by another pid: " << line;
    }
    EXPECT_TRUE(master.running()) << "the master did not survive the reloads";
    EXPECT_EQ(master.pid(), master_pid);
    expect_all_replaced(first_workers, master.children());
    stop_cleanly(master);
}

// A config the binary does not accept refuses the reload before anything changes: the master
// does not re-execute, the workers stay, and the log says why (the --test-config run's own
// message included). Fixed, the next SIGHUP reloads.
TEST_F(Process, ReloadWithABrokenConfigIsRefusedAndChangesNothing) {
    const std::string config = copy_config("reload.conf");
    std::vector<std::string> args = master_args(10);
    args[1] = config;  // --config
    Proc& master = spawn("reload-broken", args);
    ASSERT_TRUE(ready(master));
    const std::vector<pid_t> first_workers = master.children();
    ASSERT_EQ(first_workers.size(), 2u);

    {
        std::ofstream out(config, std::ios::app);
        out << "\nno-such-key = 1\n";
    }
    master.signal(SIGHUP);
    EXPECT_TRUE(master.wait_for_log("reload refused, the running workers and config stay: ",
                                    Millis(10000)));
    EXPECT_TRUE(master.wait_for_log("no-such-key", Millis(0))) << "the reason is not logged";
    EXPECT_EQ(it::proc::count(master.log(), "reloading: "), 0u);
    EXPECT_EQ(master.children(), first_workers);
    EXPECT_TRUE(answered(it::fcgi::request(socket_path(), get("/healthz"), kRequestTimeout), 200));

    copy_config("reload.conf");
    master.signal(SIGHUP);
    EXPECT_TRUE(master.wait_for_log(kReady, kStartTimeout, 2));
    EXPECT_TRUE(master.wait_for_log("exited with status 0 ", kExitTimeout, 2));
    EXPECT_TRUE(master.wait_for_children(2, kWaitBound)) << master.children().size();
    expect_all_replaced(first_workers, master.children());
    stop_cleanly(master);
}

// A reload whose new workers cannot log in (a wrong password in db-password-file) is given up
// after ready-timeout: the new workers are stopped, the old ones serve throughout, the log
// has the server's message. The password put right, the next SIGHUP reloads.
TEST_F(Process, ReloadWhoseWorkersCannotConnectIsAbandonedAndTheOldOnesServe) {
    const it::Shop shop = it::make_shop();
    const std::string password_file = dir_.file("db-password");
    const std::string password = it::proc::read_file(stack_password_file());
    write_file(password_file, password);
    std::vector<std::string> args = master_args(10, {"--ready-timeout", "3"});
    args[1] = copy_config("bad-password.conf", password_file);  // --config
    NotifySocket notify(dir_.file("notify.sock"));
    Proc& master = spawn("reload-bad-password", args, -1, "", dir_.file("notify.sock"));
    ASSERT_TRUE(ready(master));
    EXPECT_EQ(notify.next(kStartTimeout), "READY=1");
    const std::vector<pid_t> first_workers = master.children();
    ASSERT_EQ(first_workers.size(), 2u);

    Load load(socket_path(), 3, shop.key);
    ASSERT_TRUE(load.wait_for_more(10));
    write_file(password_file, "not-the-password\n");
    master.signal(SIGHUP);
    ASSERT_TRUE(master.wait_for_log("reload abandoned: ", kStartTimeout));
    // systemd leaves "reloading" again: the service runs, on the old workers.
    EXPECT_EQ(notify.next(kStartTimeout).substr(0, 12), "RELOADING=1\n");
    EXPECT_EQ(notify.next(kStartTimeout), "READY=1");
    EXPECT_TRUE(load.wait_for_more(10));
    expect_no_failed_request(load, "during the abandoned reload");

    const std::vector<std::string> lines = it::proc::lines_with(master.log(), "reload abandoned: ");
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("only 0 of 2 workers connected within ready-timeout (3s)"),
              std::string::npos)
        << lines[0];
    EXPECT_NE(lines[0].find("Access denied for user"), std::string::npos)
        << "the server's message is not in the line: " << lines[0];
    EXPECT_TRUE(master.wait_for_log("exited with status 0 ", kExitTimeout, 2))
        << "the new workers were not stopped";
    EXPECT_TRUE(master.wait_for_children(2, kWaitBound)) << master.children().size();
    EXPECT_EQ(master.children(), first_workers) << "the old workers did not stay";
    EXPECT_EQ(it::proc::count(master.log(), kReady), 1u);
    EXPECT_TRUE(answered(it::fcgi::request(socket_path(), get("/healthz"), kRequestTimeout), 200));

    write_file(password_file, password);
    master.signal(SIGHUP);
    EXPECT_TRUE(master.wait_for_log(kReady, kStartTimeout, 2));
    EXPECT_TRUE(master.wait_for_log("exited with status 0 ", kExitTimeout, 4));
    EXPECT_TRUE(master.wait_for_children(2, kWaitBound)) << master.children().size();
    expect_all_replaced(first_workers, master.children());
    EXPECT_EQ(it::proc::count(master.log(), "killed by signal"), 0u);
    stop_cleanly(master);
}

// The upgrade: a new file at the binary's path (as dpkg installs one: a new inode renamed over
// the old), then SIGHUP. The master re-executes in place (same pid) and every new worker runs
// the new file, while a steady stream of requests sees no failure.
TEST_F(Process, ReloadAfterTheBinaryWasReplacedRunsTheNewOne) {
    const it::Shop shop = it::make_shop();
    const std::string exe = binary_copy();
    Proc& master = spawn("upgrade", master_args(10), -1, "", "", exe);
    ASSERT_TRUE(ready(master));
    const pid_t master_pid = master.pid();
    const std::vector<pid_t> first_workers = master.children();
    ASSERT_EQ(first_workers.size(), 2u);
    for (pid_t p : first_workers) {
        EXPECT_EQ(exe_of(p), exe);
    }

    Load load(socket_path(), 3, shop.key);
    ASSERT_TRUE(load.wait_for_more(10));
    std::filesystem::copy_file(it::proc::fcgi_binary(), exe + ".new");
    std::filesystem::rename(exe + ".new", exe);
    ASSERT_EQ(exe_of(master_pid), exe + " (deleted)");
    master.signal(SIGHUP);
    EXPECT_TRUE(master.wait_for_log(kReady, kStartTimeout, 2));
    EXPECT_TRUE(master.wait_for_log("exited with status 0 ", kExitTimeout, 2));
    EXPECT_TRUE(master.wait_for_children(2, kWaitBound)) << master.children().size();
    EXPECT_TRUE(load.wait_for_more(10));
    expect_no_failed_request(load, "during the upgrade");

    EXPECT_TRUE(master.running());
    EXPECT_EQ(master.pid(), master_pid);
    EXPECT_TRUE(master.wait_for_log("re-executed from " + exe + ",", Millis(0)));
    struct stat installed {};
    ASSERT_EQ(stat(exe.c_str(), &installed), 0);
    const std::vector<pid_t> now = master.children();
    std::vector<pid_t> checked{master_pid};
    checked.insert(checked.end(), now.begin(), now.end());
    for (pid_t p : checked) {
        EXPECT_EQ(exe_of(p), exe) << "pid " << p;
        struct stat running {};
        ASSERT_EQ(stat(("/proc/" + std::to_string(p) + "/exe").c_str(), &running), 0);
        EXPECT_EQ(running.st_ino, installed.st_ino) << "pid " << p << " runs another file";
    }
    expect_all_replaced(first_workers, now);
    stop_cleanly(master);
}

// A worker of the old pool holding a request when the reload comes finishes it (after the
// new pool is ready and it was told to stop), then exits 0.
TEST_F(Process, ReloadLetsAnOldWorkerFinishTheRequestInHand) {
    const it::Shop shop = it::make_shop();
    Proc& master = start_master("reload-inflight", 10);
    ASSERT_FALSE(HasFailure());
    const std::vector<pid_t> first_workers = master.children();
    ASSERT_EQ(first_workers.size(), 2u);

    const std::string email = it::unique_email("reload-inflight");
    HalfSentCreate in_flight(socket_path(), shop.key, email);
    ASSERT_TRUE(wait_for_busy_workers(socket_path(), 1)) << "no worker took the request";

    master.signal(SIGHUP);
    ASSERT_TRUE(master.wait_for_log(kReady, kStartTimeout, 2));
    // The idle old worker goes; the busy one stays until its request is done.
    EXPECT_TRUE(master.wait_for_log("exited with status 0 ", kExitTimeout, 1));
    EXPECT_TRUE(master.wait_for_children(3, kWaitBound)) << master.children().size();

    const it::fcgi::Response r = in_flight.finish();
    ASSERT_TRUE(answered(r, 201));
    EXPECT_EQ(r.json()["customer"]["email"], Json::Value(email)) << r.describe();

    EXPECT_TRUE(master.wait_for_log("exited with status 0 ", kExitTimeout, 2));
    EXPECT_TRUE(master.wait_for_children(2, kWaitBound)) << master.children().size();
    expect_all_replaced(first_workers, master.children());
    EXPECT_EQ(it::proc::count(master.log(), "killed by signal"), 0u);
    stop_cleanly(master);
}

// ---------------------------------------------------------------------------------------------
// 4. kill -9 of a worker under load.

TEST_F(Process, KilledWorkerIsReplacedAndServiceContinues) {
    const it::Shop shop = it::make_shop();
    Proc& master = start_master("kill9", 10);
    ASSERT_FALSE(HasFailure());
    ASSERT_EQ(master.children().size(), 2u);

    Load load(socket_path(), 3, shop.key);
    // Past the master's one-second "failing at start-up" window, so the respawn is immediate.
    std::this_thread::sleep_for(Millis(1200));
    const std::vector<pid_t> before = master.children();
    ASSERT_EQ(before.size(), 2u);
    const pid_t victim = before.front();
    const Clock::time_point killed_at = Clock::now();
    ASSERT_EQ(kill(victim, SIGKILL), 0);

    EXPECT_TRUE(master.wait_for_log("worker pid=" + std::to_string(victim) + " killed by signal 9",
                                    kWaitBound));
    // A replacement joins the survivor: two workers again, the victim not among them.
    std::vector<pid_t> after;
    const auto deadline = Clock::now() + kWaitBound;
    do {
        std::this_thread::sleep_for(Millis(20));
        after = master.children();
    } while ((after.size() != 2 || std::count(after.begin(), after.end(), victim) != 0) &&
             Clock::now() < deadline);
    EXPECT_EQ(after.size(), 2u);
    EXPECT_EQ(std::count(after.begin(), after.end(), victim), 0);
    EXPECT_TRUE(master.wait_for_log("started worker pid=", kWaitBound, 3));

    std::this_thread::sleep_for(Millis(1200) - (Clock::now() - killed_at));
    load.stop();

    size_t late = 0;
    size_t failed = 0;
    std::string failures;
    for (const Outcome& o : load.outcomes()) {
        if (o.started >= killed_at + Millis(200)) {
            ++late;
            if (!o.ok) {
                failures += "\n  " + o.what;
            }
        }
        failed += !o.ok;
    }
    RecordProperty("requests_after_kill", static_cast<int>(late));
    RecordProperty("failed", static_cast<int>(failed));
    EXPECT_GE(late, 20u) << "too few requests after the kill to say anything";
    EXPECT_TRUE(failures.empty()) << "requests started 200 ms after the kill failed:" << failures;
    // At most one request per client thread can have been in the victim's hands.
    EXPECT_LE(failed, 3u);
    EXPECT_TRUE(master.running());
    stop_cleanly(master);
}

// ---------------------------------------------------------------------------------------------
// 5. SIGTERM with a request in flight.

TEST_F(Process, StopLetsTheRequestInHandFinishAndSpawnsNoNewWorkers) {
    const it::Shop shop = it::make_shop();
    Proc& master = start_master("stop-inflight", 10);
    ASSERT_FALSE(HasFailure());
    const std::vector<pid_t> workers = master.children();
    ASSERT_EQ(workers.size(), 2u);

    const std::string email = it::unique_email("inflight");
    HalfSentCreate in_flight(socket_path(), shop.key, email);
    ASSERT_TRUE(wait_for_busy_workers(socket_path(), 1)) << "no worker took the request";

    master.signal(SIGTERM);
    ASSERT_TRUE(master.wait_for_log("stopping: ", kWaitBound));
    std::this_thread::sleep_for(Millis(300));
    ASSERT_TRUE(master.running()) << "the master exited with a request in hand";

    // A connection made while stopping: the master must not start a worker for it.
    const std::string late_id = "late-" + it::unique_suffix();
    it::fcgi::Request late_request = get("/healthz");
    late_request.request_id = late_id;
    it::fcgi::Connection late(socket_path());
    late.send_head(late_request);
    late.end_stdin();

    const it::fcgi::Response r = in_flight.finish();
    ASSERT_TRUE(answered(r, 201));
    const Json::Value j = r.json();
    EXPECT_EQ(j["success"], Json::Value(true)) << r.describe();
    EXPECT_EQ(j["existing"], Json::Value(false)) << r.describe();
    EXPECT_EQ(j["customer"]["email"], Json::Value(email)) << r.describe();
    const Clock::time_point answered_at = Clock::now();

    // The late connection is either served by a worker that was already running (one takes a
    // connection queued at its stop) or closed when the pool is gone; never left hanging.
    // (Read now: libfcgi lingers up to 2 s on close until the client closes its side.)
    try {
        const it::fcgi::Response lr = late.read_response(Millis(5000));
        EXPECT_TRUE(answered(lr, 200));
        ASSERT_TRUE(master.wait_for_log("req=" + late_id, kWaitBound));
        const std::vector<std::string> lines = it::proc::lines_with(master.log(), "req=" + late_id);
        ASSERT_EQ(lines.size(), 1u);
        bool by_old_worker = false;
        for (pid_t w : workers) {
            by_old_worker |= lines[0].find(" pid=" + std::to_string(w) + " ") != std::string::npos;
        }
        EXPECT_TRUE(by_old_worker) << "served by a worker started while stopping: " << lines[0];
    } catch (const it::fcgi::Error& e) {
        EXPECT_NE(e.kind(), it::fcgi::Error::Kind::timeout) << e.what();
    }

    std::optional<it::proc::ExitStatus> st = master.wait_exit(Millis(5000));
    ASSERT_TRUE(st) << "the master did not exit within 5 s of the last request";
    EXPECT_EQ(st->describe(), "exit 0");
    EXPECT_LT(millis_since(answered_at), 3000);
    EXPECT_TRUE(master.leftovers().empty());

    const std::string log = master.log();
    EXPECT_EQ(it::proc::count(log_after(log, "stopping: "), "started worker"), 0u)
        << "a worker was started while stopping";
    EXPECT_EQ(it::proc::count(log, "shutdown-timeout reached"), 0u);
    EXPECT_EQ(it::proc::count(log, "killed by signal"), 0u);
    EXPECT_FALSE(file_exists(socket_path()));
}

// extensions.md §E11: a long-poll waiting for a change (GET /api/v1/changes?wait=30) ends
// cleanly on shutdown: SIGTERM answers it at once, 200 with no changes and a cursor to go on
// from (common/changes_feed.h: the wait notices a stop within kPollMs), and the master exits 0
// long before the wait or shutdown-timeout would have run out, nothing killed.
TEST_F(Process, StopAnswersAWaitingLongPollAtOnceAndExitsCleanly) {
    const it::Shop shop = it::make_shop();
    Proc& master = start_master("stop-long-poll", 20);
    ASSERT_FALSE(HasFailure());
    it::fcgi::Request poll = get("/api/v1/changes?wait=30");
    poll.api_key = shop.key;
    it::fcgi::Connection waiting(socket_path());
    waiting.send_head(poll);
    waiting.end_stdin();
    const auto deadline = Clock::now() + kWaitBound;
    unsigned shown = 0;
    while (shown == 0 && Clock::now() < deadline) {
        const it::fcgi::Response r =
            it::fcgi::request(socket_path(), get("/status"), kRequestTimeout);
        shown = r.status == 200 ? it::parse_json(r.body)["workers"]["waiting"].asUInt() : 0;
        if (shown == 0) {
            std::this_thread::sleep_for(Millis(20));
        }
    }
    ASSERT_EQ(shown, 1u) << "the long-poll never showed as waiting";

    const Clock::time_point signalled = Clock::now();
    master.signal(SIGTERM);
    const it::fcgi::Response r = waiting.read_response(kRequestTimeout);
    ASSERT_TRUE(answered(r, 200)) << r.describe();
    const Json::Value j = r.json();
    EXPECT_TRUE(j["changes"].isArray() && j["changes"].empty()) << r.describe();
    EXPECT_TRUE(j["nextCursor"].isString()) << r.describe();
    EXPECT_LT(millis_since(signalled), 5000) << "answered when its wait ran out, not at the stop";

    std::optional<it::proc::ExitStatus> st = master.wait_exit(kExitTimeout);
    ASSERT_TRUE(st) << "the master did not exit within " << kExitTimeout.count() << " ms";
    EXPECT_EQ(st->describe(), "exit 0");
    EXPECT_TRUE(master.leftovers().empty());
    EXPECT_EQ(it::proc::count(master.log(), "shutdown-timeout reached"), 0u);
    EXPECT_EQ(it::proc::count(master.log(), "killed by signal"), 0u);
}

// nginx's keep-alive (fastcgi_keep_conn): a kept connection between requests is idle, not a
// request in hand. A reload retires the workers waiting on them, which park the connections
// with the master and exit 0; the connections stay open across the master's re-exec (those
// already parked before it too: three kept connections on two workers) and the new pool
// serves their next requests: a reload never closes an idle kept connection under a request
// nginx may be sending on it (fcgi/parking.h).
TEST_F(Process, ReloadKeepsIdleKeptConnectionsForTheNewPool) {
    Proc& master = start_master("reload-kept", 10);
    ASSERT_FALSE(HasFailure());
    const std::vector<pid_t> first_workers = master.children();
    it::fcgi::Connection kept(socket_path());
    ASSERT_TRUE(answered(on_kept(kept, get("/healthz")), 200));
    ASSERT_TRUE(answered(on_kept(kept, get("/healthz")), 200)) << "the second on the same one";
    it::fcgi::Connection second(socket_path());
    it::fcgi::Connection third(socket_path());
    ASSERT_TRUE(answered(on_kept(second, get("/healthz")), 200));
    ASSERT_TRUE(answered(on_kept(third, get("/healthz")), 200));

    master.signal(SIGHUP);
    ASSERT_TRUE(master.wait_for_log("reload: re-executing ", kStartTimeout));
    EXPECT_TRUE(ready_after_last_reload(master));
    EXPECT_TRUE(master.wait_for_log("exited with status 0 ", kExitTimeout, 2))
        << "the old workers did not both exit with status 0";
    // Only the new pool is left to answer on it.
    EXPECT_TRUE(answered(on_kept(kept, get("/healthz")), 200))
        << "the kept connection did not survive the reload";
    EXPECT_TRUE(answered(on_kept(kept, get("/healthz")), 200));
    EXPECT_TRUE(answered(on_kept(second, get("/healthz")), 200));
    EXPECT_TRUE(answered(on_kept(third, get("/healthz")), 200));
    // One of the three was parked before the reload and crossed the re-exec.
    EXPECT_NE(master.log().find(" parked connections handed over"), std::string::npos);
    EXPECT_EQ(master.log().find(" 0 parked connections handed over"), std::string::npos);
    it::fcgi::Connection fresh(socket_path());
    EXPECT_TRUE(answered(on_kept(fresh, get("/healthz")), 200));
    EXPECT_TRUE(answered(on_kept(fresh, get("/healthz")), 200));
    EXPECT_EQ(it::proc::count(master.log(), "killed by signal"), 0u);
    EXPECT_EQ(it::proc::count(master.log(), "closing it"), 0u) << "a connection was not parked";
    expect_all_replaced(first_workers, master.children());
    stop_cleanly(master);
}

// A downgrade across a reload: the binary now at the master's path is one from before parking
// (a script here that passes --test-config without the summary's handover marker and runs the
// real binary without SUPPORTCRM_PARKED_FDS and SUPPORTCRM_HANDOFF_FDS, as such a binary would
// ignore them). The master hands it neither the channel nor the parked connections: every
// idle kept connection is closed, none stays open in a master that would never watch it (nor
// in a channel no one reads), and the new pool serves.
TEST_F(Process, ReloadToABinaryFromBeforeParkingClosesTheKeptConnections) {
    const std::string exe = binary_copy();
    Proc& master = spawn("downgrade", master_args(10), -1, "", "", exe);
    ASSERT_TRUE(ready(master));
    std::vector<std::unique_ptr<it::fcgi::Connection>> kept;
    for (int i = 0; i < 3; ++i) {  // one more than the workers: one is parked with the master
        kept.push_back(std::make_unique<it::fcgi::Connection>(socket_path()));
        ASSERT_TRUE(answered(on_kept(*kept.back(), get("/healthz")), 200));
    }
    const std::string old = exe + ".old";
    std::ofstream(old) << "#!/bin/sh\n"
                       << "for a; do\n"
                       << "  [ \"$a\" = --test-config ] && echo 'supportcrm-fcgi: configuration OK'"
                       << " && exit 0\n"
                       << "done\n"
                       << "unset SUPPORTCRM_PARKED_FDS SUPPORTCRM_HANDOFF_FDS\n"
                       << "exec " << it::proc::fcgi_binary() << " \"$@\"\n";
    std::filesystem::permissions(old, std::filesystem::perms::owner_all |
                                          std::filesystem::perms::group_read |
                                          std::filesystem::perms::group_exec);
    std::filesystem::rename(old, exe);

    master.signal(SIGHUP);
    ASSERT_TRUE(master.wait_for_log("does not take parked connections over", kStartTimeout))
        << master.log();
    EXPECT_TRUE(ready_after_last_reload(master));
    for (std::size_t i = 0; i < kept.size(); ++i) {
        EXPECT_TRUE(closed_by_server(kept[i]->fd(), kWaitBound)) << "connection " << i;
    }
    it::fcgi::Connection fresh(socket_path());
    EXPECT_TRUE(answered(on_kept(fresh, get("/healthz")), 200));
    EXPECT_EQ(it::proc::count(master.log(), "killed by signal"), 0u);
    stop_cleanly(master);
}

// Twice as many kept connections as workers, used in turn: a worker idle on one takes the
// connection that waits and parks its own with the master, which hands it to a free worker
// when its next request comes. Every request on every connection is answered, none of them
// is closed by the pool.
TEST_F(Process, IdleKeptConnectionsAreParkedNotClosedWhenAnotherWaits) {
    Proc& master = start_master("park-kept", 10);
    ASSERT_FALSE(HasFailure());
    std::vector<std::unique_ptr<it::fcgi::Connection>> connections;
    for (int i = 0; i < 4; ++i) {
        connections.push_back(std::make_unique<it::fcgi::Connection>(socket_path()));
    }
    for (int round = 0; round < 5; ++round) {
        for (std::size_t i = 0; i < connections.size(); ++i) {
            ASSERT_TRUE(answered(on_kept(*connections[i], get("/healthz")), 200))
                << "round " << round << ", connection " << i;
        }
    }
    const std::string log = master.log();
    EXPECT_EQ(it::proc::count(log, "closing it"), 0u) << log;
    EXPECT_EQ(it::proc::count(log, "killed by signal"), 0u);
    stop_cleanly(master);
}

// The scoreboard with kept connections (issue 31): four idle kept connections on two workers are
// idle, not busy; the ones no worker waits on show as parked with the master (at least two:
// a worker holds at most one), and nothing waits in the hand-off queue. (/metrics reads the
// same two numbers: PoolMetrics.PromtoolAccepts... checks its families on the stack; this
// client takes JSON answers only.)
TEST_F(Process, StatusShowsIdleKeptConnectionsParkedAndNoWorkerBusyOnThem) {
    Proc& master = start_master("status-kept", 10);
    ASSERT_FALSE(HasFailure());
    std::vector<std::unique_ptr<it::fcgi::Connection>> connections;
    for (int i = 0; i < 4; ++i) {
        connections.push_back(std::make_unique<it::fcgi::Connection>(socket_path()));
        ASSERT_TRUE(answered(on_kept(*connections.back(), get("/healthz")), 200));
    }
    // The master takes what a worker parks in its own loop: wait for it to count them.
    Json::Value status;
    const auto deadline = Clock::now() + kWaitBound;
    while (true) {
        const it::fcgi::Response r = it::fcgi::request(socket_path(), get("/status"));
        ASSERT_TRUE(answered(r, 200));
        status = it::parse_json(r.body);
        if (status["parkedConnections"].asUInt() >= 2 || Clock::now() >= deadline) {
            break;
        }
        std::this_thread::sleep_for(Millis(20));
    }
    EXPECT_GE(status["parkedConnections"].asUInt(), 2U) << status;
    EXPECT_LE(status["parkedConnections"].asUInt(), 4U) << status;
    EXPECT_EQ(status["handoffQueue"].asUInt(), 0U) << status;
    EXPECT_EQ(status["workers"]["busy"].asUInt(), 1U) << "only the one answering: " << status;
    EXPECT_EQ(status["workers"]["idle"].asUInt(), 1U) << status;

    // Every one still serves its next request.
    for (auto& c : connections) {
        EXPECT_TRUE(answered(on_kept(*c, get("/healthz")), 200));
    }
    EXPECT_EQ(it::proc::count(master.log(), "closing it"), 0u);
    stop_cleanly(master);
}

// A stop does not wait for idle kept connections: workers on them park them and exit at once,
// long before shutdown-timeout, and the master closes them as it exits.
TEST_F(Process, StopClosesIdleKeptConnectionsAtOnce) {
    Proc& master = start_master("stop-kept", 10);
    ASSERT_FALSE(HasFailure());
    it::fcgi::Connection a(socket_path());
    it::fcgi::Connection b(socket_path());
    ASSERT_TRUE(answered(on_kept(a, get("/healthz")), 200));
    ASSERT_TRUE(answered(on_kept(b, get("/healthz")), 200));
    const Clock::time_point stopped_at = Clock::now();
    master.signal(SIGTERM);
    std::optional<it::proc::ExitStatus> st = master.wait_exit(Millis(8000));
    ASSERT_TRUE(st) << "idle kept connections held the stop";
    EXPECT_EQ(st->describe(), "exit 0");
    EXPECT_LT(millis_since(stopped_at), 8000);
    EXPECT_TRUE(closed_by_server(a.fd(), kWaitBound));
    EXPECT_TRUE(closed_by_server(b.fd(), kWaitBound));
    const std::string log = master.log();
    EXPECT_EQ(it::proc::count(log, "shutdown-timeout reached"), 0u);
    EXPECT_EQ(it::proc::count(log, "killed by signal"), 0u);
}

// ---------------------------------------------------------------------------------------------
// 6. shutdown-timeout escalation.

TEST_F(Process, ShutdownTimeoutKillsWorkersStuckInARequest) {
    // A valid key: the body is read only after the key is checked.
    const it::Shop shop = it::make_shop();
    Proc& master = start_master("stop-timeout", 1);
    ASSERT_FALSE(HasFailure());

    // Worker one waits for the rest of a body that never comes; worker two for the first
    // record of a connection that never sends one.
    it::fcgi::Request request = create_customer(shop.key, it::unique_email("stuck"));
    it::fcgi::Connection stuck_body(socket_path());
    stuck_body.send_head(request);
    stuck_body.send_stdin(std::string_view(request.body).substr(0, 5));
    it::fcgi::Connection stuck_silent(socket_path());
    std::this_thread::sleep_for(Millis(300));

    const Clock::time_point stop_at = Clock::now();
    master.signal(SIGTERM);
    std::optional<it::proc::ExitStatus> st = master.wait_exit(Millis(5000));
    ASSERT_TRUE(st) << "stuck requests kept the master alive past its shutdown-timeout";
    const long took = millis_since(stop_at);
    EXPECT_LE(took, 3000) << "exit took " << took << " ms with --shutdown-timeout 1";
    EXPECT_GE(took, 900) << "exit took " << took << " ms: the stuck request got no grace time";
    EXPECT_EQ(st->describe(), "exit 0");
    EXPECT_TRUE(master.leftovers().empty());

    const std::string log = master.log();
    EXPECT_EQ(it::proc::count(log, "shutdown-timeout reached"), 1u);
    EXPECT_EQ(it::proc::count(log, "killed by signal 9"), 2u);

    // The clients are not left hanging either.
    for (it::fcgi::Connection* c : {&stuck_body, &stuck_silent}) {
        try {
            const it::fcgi::Response r = c->read_response(Millis(2000));
            ADD_FAILURE() << "a killed worker answered: " << r.describe();
        } catch (const it::fcgi::Error& e) {
            EXPECT_EQ(e.kind(), it::fcgi::Error::Kind::closed) << e.what();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 7. Configuration errors and the informational flags.

TEST_F(Process, BadConfigurationIsRefusedWithTheReason) {
    // Unknown key in the file: 78 (EX_CONFIG), the key named, nothing bound.
    const std::string bad = dir_.file("bad.conf");
    {
        std::ofstream out(bad);
        out << it::proc::read_file(it::env().config) << "\nno-such-key = 1\n";
    }
    struct Case {
        std::string name;
        std::vector<std::string> args;
        int code;  // -2: any non-zero exit
        std::string on_stderr;
        std::string on_stdout;
    };
    const std::vector<Case> cases{
        {"unknown-key", {"--config", bad, "--listen", socket_path()}, 78, "no-such-key", ""},
        {"unknown-key-t", {"--config", bad, "--test-config"}, 78, "no-such-key", ""},
        {"good-t", {"--config", it::env().config, "--test-config"}, 0, "", "configuration OK"},
        {"workers-abc",
         {"--config", it::env().config, "--listen", socket_path(), "--workers", "abc"},
         -2,
         "workers",
         ""},
        {"bad-mode",
         {"--config", it::env().config, "--listen-mode", "999", "--test-config"},
         78,
         "listen-mode",
         ""},
        {"help", {"--help"}, 0, "", "--shutdown-timeout"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        Proc& p = spawn(c.name, c.args);
        std::optional<it::proc::ExitStatus> st = p.wait_exit(kExitTimeout);
        ASSERT_TRUE(st) << c.name << " did not exit";
        if (c.code == -2) {
            EXPECT_GT(st->code, 0) << st->describe();
        } else {
            EXPECT_EQ(st->describe(), "exit " + std::to_string(c.code));
        }
        EXPECT_NE(p.log().find(c.on_stderr), std::string::npos) << "stderr: " << p.log();
        EXPECT_NE(p.out().find(c.on_stdout), std::string::npos) << "stdout: " << p.out();
        EXPECT_EQ(it::proc::count(p.log(), "started worker"), 0u);
        EXPECT_FALSE(file_exists(socket_path())) << "a refused configuration bound its socket";
    }
}

// ---------------------------------------------------------------------------------------------
// 8. Database unavailable.

// With the database down, the start waits for it up to ready-timeout, accepting nothing; then
// it fails: no READY=1, every worker stopped, exit 1, and the log says why (docs/operations.md,
// "Start").
TEST_F(Process, StartWithTheDatabaseDownFailsAfterReadyTimeout) {
    NotifySocket notify(dir_.file("notify.sock"));
    Proc& master = spawn(
        "no-db",
        master_args(10, {"--db-socket", dir_.file("no-such-mysqld.sock"), "--ready-timeout", "2"}),
        -1, "", dir_.file("notify.sock"));
    std::optional<it::proc::ExitStatus> st = master.wait_exit(kStartTimeout);
    ASSERT_TRUE(st) << "the master did not give up";
    EXPECT_EQ(st->describe(), "exit 1");
    EXPECT_TRUE(master.leftovers().empty());
    EXPECT_EQ(notify.next(kWaitBound), "STOPPING=1") << "READY=1 without a database";

    const std::string log = master.log();
    EXPECT_EQ(it::proc::count(log, "ready: "), 0u);
    const std::vector<std::string> lines = it::proc::lines_with(log, "start failed: ");
    ASSERT_EQ(lines.size(), 1u) << log;
    EXPECT_NE(lines[0].find("only 0 of 2 workers connected within ready-timeout (2s)"),
              std::string::npos)
        << lines[0];
    EXPECT_NE(lines[0].find("cannot connect to the database"), std::string::npos) << lines[0];
    EXPECT_EQ(it::proc::count(log, "not accepting requests, retrying every second"), 2u) << log;
    EXPECT_EQ(it::proc::count(log, "signal"), 0u) << "a crash in the log";
    EXPECT_FALSE(file_exists(socket_path()));
}

// A database that comes within ready-timeout: the start waits for it, then serves.
TEST_F(Process, StartWaitsForADatabaseThatComesWithinReadyTimeout) {
    const std::string db_path = dir_.file("db.sock");
    Proc& master = spawn("late-db", master_args(10, {"--db-socket", db_path}));
    ASSERT_TRUE(
        master.wait_for_log("not accepting requests, retrying every second", kStartTimeout));
    // No old pool to fall back on: a reload now is ignored, and logged.
    master.signal(SIGHUP);
    EXPECT_TRUE(master.wait_for_log("SIGHUP ignored while starting", kWaitBound));
    std::this_thread::sleep_for(Millis(1500));
    EXPECT_TRUE(master.running());
    EXPECT_EQ(it::proc::count(master.log(), "ready: "), 0u) << "ready without a database";

    it::faults::DbFaultProxy database(db_path, it::db_socket());
    ASSERT_TRUE(ready(master));
    EXPECT_TRUE(answered(it::fcgi::request(socket_path(), get("/healthz"), kRequestTimeout), 200));
    stop_cleanly(master);
}

// ---------------------------------------------------------------------------------------------
// 9. The request's log line: its X-Request-Id, never the key.

TEST_F(Process, LogLineCarriesTheRequestIdAndNeverTheKey) {
    const it::Shop shop = it::make_shop();
    Proc& master = start_master("log", 10);
    ASSERT_FALSE(HasFailure());

    const std::string id = "proc-log-" + it::unique_suffix();
    it::fcgi::Request create = create_customer(shop.key, it::unique_email("log"));
    create.request_id = id;
    const it::fcgi::Response r = it::fcgi::request(socket_path(), create, kRequestTimeout);
    ASSERT_TRUE(answered(r, 201));
    EXPECT_EQ(r.header("x-request-id").value_or(""), id);

    // The same key as a Bearer token, and an unknown key (401).
    const std::string bearer_id = "proc-bearer-" + it::unique_suffix();
    it::fcgi::Request fetch =
        get("/api/v1/customers/" + std::to_string(r.json()["customer"]["id"].asInt64()));
    fetch.request_id = bearer_id;
    fetch.extra_params.emplace_back("HTTP_AUTHORIZATION", "Bearer " + shop.key);
    EXPECT_TRUE(answered(it::fcgi::request(socket_path(), fetch, kRequestTimeout), 200));
    const std::string unknown_key = "scrm_" + std::string(64, 'b');
    it::fcgi::Request refused = create_customer(unknown_key, it::unique_email("log"));
    refused.request_id = "proc-refused-" + it::unique_suffix();
    EXPECT_TRUE(answered(it::fcgi::request(socket_path(), refused, kRequestTimeout), 401));

    ASSERT_TRUE(master.wait_for_log("req=" + *refused.request_id, kWaitBound));
    const std::string log = master.log();
    const std::vector<std::string> lines = it::proc::lines_with(log, "req=" + id);
    ASSERT_FALSE(lines.empty()) << "no log line carries req=" << id;
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                            [](const std::string& l) {
                                return l.find("POST /api/v1/customers 201") != std::string::npos;
                            }),
              1)
        << lines[0];
    EXPECT_FALSE(it::proc::lines_with(log, "req=" + bearer_id).empty());
    EXPECT_EQ(log.find(shop.key), std::string::npos) << "the API key is in the log";
    EXPECT_EQ(log.find(shop.key.substr(5)), std::string::npos) << "the key's hex is in the log";
    EXPECT_EQ(log.find(it::sha256_hex(shop.key)), std::string::npos) << "its digest is logged";
    EXPECT_EQ(log.find(unknown_key), std::string::npos) << "an unknown key is in the log";
    stop_cleanly(master);
}

// ---------------------------------------------------------------------------------------------
// 10. The re-index task (fcgi/reindex_task.h, sql/020): what a previous binary wrote while
// `migrate` walked the search data is found once the pool's own workers are the only ones.

// The tickets GET /api/v1/tickets?q=WORD lists (200 expected).
std::vector<std::string> found_by(const it::Shop& shop, const std::string& word) {
    const it::HttpResponse r = it::get("/api/v1/tickets?q=" + word, shop);
    std::vector<std::string> out;
    if (!it::is_success(r, 200)) {
        ADD_FAILURE() << r.describe();
        return out;
    }
    for (const Json::Value& t : r.json()["tickets"]) {
        out.push_back(t["id"].asString());
    }
    return out;
}

// As a binary from before the index (or with another rule) writes: a new name and a comment,
// no words. Then the recheck `migrate` asks for after its walk.
void write_behind_the_index(it::Db& db, const std::string& ticket, const std::string& name_word,
                            const std::string& comment_word) {
    ASSERT_EQ(db.execute("UPDATE conversations SET name = ?, updated_at = NOW(3) WHERE id = ?",
                         {"renamed " + name_word, ticket}),
              0);
    // No queue row either (sql/023's trigger): that binary ran no search indexer. Deleted in
    // the insert's transaction, so the pool's indexer never sees it.
    ASSERT_EQ(db.execute("START TRANSACTION", {}), 0);
    ASSERT_EQ(db.execute("INSERT INTO messages (conversation_id, text, time, channel, "
                         "is_from_shop, to_emails, tags, created_at) "
                         "VALUES (?, ?, NOW(3), 'Mail', 0, '[]', '[]', NOW(3))",
                         {ticket, "written behind the index " + comment_word}),
              0);
    ASSERT_EQ(
        db.execute("DELETE FROM comment_words_pending WHERE comment_id = LAST_INSERT_ID()", {}), 0);
    ASSERT_EQ(db.execute("COMMIT", {}), 0);
    ASSERT_EQ(db.execute("UPDATE search_reindex SET recheck = 1", {}), 0);
}

// The walk covers every ticket the suite has made so far (a sanitizer build is slower).
constexpr Millis kWalkBound{300000};

TEST_F(Process, TheReindexTaskFindsWhatWasWrittenBehindTheMigrate) {
    const it::tickets::World w = it::tickets::make_world();
    const std::string ticket = it::tickets::create_ticket_id(w);
    it::Db db;
    const std::string name_word = it::unique_word("behindname");
    const std::string comment_word = it::unique_word("behindtext");
    write_behind_the_index(db, ticket, name_word, comment_word);
    ASSERT_TRUE(found_by(w.shop, name_word).empty()) << "the index never saw the new name";
    ASSERT_TRUE(found_by(w.shop, comment_word).empty());

    // A start: no older workers, so the task runs once the pool serves.
    Proc& master = start_master("reindex", 10, {"--search-reindex-task=true"});
    ASSERT_TRUE(master.wait_for_log("re-index task: the search data was walked again", kWalkBound))
        << master.log();
    EXPECT_EQ(found_by(w.shop, name_word), std::vector<std::string>{ticket});
    EXPECT_EQ(found_by(w.shop, comment_word), std::vector<std::string>{ticket});
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM search_reindex WHERE recheck = 1 OR "
                       "finished_at IS NULL"),
              0);

    // A reload: the new image's task waits for the previous workers to exit.
    const std::string later_name = it::unique_word("reloadname");
    const std::string later_text = it::unique_word("reloadtext");
    write_behind_the_index(db, ticket, later_name, later_text);
    master.signal(SIGHUP);
    ASSERT_TRUE(
        master.wait_for_log("re-index task: the search data was walked again", kWalkBound, 2))
        << master.log();
    const std::string after_reload = log_after(master.log(), "reloading: ");
    const size_t task_started = after_reload.find("started re-index task");
    ASSERT_NE(task_started, std::string::npos) << after_reload;
    EXPECT_EQ(it::proc::count(after_reload.substr(0, task_started), "exited with status 0 "), 2u)
        << "the task started before both previous workers had exited:\n"
        << after_reload;
    EXPECT_EQ(found_by(w.shop, later_name), std::vector<std::string>{ticket});
    EXPECT_EQ(found_by(w.shop, later_text), std::vector<std::string>{ticket});
    EXPECT_TRUE(found_by(w.shop, name_word).empty()) << "the name's old word went with it";
    stop_cleanly(master);
}

// A database of its own (the stack's user may make supportcrm_scratch_* ones), dropped at the
// end, with only the migrations up to `last_version` applied: the schema a previous release
// left.
class ScratchDatabase {
  public:
    ScratchDatabase(const it::proc::TempDir& dir, int last_version)
        : name_(it::unique_word("supportcrm_scratch_")) {
        if (db_.execute("CREATE DATABASE " + name_ + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
                        {}) != 0) {
            throw std::runtime_error("CREATE DATABASE " + name_ + " failed");
        }
        const std::string older = dir.file("sql-up-to-" + std::to_string(last_version));
        std::filesystem::create_directory(older);
        const std::string all = it::read_ini(it::env().config).at("migrations-dir");
        for (const auto& entry : std::filesystem::directory_iterator(all)) {
            const std::string file = entry.path().filename().string();
            if (entry.path().extension() == ".sql" && std::stoi(file) <= last_version) {
                std::filesystem::copy_file(entry.path(), older + "/" + file);
            }
        }
        migrate({"--migrations-dir", older});
    }
    ~ScratchDatabase() {
        try {
            db_.execute("DROP DATABASE IF EXISTS " + name_, {});
        } catch (const std::exception&) {
            // The stack's MariaDB goes with the run.
        }
    }
    ScratchDatabase(const ScratchDatabase&) = delete;
    ScratchDatabase& operator=(const ScratchDatabase&) = delete;

    const std::string& name() const { return name_; }
    // supportcrm-admin migrate on this database (and `more` arguments before the command).
    void migrate(std::vector<std::string> more = {}) const {
        std::vector<std::string> args{"--db-name", name_};
        args.insert(args.end(), more.begin(), more.end());
        args.push_back("migrate");
        const it::AdminResult r = it::admin_raw(args);
        if (r.exit_code != 0) {
            throw std::runtime_error("migrate of " + name_ + " failed: " + r.err);
        }
    }

  private:
    it::Db db_;
    std::string name_;
};

// The package reloads before it migrates (debian/postinst): a new pool whose statements the
// older schema lacks waits for the migrate past ready-timeout, the old workers serving, and
// takes over once the migrate is in, with no second reload.
TEST_F(Process, AReloadOntoAnOlderSchemaWaitsForTheMigrate) {
    const ScratchDatabase older(dir_, 16);  // before sql/017's has_human_ticket
    const std::string config = copy_config("wait.conf");
    std::vector<std::string> args = master_args(10, {"--ready-timeout", "1"});
    args[1] = config;  // --config
    Proc& master = spawn("wait-for-migrate", args);
    ASSERT_TRUE(ready(master));

    std::string text;
    for (const std::string& line : it::proc::lines_with(it::proc::read_file(config), "")) {
        text += (line.rfind("db-name", 0) == 0 ? "db-name = " + older.name() : line) + "\n";
    }
    write_file(config, text);
    master.signal(SIGHUP);
    ASSERT_TRUE(master.wait_for_log("reload waits for supportcrm-admin migrate: ", kWaitBound))
        << master.log();
    EXPECT_TRUE(master.wait_for_log("the schema is not migrated: ", Millis(0)));
    EXPECT_TRUE(answered(it::fcgi::request(socket_path(), get("/healthz"), kRequestTimeout), 200))
        << "the previous workers serve meanwhile";

    older.migrate();
    EXPECT_TRUE(ready_after_last_reload(master)) << master.log();
    EXPECT_EQ(it::proc::count(master.log(), "reload abandoned"), 0u) << master.log();
    EXPECT_TRUE(answered(it::fcgi::request(socket_path(), get("/healthz"), kRequestTimeout), 200));
    stop_cleanly(master);
}

// The backfills of sql/014 and sql/017 run in batches of ids (db/migrations.cpp,
// run_in_batches): over more tickets than two batches hold, no ticket is left out, the last
// ones included.
TEST_F(Process, BatchedBackfillsReachEveryTicket) {
    const ScratchDatabase older(dir_, 13);  // before sql/014's ticket_tags
    const std::string d = older.name() + ".";
    it::Db db;
    ASSERT_EQ(db.execute("INSERT INTO " + d + "shops (domain, created_at) VALUES (?, NOW(3))",
                         {std::string("batches.example")}),
              0);
    ASSERT_EQ(
        db.execute("INSERT INTO " + d + "customers (shop_id, created_at) SELECT id, NOW(3) FROM " +
                       d + "shops",
                   {}),
        0);
    ASSERT_EQ(db.execute("INSERT INTO " + d +
                             "conversations (shop_id, customer_id, channel, date, "
                             "last_message_time, tags, created_at) SELECT c.shop_id, c.id, "
                             "'Mail', NOW(3), NOW(3), JSON_ARRAY(CONCAT('t', s.seq)), NOW(3) "
                             "FROM " +
                             d + "customers c JOIN seq_1_to_11001 s",
                         {}),
              0);
    // Every third ticket in id order (ids are not consecutive on Galera: auto_increment_increment).
    ASSERT_EQ(db.execute("INSERT INTO " + d +
                             "human_tickets (conversation_id, status, opened_at) SELECT id, "
                             "'OPEN', NOW(3) FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS n "
                             "FROM " +
                             d + "conversations) t WHERE n % 3 = 0",
                         {}),
              0);
    older.migrate();
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM " + d + "ticket_tags"), 11001);
    EXPECT_EQ(db.count("SELECT COUNT(*) FROM " + d + "conversations WHERE has_human_ticket = 1"),
              3667);
    EXPECT_EQ(db.count("SELECT has_human_ticket FROM " + d + "conversations WHERE id = (SELECT " +
                       "MAX(conversation_id) FROM " + d + "human_tickets)"),
              1)
        << "a ticket of the last batch";
}

TEST_F(Process, TheReindexTaskWithNothingToDoExitsAtOnce) {
    it::Db db;
    ASSERT_EQ(db.count("SELECT COUNT(*) FROM search_reindex WHERE recheck = 1 OR "
                       "finished_at IS NULL"),
              0)
        << "a test left a re-index pending";
    Proc& master = start_master("reindex-idle", 10, {"--search-reindex-task=true"});
    ASSERT_TRUE(master.wait_for_log("started re-index task", kWaitBound));
    EXPECT_TRUE(master.wait_for_log("exited with status 0 ", kWaitBound)) << master.log();
    EXPECT_EQ(it::proc::count(master.log(), "re-index task: the search data"), 0u);
    EXPECT_TRUE(master.wait_for_children(2, kWaitBound));
    stop_cleanly(master);
}

}  // namespace

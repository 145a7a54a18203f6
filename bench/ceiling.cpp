// supportcrm-bench-ceiling: the reference rungs of bench/run (docs/performance.md, "Rows and
// rungs").
//
// The least a pre-forked libfcgi + Connector/C++ responder can do per request, so that the
// service's throughput can be read as a fraction of what this stack allows at all:
//
//   --mode read    one primary-key SELECT of a customer (statement prepared once per worker),
//                  the id taken from the query string (`?id=N`): the DB-read ceiling
//   --mode write   one INSERT of a customer row (unique email) + COMMIT: the write ceiling,
//                  into bench_ceiling_writes (bench/run makes it LIKE customers: the same
//                  columns and indexes, none of customers' triggers, whose event row and
//                  search-queue row, and the indexer's words after, are work of the service's)
//
// Same process model as supportcrm-fcgi: a master that binds the unix socket and forks
// --workers workers, each with its own database connection. It does no routing, no
// authentication, no JSON parsing and no logging per request: everything the service does
// beyond this is what the ratio in bench/run's table measures.
//
// Usage:
//   supportcrm-bench-ceiling --mode read|write --listen PATH --workers N --db-socket PATH
//       [--db-name supportcrm] [--db-user supportcrm] --db-password-file FILE --shop-id ID
// Stops on SIGTERM / SIGINT (the workers with it).
#include <cppconn/connection.h>
#include <cppconn/driver.h>
#include <cppconn/exception.h>
#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>
#include <cppconn/statement.h>
#include <fcgiapp.h>
#include <fcntl.h>
#include <mysql_driver.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fcgi/parking.h"

namespace {

struct Options {
    std::string mode;
    std::string listen;
    int workers = 2;
    std::string db_socket;
    std::string db_name = "supportcrm";
    std::string db_user = "supportcrm";
    std::string db_password_file;
    std::uint64_t shop_id = 0;
};

[[noreturn]] void usage(const std::string& message) {
    std::fprintf(stderr,
                 "supportcrm-bench-ceiling: %s\n"
                 "usage: supportcrm-bench-ceiling --mode read|write --listen PATH --workers N "
                 "--db-socket PATH [--db-name N] [--db-user U] --db-password-file FILE "
                 "--shop-id ID\n",
                 message.c_str());
    std::exit(2);
}

Options parse_options(int argc, char** argv) {
    std::map<std::string, std::string> values;
    for (int i = 1; i < argc; i += 2) {
        std::string name = argv[i];
        if (name.rfind("--", 0) != 0 || i + 1 >= argc) {
            usage("bad argument '" + name + "'");
        }
        values[name.substr(2)] = argv[i + 1];
    }
    Options o;
    for (const auto& [name, value] : values) {
        if (name == "mode") {
            o.mode = value;
        } else if (name == "listen") {
            o.listen = value;
        } else if (name == "workers") {
            o.workers = std::atoi(value.c_str());
        } else if (name == "db-socket") {
            o.db_socket = value;
        } else if (name == "db-name") {
            o.db_name = value;
        } else if (name == "db-user") {
            o.db_user = value;
        } else if (name == "db-password-file") {
            o.db_password_file = value;
        } else if (name == "shop-id") {
            o.shop_id = std::strtoull(value.c_str(), nullptr, 10);
        } else {
            usage("unknown option --" + name);
        }
    }
    if (o.mode != "read" && o.mode != "write") {
        usage("--mode must be read or write");
    }
    if (o.listen.empty() || o.db_socket.empty() || o.db_password_file.empty()) {
        usage("--listen, --db-socket and --db-password-file are required");
    }
    if (o.workers < 1 || o.workers > 64) {
        usage("--workers must be 1..64");
    }
    if (o.mode == "write" && o.shop_id == 0) {
        usage("--mode write needs --shop-id");
    }
    return o;
}

std::string read_password(const std::string& file) {
    std::ifstream in(file);
    std::string line;
    if (!in || !std::getline(in, line)) {
        throw std::runtime_error("cannot read " + file);
    }
    return line;
}

int bind_unix(const std::string& path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) {
        throw std::runtime_error("socket path too long: " + path);
    }
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    unlink(path.c_str());
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
        chmod(path.c_str(), 0666) != 0 || listen(fd, 511) != 0) {
        throw std::runtime_error("cannot listen on " + path + ": " + std::strerror(errno));
    }
    return fd;
}

void append_json_string(std::string& out, const std::string& s) {
    out.push_back('"');
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(c);
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
            out.append(buf);
        } else {
            out.push_back(c);
        }
    }
    out.push_back('"');
}

void respond(FCGX_Request& r, int status, const std::string& body) {
    std::string head = "Status: " + std::to_string(status) + (status == 200 ? " OK" : " Error") +
                       "\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: " +
                       std::to_string(body.size()) + "\r\n\r\n";
    FCGX_PutStr(head.data(), static_cast<int>(head.size()), r.out);
    FCGX_PutStr(body.data(), static_cast<int>(body.size()), r.out);
}

// The id of `id=N` in a query string (0 when absent).
std::uint64_t query_id(const char* query) {
    if (query == nullptr) {
        return 0;
    }
    const char* p = std::strstr(query, "id=");
    return p == nullptr ? 0 : std::strtoull(p + 3, nullptr, 10);
}

// One worker's connection and its single prepared statement.
class Worker {
  public:
    explicit Worker(const Options& o) : o_(o), password_(read_password(o.db_password_file)) {
        // A per-process prefix keeps the write rung's emails unique across workers and runs.
        timespec ts{};
        clock_gettime(CLOCK_REALTIME, &ts);
        email_prefix_ =
            "ceiling-" + std::to_string(ts.tv_sec) + "-" + std::to_string(getpid()) + "-";
    }

    void connect() {
        statement_.reset();
        connection_.reset();
        sql::ConnectOptionsMap options;
        options["hostName"] = sql::SQLString("localhost");
        options["socket"] = sql::SQLString(o_.db_socket);
        options["userName"] = sql::SQLString(o_.db_user);
        options["password"] = sql::SQLString(password_);
        options["schema"] = sql::SQLString(o_.db_name);
        options["OPT_CHARSET_NAME"] = sql::SQLString("utf8mb4");
        options["OPT_RECONNECT"] = false;
        connection_.reset(sql::mysql::get_mysql_driver_instance()->connect(options));
        if (o_.mode == "read") {
            statement_.reset(connection_->prepareStatement(
                "SELECT id, email, full_name, created_at FROM customers WHERE id = ?"));
        } else {
            connection_->setAutoCommit(false);
            statement_.reset(connection_->prepareStatement(
                "INSERT INTO bench_ceiling_writes (shop_id, email, email_key, created_at) "
                "VALUES (?, ?, ?, UTC_TIMESTAMP(3)) RETURNING id"));
        }
    }

    void serve(FCGX_Request& r) {
        std::string body;
        int status = 200;
        try {
            if (!connection_) {
                connect();
            }
            status = o_.mode == "read" ? read(query_id(FCGX_GetParam("QUERY_STRING", r.envp)), body)
                                       : write(body);
        } catch (const sql::SQLException& e) {
            std::fprintf(stderr, "supportcrm-bench-ceiling[%d]: SQL error %d: %s\n", getpid(),
                         e.getErrorCode(), e.what());
            statement_.reset();
            connection_.reset();  // reconnect on the next request
            status = 500;
            body = R"({"success":false,"code":"internal_error"})";
        }
        respond(r, status, body);
    }

  private:
    int read(std::uint64_t id, std::string& body) {
        statement_->setUInt64(1, id);
        std::unique_ptr<sql::ResultSet> rs(statement_->executeQuery());
        if (!rs->next()) {
            body = R"({"success":false,"code":"not_found"})";
            return 404;
        }
        body = R"({"success":true,"customer":{"id":)";
        body += std::to_string(rs->getUInt64(1));
        body += R"(,"email":)";
        append_json_string(body, rs->isNull(2) ? std::string() : std::string(rs->getString(2)));
        body += R"(,"full_name":)";
        append_json_string(body, rs->isNull(3) ? std::string() : std::string(rs->getString(3)));
        body += R"(,"creationDate":)";
        append_json_string(body, rs->getString(4));
        body += "}}";
        return 200;
    }

    int write(std::string& body) {
        std::string email = email_prefix_ + std::to_string(++counter_) + "@ceiling.example";
        statement_->setUInt64(1, o_.shop_id);
        statement_->setString(2, email);
        statement_->setString(3, email);
        std::uint64_t id = 0;
        {
            std::unique_ptr<sql::ResultSet> rs(statement_->executeQuery());
            if (rs->next()) {
                id = rs->getUInt64(1);
            }
        }
        connection_->commit();
        body = R"({"success":true,"id":)" + std::to_string(id) + "}";
        return 200;
    }

    const Options& o_;
    std::string password_;
    std::string email_prefix_;
    std::uint64_t counter_ = 0;
    std::unique_ptr<sql::Connection> connection_;
    std::unique_ptr<sql::PreparedStatement> statement_;
};

// With nginx's keep-alive (fastcgi_keep_conn) the connection stays open after a request
// (FCGI_KEEP_CONN), and the rung gives its idle kept connections up as the pool does
// (fcgi/worker.cpp, fcgi/parking.h, with the same code for the hand-off): a worker waits on
// its kept connection, the listening socket and the hand-off channel together; when a
// connection waits in the listen queue or the master hands on a parked one with a request, it
// parks its own with the master (never closes it under a request nginx may be sending) and
// takes that one. So a +ka row's ratio is to a rung with the same model, and the rung's write
// mode no longer fails requests on the close race. Without a kept connection, nothing is
// parked: the worker polls, then accepts (the listen socket is non-blocking).
void exit_now(int) {
    _exit(0);
}

struct Ready {
    bool kept = false;
    bool handoff = false;
    bool listener = false;
};

Ready wait_ready(int kept, int listen_fd, int handoff) {
    pollfd p[3] = {{listen_fd, POLLIN, 0}, {handoff, POLLIN, 0}, {kept, POLLIN, 0}};
    while (poll(p, kept >= 0 ? 3 : 2, -1) < 0 && errno == EINTR) {
    }
    Ready r;
    r.listener = (p[0].revents & POLLIN) != 0;
    r.handoff = (p[1].revents & POLLIN) != 0;
    r.kept = kept >= 0 && (p[2].revents & (POLLIN | POLLHUP | POLLERR)) != 0;
    return r;
}

// The kept connection goes to the master (idle), straight behind the hand-off queue (nginx
// sent its next request already), or is closed (nginx closed it): fcgi/worker.cpp's park().
void park(FCGX_Request& request, const supportcrm::HandoffChannel& channel) {
    const supportcrm::Pending now = supportcrm::pending(request.ipcFd);
    if (now != supportcrm::Pending::closed) {
        const int to =
            now == supportcrm::Pending::request ? channel.master_end() : channel.pool_end();
        if (!supportcrm::send_fd(to, request.ipcFd)) {
            std::fprintf(stderr, "supportcrm-bench-ceiling[%d]: parking failed: %s\n", getpid(),
                         std::strerror(errno));
        }
    }
    close(request.ipcFd);
    request.ipcFd = -1;
}

// Chooses the connection to serve next, in the pool's order: the hand-off and the listen
// queue in turn when both wait, the worker's own kept connection last. False: nothing to serve.
bool take_next(FCGX_Request& request, const Ready& ready, int listen_fd,
               const supportcrm::HandoffChannel& channel) {
    static bool handoff_first = true;
    if (supportcrm::take_in_turn(handoff_first, ready.handoff, ready.listener, [&](bool handoff) {
            if (!handoff && request.ipcFd < 0) {
                return true;  // libfcgi accepts (EAGAIN when another worker was quicker)
            }
            supportcrm::Fd other =
                handoff ? supportcrm::receive_fd(channel.pool_end())
                        : supportcrm::Fd(accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC));
            if (!other) {
                return false;
            }
            if (request.ipcFd >= 0) {
                park(request, channel);
            }
            request.ipcFd = other.release();
            request.keepConnection = 1;  // FCGX_Accept_r must not close it before reading
            return true;
        })) {
        return true;
    }
    return ready.kept;
}

int run_worker(int listen_fd, const supportcrm::HandoffChannel& channel, const Options& o) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    // Not SIG_DFL: libfcgi installs its own SIGTERM handler where the default is set, which
    // only flags a shutdown that its accept() looks at, and a worker waiting in poll() would
    // retry forever; the master waits for its workers to exit.
    signal(SIGTERM, exit_now);
    signal(SIGINT, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (FCGX_Init() != 0) {
        std::fprintf(stderr, "supportcrm-bench-ceiling: FCGX_Init failed\n");
        return 1;
    }
    Worker worker(o);
    try {
        worker.connect();  // prepared once, before the first request
    } catch (const sql::SQLException& e) {
        std::fprintf(stderr, "supportcrm-bench-ceiling[%d]: cannot connect: %s\n", getpid(),
                     e.what());
        return 1;
    }
    FCGX_Request request;
    FCGX_InitRequest(&request, listen_fd, 0);
    while (true) {
        const Ready ready = wait_ready(request.ipcFd, listen_fd, channel.pool_end());
        if (!take_next(request, ready, listen_fd, channel)) {
            continue;
        }
        const int rc = FCGX_Accept_r(&request);
        if (rc < 0) {
            if (rc == -EAGAIN || rc == -EWOULDBLOCK || rc == -EINTR) {
                continue;
            }
            break;
        }
        worker.serve(request);
        FCGX_Finish_r(&request);
    }
    return 0;
}

// The master: the parked connections (fcgi/parking.h) and the signals, in one poll; the
// parked ones are expired once a second.
int run_master(supportcrm::Parking& parking, const std::vector<pid_t>& children,
               const sigset_t& wanted) {
    supportcrm::Fd signals(signalfd(-1, &wanted, SFD_CLOEXEC | SFD_NONBLOCK));
    int status_code = 0;
    auto next_expiry = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (true) {
        pollfd p[2] = {{signals.get(), POLLIN, 0}, {parking.fd(), POLLIN, 0}};
        poll(p, 2, 1000);
        parking.service();
        if (std::chrono::steady_clock::now() >= next_expiry) {  // also under constant load
            parking.expire();
            next_expiry = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        }
        signalfd_siginfo info{};
        if (read(signals.get(), &info, sizeof info) != sizeof info) {
            continue;
        }
        if (info.ssi_signo == SIGCHLD) {
            // A worker died (it printed why): a ceiling with fewer workers is no ceiling.
            int status = 0;
            const pid_t pid = waitpid(-1, &status, WNOHANG);
            if (pid <= 0) {
                continue;
            }
            std::fprintf(stderr, "supportcrm-bench-ceiling: worker %d ended (status %d)\n", pid,
                         status);
            status_code = 1;
        }
        break;
    }
    for (pid_t pid : children) {
        kill(pid, SIGTERM);
    }
    while (waitpid(-1, nullptr, 0) > 0) {
    }
    return status_code;
}

}  // namespace

int main(int argc, char** argv) {
    Options o = parse_options(argc, argv);
    int listen_fd = -1;
    try {
        listen_fd = bind_unix(o.listen);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "supportcrm-bench-ceiling: %s\n", e.what());
        return 1;
    }
    // Blocked in the master (its signalfd reads them) and in each worker until it unblocks.
    sigset_t wanted;
    sigemptyset(&wanted);
    sigaddset(&wanted, SIGTERM);
    sigaddset(&wanted, SIGINT);
    sigaddset(&wanted, SIGCHLD);
    sigprocmask(SIG_BLOCK, &wanted, nullptr);
    // Workers that lose the race for a connection go back to waiting, not into accept(2).
    fcntl(listen_fd, F_SETFL, fcntl(listen_fd, F_GETFL) | O_NONBLOCK);
    supportcrm::HandoffChannel channel;
    supportcrm::Parking parking(channel.master_end(), {});

    std::vector<pid_t> children;
    for (int i = 0; i < o.workers; ++i) {
        pid_t pid = fork();
        if (pid < 0) {
            std::perror("fork");
            return 1;
        }
        if (pid == 0) {
            parking.close_in_child();
            _exit(run_worker(listen_fd, channel, o));
        }
        children.push_back(pid);
    }
    std::fprintf(stderr, "supportcrm-bench-ceiling: mode %s, %d workers on %s\n", o.mode.c_str(),
                 o.workers, o.listen.c_str());
    const int status_code = run_master(parking, children, wanted);
    unlink(o.listen.c_str());
    return status_code;
}

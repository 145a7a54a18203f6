#include "db_fault_proxy.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>
#include <stdexcept>

#include "process_fixtures.h"

namespace it::faults {
namespace {

constexpr unsigned char kComQuery = 0x03;
constexpr unsigned char kComStmtPrepare = 0x16;
constexpr unsigned char kComStmtExecute = 0x17;
constexpr uint32_t kClientSsl = 0x0800;
constexpr size_t kHeader = 4;  // 3-byte length + sequence number

std::string errno_text(int err) {
    return std::string(std::strerror(err)) + " (errno " + std::to_string(err) + ")";
}

uint32_t le(const std::string& bytes, size_t at, size_t width) {
    uint32_t v = 0;
    for (size_t i = 0; i < width; ++i) {
        v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
    }
    return v;
}

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

// A connected unix stream socket, or a closed Fd (errno set).
Fd connect_unix(const std::string& path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) {
        errno = ENAMETOOLONG;
        return Fd();
    }
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (fd.open() &&
        ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        fd.reset();
    }
    return fd;
}

// Blocking write of all bytes; MSG_NOSIGNAL so that a peer that is gone cannot kill the test
// process with SIGPIPE.
bool send_all(int fd, const char* data, size_t size) {
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

// Bytes of the first packet of `stream` once it is complete (header included), else "".
std::string first_packet(const std::string& stream) {
    if (stream.size() < kHeader) {
        return {};
    }
    const size_t total = kHeader + le(stream, 0, 3);
    return stream.size() >= total ? stream.substr(0, total) : std::string();
}

}  // namespace

void Fd::reset() {
    if (fd_ >= 0) {
        const int errno_before = errno;  // close() must not change what a caller reports
        ::close(fd_);
        errno = errno_before;
        fd_ = -1;
    }
}

std::string Command::describe() const {
    return query.empty() ? "COM_STMT_EXECUTE of \"" + statement_prefix + "...\""
                         : "COM_QUERY \"" + query + "\"";
}

struct DbFaultProxy::Session {
    Fd client;
    Fd server;
    uint64_t thread_id = 0;    // from the greeting; read by other threads under mutex_
    std::string client_bytes;  // an incomplete client packet, held back until it is whole
    // The start of a server answer being read as it is relayed: the greeting, or the answer
    // to COM_STMT_PREPARE (whose first packet carries the statement id).
    std::string answer_head;
    bool want_greeting = true;
    bool want_prepare_answer = false;
    std::string preparing;  // SQL of the COM_STMT_PREPARE in flight
    bool drop_on_answer = false;
    std::map<uint32_t, std::string> statements;  // statement id -> SQL
};

DbFaultProxy::DbFaultProxy(std::string listen_path, std::string server_path)
    : listen_path_(std::move(listen_path)), server_path_(std::move(server_path)) {
    listen_fd_ = Fd(it::proc::listen_unix(listen_path_, 16));
    int wake[2];
    if (::pipe2(wake, O_CLOEXEC) != 0) {
        throw std::runtime_error("pipe2: " + errno_text(errno));
    }
    wake_read_ = Fd(wake[0]);
    wake_write_ = Fd(wake[1]);
    thread_ = std::thread([this] {
        try {
            run();
        } catch (const std::exception& e) {  // reported by problem(), never std::terminate
            std::lock_guard<std::mutex> lock(mutex_);
            problem_ = std::string("proxy thread: ") + e.what();
        }
    });
}

DbFaultProxy::~DbFaultProxy() {
    const char stop = 's';
    if (::write(wake_write_.get(), &stop, 1) != 1) {
        // The pipe cannot be full (one byte ever); nothing else to do.
    }
    thread_.join();
    sessions_.clear();  // closes both sockets of each
    listen_fd_.reset();
    ::unlink(listen_path_.c_str());
}

void DbFaultProxy::arm(Action action, Command command) {
    std::lock_guard<std::mutex> lock(mutex_);
    action_ = action;
    command_ = std::move(command);
    armed_ = true;
    fired_ = false;
}

bool DbFaultProxy::wait_fired(Millis timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, timeout, [this] { return fired_; });
}

bool DbFaultProxy::fired() {
    std::lock_guard<std::mutex> lock(mutex_);
    return fired_;
}

std::vector<uint64_t> DbFaultProxy::thread_ids() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<uint64_t> ids;
    for (const auto& s : sessions_) {
        if (s->client.open() && s->thread_id != 0) {
            ids.push_back(s->thread_id);
        }
    }
    return ids;
}

int DbFaultProxy::accepted() {
    std::lock_guard<std::mutex> lock(mutex_);
    return accepted_;
}

std::string DbFaultProxy::problem() {
    std::lock_guard<std::mutex> lock(mutex_);
    return problem_;
}

void DbFaultProxy::run() {
    while (true) {
        std::vector<pollfd> fds{{wake_read_.get(), POLLIN, 0}, {listen_fd_.get(), POLLIN, 0}};
        std::vector<Session*> order;
        for (auto& s : sessions_) {
            fds.push_back({s->client.get(), POLLIN, 0});
            fds.push_back({s->server.get(), POLLIN, 0});
            order.push_back(s.get());
        }
        const int n = ::poll(fds.data(), fds.size(), 200);
        if (n < 0 && errno != EINTR) {
            std::lock_guard<std::mutex> lock(mutex_);
            problem_ = "poll: " + errno_text(errno);
            return;
        }
        if (n <= 0) {
            continue;
        }
        if (fds[0].revents != 0) {
            return;
        }
        for (size_t i = 0; i < order.size(); ++i) {
            Session& s = *order[i];
            if (fds[2 + 2 * i].revents != 0 && s.client.open()) {
                from_client(s);
            }
            if (fds[3 + 2 * i].revents != 0 && s.server.open()) {
                from_server(s);
            }
        }
        if (fds[1].revents != 0) {
            accept_one();
        }
        std::lock_guard<std::mutex> lock(mutex_);
        sessions_.erase(std::remove_if(sessions_.begin(), sessions_.end(),
                                       [](const auto& s) { return !s->client.open(); }),
                        sessions_.end());
    }
}

void DbFaultProxy::accept_one() {
    Fd client(::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!client.open()) {
        return;
    }
    Fd server = connect_unix(server_path_);
    if (!server.open()) {
        const int err = errno;
        std::lock_guard<std::mutex> lock(mutex_);
        problem_ = "connect " + server_path_ + ": " + errno_text(err);
        return;
    }
    auto s = std::make_unique<Session>();
    s->client = std::move(client);
    s->server = std::move(server);
    std::lock_guard<std::mutex> lock(mutex_);
    ++accepted_;
    sessions_.push_back(std::move(s));
}

void DbFaultProxy::close_session(Session& s) {
    // Both sides at once: the server sees its client leave (and rolls back an open
    // transaction), the pool sees the connection lost.
    std::lock_guard<std::mutex> lock(mutex_);
    s.client.reset();
    s.server.reset();
}

void DbFaultProxy::fire(Session& s) {
    // fired() must be true before anyone can see the fault: the pool notices the closed socket at
    // once and answers, and a test that checks fired() after that answer would otherwise race
    // this thread (on a busy machine it lost: fired() false after the 503 the fault caused).
    std::lock_guard<std::mutex> lock(mutex_);
    fired_ = true;
    s.client.reset();
    s.server.reset();
    changed_.notify_all();
}

bool DbFaultProxy::matches(const Session& s, const std::string& payload) const {
    const auto type = static_cast<unsigned char>(payload[0]);
    if (!command_.query.empty()) {
        return type == kComQuery && iequals(std::string_view(payload).substr(1), command_.query);
    }
    if (type != kComStmtExecute || payload.size() < 5) {
        return false;
    }
    const auto found = s.statements.find(le(payload, 1, 4));
    return found != s.statements.end() && found->second.rfind(command_.statement_prefix, 0) == 0;
}

void DbFaultProxy::on_client_packet(Session& s, const std::string& packet, bool& drop,
                                    bool& drop_later) {
    const std::string payload = packet.substr(kHeader);
    const auto sequence = static_cast<unsigned char>(packet[3]);
    if (sequence == 1 && payload.size() == 32 && (le(payload, 0, 4) & kClientSsl) != 0) {
        std::lock_guard<std::mutex> lock(mutex_);
        problem_ = "the client asked for TLS: the proxy cannot read the conversation";
        return;
    }
    // During the handshake the client only answers the server (sequence >= 1); a packet that
    // opens an exchange (sequence 0) is a command.
    if (sequence != 0 || payload.empty()) {
        return;
    }
    if (static_cast<unsigned char>(payload[0]) == kComStmtPrepare) {
        s.preparing = payload.substr(1);
        s.want_prepare_answer = true;
        s.answer_head.clear();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (armed_ && !fired_ && matches(s, payload)) {
        armed_ = false;
        if (action_ == Action::drop_before) {
            drop = true;
        } else {
            drop_later = true;
        }
    }
}

bool DbFaultProxy::from_client(Session& s) {
    char buf[65536];
    const ssize_t n = ::recv(s.client.get(), buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) {
        return true;
    }
    if (n <= 0) {
        close_session(s);
        return false;
    }
    s.client_bytes.append(buf, static_cast<size_t>(n));
    // Whole packets only: a command is forwarded, or not, after it was read entirely.
    while (true) {
        const std::string packet = first_packet(s.client_bytes);
        if (packet.empty()) {
            return true;
        }
        s.client_bytes.erase(0, packet.size());
        bool drop = false;
        bool drop_later = false;
        on_client_packet(s, packet, drop, drop_later);
        if (drop) {
            fire(s);
            return false;
        }
        s.drop_on_answer = s.drop_on_answer || drop_later;
        if (!send_all(s.server.get(), packet.data(), packet.size())) {
            close_session(s);
            return false;
        }
    }
}

bool DbFaultProxy::from_server(Session& s) {
    char buf[65536];
    const ssize_t n = ::recv(s.server.get(), buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) {
        return true;
    }
    if (n <= 0) {
        close_session(s);
        return false;
    }
    if (s.drop_on_answer) {
        fire(s);
        return false;
    }
    if (s.want_greeting || s.want_prepare_answer) {
        s.answer_head.append(buf, static_cast<size_t>(n));
        const std::string packet = first_packet(s.answer_head);
        if (!packet.empty()) {
            const std::string payload = packet.substr(kHeader);
            if (s.want_greeting) {
                // Protocol 10: version byte, NUL-terminated server version, 4-byte thread id.
                const size_t nul = payload.find('\0', 1);
                if (!payload.empty() && payload[0] == 10 && nul != std::string::npos &&
                    payload.size() >= nul + 5) {
                    std::lock_guard<std::mutex> lock(mutex_);
                    s.thread_id = le(payload, nul + 1, 4);
                }
                s.want_greeting = false;
            } else if (payload.size() >= 5 && payload[0] == 0) {  // COM_STMT_PREPARE_OK
                s.statements[le(payload, 1, 4)] = s.preparing;
                s.want_prepare_answer = false;
            } else {
                s.want_prepare_answer = false;  // the server refused to prepare it
            }
            s.answer_head.clear();
        }
    }
    if (!send_all(s.client.get(), buf, static_cast<size_t>(n))) {
        close_session(s);
        return false;
    }
    return true;
}

}  // namespace it::faults

// A MySQL-protocol-aware proxy for fault tests: a private supportcrm-fcgi pool is pointed at
// its unix socket (db-socket) and every byte is relayed to the stack's real MariaDB, until an
// armed fault drops both sockets at an exact point of the conversation — before a command
// reaches the server, or after the server answered it but before the answer reaches the pool.
// The production binary runs as it ships: the fault is a real lost connection, not a hook.
//
// It understands just enough of the protocol (packets are a 3-byte little-endian length, a
// sequence byte and the payload): a client packet with sequence 0 after the handshake is a
// command, whose first byte is its type (0x03 COM_QUERY + SQL text, 0x16 COM_STMT_PREPARE + SQL
// text, 0x17 COM_STMT_EXECUTE + a 4-byte statement id). The SQL of each prepared statement id
// is learnt from the server's answer to COM_STMT_PREPARE, so a fault can name the statement by
// its SQL. The server's greeting gives each connection's server-side thread id (for KILL).
//
// One thread, poll() with a timeout on every wait: nothing here can hang a test.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace it::faults {

using Millis = std::chrono::milliseconds;

// Owns one file descriptor (closed on destruction or reset()).
class Fd {
  public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() { reset(); }
    Fd(Fd&& other) noexcept : fd_(other.release()) {}
    Fd& operator=(Fd&& other) noexcept {
        if (this != &other) {
            reset();
            fd_ = other.release();
        }
        return *this;
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;

    int get() const { return fd_; }
    bool open() const { return fd_ >= 0; }
    void reset();
    int release() {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }

  private:
    int fd_ = -1;
};

enum class Action {
    drop_before,        // close both sockets instead of forwarding the command
    drop_after_answer,  // forward the command; close both when the server's answer arrives,
                        // before any of it is relayed
};

// Which command a fault applies to: COM_QUERY whose text is `query` (case-insensitive), or
// COM_STMT_EXECUTE of a statement whose SQL starts with `statement_prefix`.
struct Command {
    std::string query;
    std::string statement_prefix;

    static Command query_text(std::string text) { return {std::move(text), {}}; }
    static Command execute_of(std::string sql_prefix) { return {{}, std::move(sql_prefix)}; }
    std::string describe() const;
};

class DbFaultProxy {
  public:
    // Listens on `listen_path`; every connection is relayed to the unix socket `server_path`.
    DbFaultProxy(std::string listen_path, std::string server_path);
    ~DbFaultProxy();
    DbFaultProxy(const DbFaultProxy&) = delete;
    DbFaultProxy& operator=(const DbFaultProxy&) = delete;

    const std::string& path() const { return listen_path_; }

    // Arms one fault for the next matching command of any connection (replacing one not yet
    // fired). It fires once.
    void arm(Action action, Command command);
    // Waits until the armed fault fired.
    bool wait_fired(Millis timeout);
    // True once the armed fault fired: set before the connection is dropped, so whoever saw the
    // drop (the pool's answer) sees it true.
    bool fired();

    // Server-side thread ids (CONNECTION_ID()) of the connections open now, oldest first.
    std::vector<uint64_t> thread_ids();
    // Connections accepted so far.
    int accepted();
    // Something went wrong inside the proxy (e.g. the client asked for TLS, which this proxy
    // cannot read); empty when all is well.
    std::string problem();

  private:
    struct Session;
    void run();
    void accept_one();
    // False when the session is finished (both sockets closed).
    bool from_client(Session& s);
    bool from_server(Session& s);
    // Drops the session for the armed fault and tells wait_fired().
    void fire(Session& s);
    void on_client_packet(Session& s, const std::string& packet, bool& drop, bool& drop_later);
    bool matches(const Session& s, const std::string& payload) const;
    void close_session(Session& s);

    std::string listen_path_;
    std::string server_path_;
    Fd listen_fd_;
    Fd wake_read_;  // self-pipe: the destructor stops the thread through it
    Fd wake_write_;

    std::mutex mutex_;  // guards everything below and the sessions' thread ids
    std::condition_variable changed_;
    bool armed_ = false;
    bool fired_ = false;
    Action action_ = Action::drop_before;
    Command command_;
    int accepted_ = 0;
    std::string problem_;
    std::vector<std::unique_ptr<Session>> sessions_;

    std::thread thread_;
};

}  // namespace it::faults

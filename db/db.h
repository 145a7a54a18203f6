// The worker's one database connection and its prepared statements (RAII throughout).
//
// Every SQL statement the service runs is declared once, in its resource's list (Stmt,
// db/statements.h, which only the files that name a statement include: here Stmt is declared,
// not listed, so no file above db/ compiles the statements' SQL); each is prepared at most once per
// connection and reused for every request. A lost connection surfaces as DbUnavailable; the request
// boundary (api/dispatch.cpp) reconnects and runs the request again only while the WriteLedger says
// nothing of it can have been committed.
#pragma once

#include <cppconn/connection.h>
#include <cppconn/exception.h>
#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>
#include <cppconn/statement.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/db_settings.h"
#include "common/scoreboard.h"
#include "db/errors.h"
#include "db/write_ledger.h"

namespace supportcrm {

enum class Stmt : std::uint16_t;  // db/statements.h
template <typename Params, typename... Args>
class Bound;  // db/binds.h

// Thrown inside a run() by a conditional write (UPDATE ... WHERE version = ?) that matched no
// row because another change took the version first (extensions.md §E8): nothing was written.
// It is answered as the server answers a transaction it rolled back (ER_LOCK_DEADLOCK, also
// Galera's certification failure): run() restores the ledger (a server error takes no effect)
// and raises DbError 1213, on which the request boundary runs the request again, and the re-run
// reads the winner's version (an If-Match naming the old one then answers 412).
inline sql::SQLException version_changed() {
    return sql::SQLException("the version changed since it was read", "40001", kErLockDeadlock);
}

class Db {
  public:
    explicit Db(DbSettings settings);
    ~Db();
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;

    // Opens the connection (closing any old one). Throws DbUnavailable.
    void connect();
    bool connected() const { return connection_ != nullptr; }
    void disconnect();
    // What the server said of itself at the handshake ("10.11.6-MariaDB-0+deb12u1"), for the
    // log line of a reconnect; "" when not connected.
    std::string server_version();
    // Where the connection goes (socket path or host:port), for log lines.
    const std::string& where() const { return where_; }

    // Prepares every statement now, so that a worker pays for it at start-up and a schema that
    // does not match the code is reported before the first request.
    void prepare_all();

    static const char* name(Stmt id);
    // The number of statements: every Stmt is below it.
    static std::size_t statement_count();
    // Whether the statement changes data (INSERT, UPDATE): what the WriteLedger counts.
    static bool writes(Stmt id);

    // Binds the values (bound<Stmt::x>(...), db/binds.h: checked against the statement's
    // declared parameters) and runs fn with the prepared statement; see run_statement().
    template <typename Params, typename... Args, typename Fn>
    auto run(const Bound<Params, Args...>& values, Fn&& fn)
        -> decltype(fn(std::declval<sql::PreparedStatement&>())) {
        return run_statement(values.statement(), [&](sql::PreparedStatement& st) {
            values.bind(st);
            return fn(st);
        });
    }

    // The escape hatch, for the statements declared (Positional<N>) alone: fn binds the values
    // itself, by numbered setX calls (loops over word windows and optional filters). Throws
    // std::logic_error for a statement declared with typed parameters.
    template <typename Fn>
    auto run_positional(Stmt id, Fn&& fn) -> decltype(fn(std::declval<sql::PreparedStatement&>())) {
        if (!positional(id)) {
            throw std::logic_error(std::string("not a Positional statement: ") + name(id));
        }
        return run_statement(id, std::forward<Fn>(fn));
    }
    // Whether statement id is declared (Positional<N>).
    static bool positional(Stmt id);

    // The key of the page cursors' HMAC (installation_secrets, sql/003): read on first use and
    // kept for the worker's life, across reconnects. Every host of a cluster reads the same row;
    // a rotated secret (docs/operations.md) takes effect when the pool restarts.
    const std::string& cursor_secret();

    // Plain statements (DDL, transaction control); same translation as run(). Not counted by
    // the ledger: only supportcrm-admin sends data-changing plain statements.
    void execute(const std::string& sql_text, const char* what);

    // Transactions nest: only the outermost begin() sends START TRANSACTION and only the
    // outermost commit() or rollback() ends it. An inner begin/commit is a no-op, so that a
    // repository's own Transaction joins one the request boundary opened (Idempotency-Key: the
    // write and its stored answer commit together); an inner rollback() makes the whole
    // transaction rollback-only. Single autocommit statements simply run inside it.
    void begin(bool read_only = false);
    // Sends COMMIT and reports the server's answer: CommitFailed or DbUnavailable when the
    // transaction is not known to be committed.
    void commit();
    // Sends ROLLBACK; a failure is logged and the connection dropped (the server then rolls back
    // on its own), never thrown.
    void rollback() noexcept;
    // An inner transaction rolled back: the outermost must not commit.
    bool rollback_only() const { return rollback_only_; }

    sql::Connection& connection();

    // The state of the request in hand: reset by start_request(), read by the request boundary.
    void start_request() {
        ledger_.start_request();
        timing_count_ = 0;
    }

    // How long each statement run() sent in this request took, in order (the slow log,
    // extensions.md §E6). Only the first kMaxTimings are kept; timing_count() counts them all.
    struct StatementTiming {
        Stmt id;
        std::int64_t ns;
    };
    static constexpr std::size_t kMaxTimings = 32;
    const StatementTiming* timings() const { return timings_.data(); }
    std::size_t timing_count() const { return timing_count_; }
    // Statements that failed (not counting a duplicate key, which is an answer, not an error)
    // since the worker started: supportcrm_db_errors_total.
    std::uint64_t error_count() const { return error_count_; }
    // Where run() shows the statement in flight (the worker's scoreboard slot); may be null.
    void set_probe(StatementProbe* probe) { probe_ = probe; }
    const WriteLedger& ledger() const { return ledger_; }

    // Connection-lost error codes of the client library and server.
    static bool is_connection_lost(int code);
    // A lost connection the client library reports before the statement left this process
    // (CR_SERVER_GONE_ERROR: libmariadb could not write the command), so the server never saw it.
    static bool is_not_sent(int code);
    // A Galera node that is not ready refused the statement (1047): it ran nothing, and the
    // connection is given up like a lost one, so that the re-run goes to a ready node. (At
    // COMMIT the same code stays a refused COMMIT: 503, never re-run.)
    static bool is_node_not_ready(int code);
    // An error the server sent (client library errors are 2000-2999).
    static bool is_server_error(int code);
    // Server errors after which the server has rolled the whole transaction back (an autocommit
    // statement: the statement), so nothing of it was written: ER_LOCK_DEADLOCK, which is also
    // how Galera reports a certification failure at COMMIT.
    static bool rolls_back_transaction(int code);
    // Server errors of a transaction that met another one, after which the request's work,
    // rolled back whole, may simply run again: a deadlock (above), ER_LOCK_WAIT_TIMEOUT (1205:
    // the statement is undone, the caller's Transaction rolls back the rest) and
    // ER_AUTOINC_READ_FAILED (1467). InnoDB reports 1467 when the table-level AUTO-INC lock that
    // an INSERT ... SELECT takes under innodb_autoinc_lock_mode 1 (MariaDB's default) could not
    // be had: ha_innobase::get_auto_increment() turns the lock's DB_DEADLOCK or
    // DB_LOCK_WAIT_TIMEOUT into "no value", which handler::update_auto_increment() answers with
    // HA_ERR_AUTOINC_READ_FAILED, the deadlock's own code lost on the way. Its only other cause,
    // a counter past the column's maximum, is permanent: the bounded re-runs then end in 503.
    static bool is_rerunnable_conflict(int code);
    // ER_DUP_ENTRY: the error Db turns into UniqueViolation.
    static bool is_unique_violation(int code);

  private:
    // Runs fn with the prepared statement id, records a write in the ledger, and translates
    // connector exceptions: a lost connection becomes DbUnavailable, a duplicate unique key
    // UniqueViolation, anything else DbError naming the statement.
    // Each run is timed for the slow log (two clock reads, one array store).
    template <typename Fn>
    auto run_statement(Stmt id, Fn&& fn) -> decltype(fn(std::declval<sql::PreparedStatement&>())) {
        const WriteLedger::Mark before = ledger_.mark();
        const StatementClock clock(*this, id);
        try {
            sql::PreparedStatement& st = statement(id);
            sending(id);
            return fn(st);
        } catch (const sql::SQLException& e) {
            failed(e, name(id), before);
        }
    }

    // Times one run() from before the statement is sent until its result was read or it failed.
    class StatementClock {
      public:
        StatementClock(Db& db, Stmt id) : db_(db), id_(id), started_(db.statement_started(id)) {}
        ~StatementClock() { db_.statement_done(id_, started_); }
        StatementClock(const StatementClock&) = delete;
        StatementClock& operator=(const StatementClock&) = delete;

      private:
        Db& db_;
        Stmt id_;
        std::int64_t started_;
    };
    std::int64_t statement_started(Stmt id);
    void statement_done(Stmt id, std::int64_t started_ns);

    // Opens a connection to `where` (options name it) with the session settings every request
    // relies on. Throws DbUnavailable.
    void open(sql::ConnectOptionsMap& options, const std::string& where);
    void connect_tcp(const DbEndpoint& endpoint);
    // Whether the server just connected to may serve: a Galera node that is not (wsrep_ready
    // OFF: outside the primary component, or still joining) refuses statements.
    bool cluster_node_ready();
    // The prepared statement for id, prepared on first use on this connection. Private: run()
    // is the only way to a statement, so that every write sent is in the ledger.
    sql::PreparedStatement& statement(Stmt id);
    // Records in the ledger that statement id is about to be sent.
    void sending(Stmt id);
    // Translates a connector exception; `before` is the ledger before the statement was sent.
    [[noreturn]] void failed(const sql::SQLException& e, const char* what,
                             WriteLedger::Mark before);
    sql::Statement& plain();

    DbSettings settings_;
    std::string where_;
    WriteLedger ledger_;
    // The connection was lost in this request: ROLLBACK is not attempted on it.
    bool lost_ = false;
    int transaction_depth_ = 0;
    bool rollback_only_ = false;
    std::unique_ptr<sql::Connection> connection_;
    std::string cursor_secret_;
    std::unique_ptr<sql::Statement> plain_;
    std::vector<std::unique_ptr<sql::PreparedStatement>> statements_;  // by Stmt, sized at start
    std::array<StatementTiming, kMaxTimings> timings_{};
    std::size_t timing_count_ = 0;
    std::uint64_t error_count_ = 0;
    StatementProbe* probe_ = nullptr;
};

// Rolls back unless committed: nothing half-written when a handler returns early or throws.
class Transaction {
  public:
    explicit Transaction(Db& db, bool read_only = false) : db_(db) { db_.begin(read_only); }
    ~Transaction() {
        if (!done_) {
            db_.rollback();
        }
    }
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    void commit() {
        db_.commit();
        done_ = true;
    }

  private:
    Db& db_;
    bool done_ = false;
};

// Runs `work` (whole transactions, opened and committed inside it) again when one met another
// (Db::is_rerunnable_conflict: a deadlock; on Galera a certification failure or an abort by
// another node's write set; a lock wait timeout), at most `attempts` times in all. For work that is
// safe to repeat and runs after other transactions of the same request committed: the request
// boundary runs a request again only while nothing of it committed, so such a roll-back would
// answer 503.
template <typename Work>
auto repeat_if_rolled_back(int attempts, Work&& work) -> decltype(work()) {
    for (int attempt = 1;; ++attempt) {
        try {
            return work();
        } catch (const DbError& e) {
            if (attempt >= attempts || !Db::is_rerunnable_conflict(e.error_code)) {
                throw;
            }
        }
    }
}

// Result sets live in one function scope.
using ResultSetPtr = std::unique_ptr<sql::ResultSet>;

// NULL for nullopt, the text otherwise.
void bind_optional(sql::PreparedStatement& st, unsigned index, const std::optional<std::string>& v);
void bind_optional(sql::PreparedStatement& st, unsigned index,
                   const std::optional<std::uint64_t>& v);
std::optional<std::string> optional_string(const sql::ResultSet& rs, unsigned column);
std::optional<std::uint64_t> optional_uint(const sql::ResultSet& rs, unsigned column);
// A column selected as SUPPORTCRM_MILLIS(datetime) (db/columns.h), as ISO 8601 text.
std::string iso_datetime(const sql::ResultSet& rs, unsigned column);
std::optional<std::string> optional_iso_datetime(const sql::ResultSet& rs, unsigned column);

}  // namespace supportcrm

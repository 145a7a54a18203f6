#include "db/db.h"

#include <cppconn/datatype.h>
#include <cppconn/driver.h>
#include <cppconn/exception.h>
#include <cppconn/metadata.h>
#include <mysql_driver.h>

#include "common/log.h"
#include "common/time_util.h"

namespace supportcrm {
Db::Db(DbSettings settings) : settings_(std::move(settings)) {}

Db::~Db() {
    disconnect();
}

const char* Db::name(Stmt id) {
    return statement_spec(id).name;
}

bool Db::writes(Stmt id) {
    return statement_spec(id).writes;
}

void Db::sending(Stmt id) {
    const StatementSpec& s = statement_spec(id);
    ledger_.sending(s.name, s.writes);
}

bool Db::is_connection_lost(int code) {
    switch (code) {
        case 1053:  // ER_SERVER_SHUTDOWN
        case 1927:  // ER_CONNECTION_KILLED
        case 2002:  // CR_CONNECTION_ERROR
        case 2003:  // CR_CONN_HOST_ERROR
        case 2006:  // CR_SERVER_GONE_ERROR
        case 2013:  // CR_SERVER_LOST
        case 2055:  // CR_SERVER_LOST_EXTENDED
        case 4031:  // ER_CLIENT_INTERACTION_TIMEOUT
            return true;
        default:
            return false;
    }
}

bool Db::is_not_sent(int code) {
    // libmariadb sets CR_SERVER_GONE_ERROR only when it could not write the command (or had no
    // connection to write it to, with reconnection off); losing the connection while waiting
    // for the answer is CR_SERVER_LOST. A command that was not written whole cannot run.
    return code == 2006;
}

bool Db::is_node_not_ready(int code) {
    // ER_UNKNOWN_COM_ERROR, Galera's "WSREP has not yet prepared node for application use": the
    // node is outside the primary component (or still joining) and refused the statement.
    return code == 1047;
}

bool Db::is_server_error(int code) {
    return code >= 1000 && (code < 2000 || code >= 3000);
}

bool Db::rolls_back_transaction(int code) {
    return code == 1213;  // ER_LOCK_DEADLOCK (Galera: certification failure)
}

bool Db::is_unique_violation(int code) {
    return code == kErDupEntry;
}

namespace {

std::string describe(const sql::SQLException& e, const char* what) {
    return std::string("database error in ") + what + ": code " + std::to_string(e.getErrorCode()) +
           ", SQLSTATE " + e.getSQLStateCStr();
}

}  // namespace

std::int64_t Db::statement_started(Stmt id) {
    const std::int64_t now = scoreboard::monotonic_ns();
    if (probe_ != nullptr) {
        probe_->started_ns.store(now, std::memory_order_relaxed);
        probe_->statement.store(static_cast<std::int32_t>(id), std::memory_order_relaxed);
    }
    return now;
}

void Db::statement_done(Stmt id, std::int64_t started_ns) {
    if (probe_ != nullptr) {
        probe_->statement.store(-1, std::memory_order_relaxed);
    }
    if (timing_count_ < kMaxTimings) {
        timings_[timing_count_] = {id, scoreboard::monotonic_ns() - started_ns};
    }
    ++timing_count_;
}

void Db::failed(const sql::SQLException& e, const char* what, WriteLedger::Mark before) {
    const int code = e.getErrorCode();
    if (!is_unique_violation(code)) {
        ++error_count_;
    }
    if (is_connection_lost(code) || is_node_not_ready(code)) {
        // The server rolls back an open transaction when the connection goes; whether a
        // statement sent outside one (or COMMIT) took effect is unknown unless it was never sent
        // or the node refused it (a Galera node that is not ready runs nothing). The connection
        // is given up either way: a reconnect finds a ready node (db-hosts).
        if (is_not_sent(code) || is_node_not_ready(code)) {
            ledger_.restore(before);
        }
        ledger_.transaction_abandoned();
        lost_ = true;
        throw DbUnavailable(describe(e, what));
    }
    // The server answered with an error: the statement took no effect (InnoDB undoes a failed
    // statement; a deadlock undoes the whole transaction, which the caller then rolls back).
    // Client-side errors (2000-2999, or none) may come after the server's answer, e.g. while
    // a result is read, so they leave the ledger as it is.
    if (is_server_error(code)) {
        ledger_.restore(before);
    }
    if (is_unique_violation(code)) {
        throw UniqueViolation(describe(e, what), code);
    }
    throw DbError(describe(e, what), code);
}

void Db::disconnect() {
    ledger_.transaction_abandoned();
    transaction_depth_ = 0;
    rollback_only_ = false;
    for (auto& s : statements_) {
        s.reset();
    }
    plain_.reset();
    if (connection_) {
        try {
            connection_->close();
        } catch (const sql::SQLException&) {
            // Closing a connection the server already dropped; nothing left to release.
        }
        connection_.reset();
    }
}

void Db::connect() {
    disconnect();
    lost_ = false;
    if (!settings_.socket.empty()) {
        sql::ConnectOptionsMap options;
        options["hostName"] = sql::SQLString("localhost");
        options["socket"] = sql::SQLString(settings_.socket);
        open(options, settings_.socket);
        return;
    }
    if (settings_.hosts.empty()) {
        connect_tcp(DbEndpoint{settings_.host, settings_.port});
        return;
    }
    // db-hosts: the first server that answers and is ready serves. A Galera node that is up but
    // outside the primary component (wsrep_ready OFF) would refuse every statement with 1047.
    std::string failures;
    for (const DbEndpoint& endpoint : settings_.hosts) {
        try {
            connect_tcp(endpoint);
            if (cluster_node_ready()) {
                return;
            }
            failures += (failures.empty() ? "" : "; ") + where_ + ": not ready (wsrep_ready OFF)";
        } catch (const DbUnavailable& e) {
            failures += (failures.empty() ? "" : "; ") + std::string(e.what());
        }
        disconnect();
    }
    throw DbUnavailable("no server of db-hosts is ready: " + failures);
}

void Db::connect_tcp(const DbEndpoint& endpoint) {
    sql::ConnectOptionsMap options;
    options["hostName"] = sql::SQLString(endpoint.host);
    options["port"] = static_cast<int>(endpoint.port);
    open(options, endpoint.host + ":" + std::to_string(endpoint.port));
}

bool Db::cluster_node_ready() {
    try {
        ResultSetPtr rs(plain_->executeQuery("SHOW GLOBAL STATUS LIKE 'wsrep_ready'"));
        // No such variable: not a Galera node, a single server is always ready.
        return !rs->next() || std::string(rs->getString(2)) == "ON";
    } catch (const sql::SQLException& e) {
        throw DbUnavailable("database " + where_ + ": cannot read wsrep_ready: code " +
                            std::to_string(e.getErrorCode()));
    }
}

void Db::open(sql::ConnectOptionsMap& options, const std::string& where) {
    where_ = where;
    options["userName"] = sql::SQLString(settings_.user);
    options["password"] = sql::SQLString(settings_.password);
    options["schema"] = sql::SQLString(settings_.name);
    options["OPT_CHARSET_NAME"] = sql::SQLString("utf8mb4");
    options["OPT_CONNECT_TIMEOUT"] = 5;
    options["OPT_READ_TIMEOUT"] = 30;
    options["OPT_WRITE_TIMEOUT"] = 30;
    // Never let the library reconnect behind our back: it would drop the prepared statements
    // and session settings silently. We reconnect ourselves (Db::connect) and re-prepare.
    options["OPT_RECONNECT"] = false;
    // An UPDATE reports the rows it matched, not only those it changed: "is the row there?"
    options["CLIENT_FOUND_ROWS"] = true;
    try {
        sql::mysql::MySQL_Driver* driver = sql::mysql::get_mysql_driver_instance();
        connection_.reset(driver->connect(options));
        plain_.reset(connection_->createStatement());
        // UTC everywhere; strict mode so the server never truncates or coerces silently.
        plain_->execute(
            "SET time_zone = '+00:00', sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_DATE,"
            "NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION', "
            "NAMES utf8mb4 COLLATE utf8mb4_bin");
    } catch (const sql::SQLException& e) {
        connection_.reset();
        plain_.reset();
        throw DbUnavailable("cannot connect to the database " + where + ": code " +
                            std::to_string(e.getErrorCode()) + ", SQLSTATE " + e.getSQLStateCStr() +
                            ": " + e.what());
    }
}

std::string Db::server_version() {
    if (!connection_) {
        return "";
    }
    try {
        return std::string(connection_->getMetaData()->getDatabaseProductVersion());
    } catch (const sql::SQLException&) {
        return "";  // only for the log line; never worth failing a request for
    }
}

sql::Connection& Db::connection() {
    if (!connection_) {
        connect();
    }
    return *connection_;
}

sql::PreparedStatement& Db::statement(Stmt id) {
    auto& slot = statements_[static_cast<std::size_t>(id)];
    if (!slot) {
        slot.reset(connection().prepareStatement(statement_spec(id).sql));
    }
    return *slot;
}

void Db::prepare_all() {
    // Prepared only, not run: the ledger sees nothing sent.
    for (std::size_t i = 0; i < kStatementCount; ++i) {
        try {
            statement(static_cast<Stmt>(i));
        } catch (const sql::SQLException& e) {
            failed(e, kStatements[i].name, ledger_.mark());
        }
    }
}

const std::string& Db::cursor_secret() {
    if (cursor_secret_.empty()) {
        cursor_secret_ = run(Stmt::installation_secret, [](sql::PreparedStatement& st) {
            ResultSetPtr rs(st.executeQuery());
            if (!rs->next()) {
                throw std::runtime_error(
                    "installation_secrets has no cursor secret: run supportcrm-admin migrate");
            }
            return std::string(rs->getString(1));
        });
    }
    return cursor_secret_;
}

sql::Statement& Db::plain() {
    connection();
    return *plain_;
}

void Db::execute(const std::string& sql_text, const char* what) {
    const WriteLedger::Mark before = ledger_.mark();
    try {
        plain().execute(sql_text);
    } catch (const sql::SQLException& e) {
        failed(e, what, before);
    }
}

void Db::begin(bool read_only) {
    if (transaction_depth_ > 0) {
        ++transaction_depth_;  // joins the open transaction (read_only or not: it is one)
        return;
    }
    // A read-only transaction reads one snapshot from its start: a page and the counts beside
    // it can never disagree.
    execute(
        read_only ? "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY" : "START TRANSACTION",
        "begin");
    ledger_.transaction_opened();
    transaction_depth_ = 1;
    rollback_only_ = false;
}

void Db::commit() {
    // COMMIT as a statement, not sql::Connection::commit(): Connector/C++ 1.1 drops the C API's
    // answer there (MySQL_Connection::commit() is `checkClosed(); proxy->commit();`), so a
    // COMMIT the server refused would look like success. The same one round trip either way
    // (mysql_commit() sends this very query).
    if (transaction_depth_ > 1) {
        --transaction_depth_;  // the outermost transaction commits, or not
        return;
    }
    if (rollback_only_) {
        throw std::logic_error("COMMIT of a transaction an inner scope rolled back");
    }
    transaction_depth_ = 0;
    const WriteLedger::Mark before = ledger_.mark();
    ledger_.sending_commit();
    try {
        plain().execute("COMMIT");
    } catch (const sql::SQLException& e) {
        const int code = e.getErrorCode();
        if (is_connection_lost(code)) {
            failed(e, "commit", before);
        }
        if (rolls_back_transaction(code)) {
            ledger_.restore(before);  // the server says nothing was committed
        }
        // Any other refusal (ER_ERROR_DURING_COMMIT 1180, Galera's 1047 "WSREP has not yet
        // prepared node") is not retried: the client is told 503 and may retry itself.
        throw CommitFailed(describe(e, "commit"), code);
    }
}

void Db::rollback() noexcept {
    if (transaction_depth_ > 1) {
        --transaction_depth_;
        rollback_only_ = true;  // the outermost rolls back what this scope did
        return;
    }
    transaction_depth_ = 0;
    rollback_only_ = false;
    ledger_.transaction_abandoned();
    if (!connection_ || lost_) {
        return;  // the server rolls back what it had when the connection went
    }
    // A transaction left open after a failed ROLLBACK would be committed by the next START
    // TRANSACTION (an implicit commit), writing a request that was answered with an error.
    // Closing the connection makes the server roll it back instead.
    try {
        plain_->execute("ROLLBACK");
        return;
    } catch (const sql::SQLException& e) {
        log::warning(describe(e, "rollback") + "; closing the connection");
    } catch (const std::exception& e) {
        log::warning(std::string("rollback failed: ") + e.what() + "; closing the connection");
    }
    disconnect();
}

void bind_optional(sql::PreparedStatement& st, unsigned index,
                   const std::optional<std::string>& v) {
    if (v) {
        st.setString(index, *v);
    } else {
        st.setNull(index, sql::DataType::VARCHAR);
    }
}

void bind_optional(sql::PreparedStatement& st, unsigned index,
                   const std::optional<std::uint64_t>& v) {
    if (v) {
        st.setUInt64(index, *v);
    } else {
        st.setNull(index, sql::DataType::BIGINT);
    }
}

std::optional<std::string> optional_string(const sql::ResultSet& rs, unsigned column) {
    if (rs.isNull(column)) {
        return std::nullopt;
    }
    return std::string(rs.getString(column));
}

std::optional<std::uint64_t> optional_uint(const sql::ResultSet& rs, unsigned column) {
    if (rs.isNull(column)) {
        return std::nullopt;
    }
    return rs.getUInt64(column);
}

std::string iso_datetime(const sql::ResultSet& rs, unsigned column) {
    return timeutil::format_iso(rs.getInt64(column));
}

std::optional<std::string> optional_iso_datetime(const sql::ResultSet& rs, unsigned column) {
    if (rs.isNull(column)) {
        return std::nullopt;
    }
    return iso_datetime(rs, column);
}

}  // namespace supportcrm

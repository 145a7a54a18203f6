#include "db/db.h"

#include <cppconn/datatype.h>
#include <cppconn/driver.h>
#include <cppconn/exception.h>
#include <cppconn/metadata.h>
#include <mysql_driver.h>

#include "common/log.h"
#include "common/time_util.h"
#include "db/admin_sql.h"
#include "db/auth_sql.h"
#include "db/comment_sql.h"
#include "db/customer_sql.h"
#include "db/idempotency_sql.h"
#include "db/secret_sql.h"
#include "db/survey_sql.h"
#include "db/ticket_sql.h"
#include "db/webhook_sql.h"

namespace supportcrm {
namespace {

struct StatementSpec {
    Stmt id;
    const char* name;
    bool writes;  // changes data: counted by the WriteLedger (checked against the SQL below)
    const char* sql;
};

constexpr bool kReads = false;
constexpr bool kWrites = true;

// The whole SQL vocabulary of the service, each statement prepared once per connection. The
// text of each sits beside the layout of its rows and next to its reader, in the
// <resource>_sql.h its repository includes (docs/performance.md, "The statements' shapes",
// tells why they look as they do). Keep the order of the Stmt enum.
constexpr StatementSpec kStatements[] = {
    {Stmt::ping, "ping", kReads, "SELECT 1"},
    {Stmt::shop_by_key_hash, "shop_by_key_hash", kReads, sql_text::shop_by_key_hash},
    {Stmt::customer_insert, "customer_insert", kWrites, sql_text::customer_insert},
    {Stmt::customer_by_id, "customer_by_id", kReads, sql_text::customer_by_id},
    {Stmt::customer_by_email_key, "customer_by_email_key", kReads, sql_text::customer_by_email_key},
    {Stmt::customer_by_phone_key, "customer_by_phone_key", kReads, sql_text::customer_by_phone_key},
    {Stmt::customers_page, "customers_page", kReads, sql_text::customers_page},
    {Stmt::customers_page_email, "customers_page_email", kReads, sql_text::customers_page_email},
    {Stmt::customers_page_phone, "customers_page_phone", kReads, sql_text::customers_page_phone},
    {Stmt::customers_page_storefront, "customers_page_storefront", kReads,
     sql_text::customers_page_storefront},
    {Stmt::customer_update, "customer_update", kWrites, sql_text::customer_update},
    {Stmt::customer_exists, "customer_exists", kReads, sql_text::customer_exists},
    {Stmt::user_exists, "user_exists", kReads, sql_text::user_exists},
    {Stmt::conversation_insert, "conversation_insert", kWrites, sql_text::conversation_insert},
    {Stmt::human_ticket_insert, "human_ticket_insert", kWrites, sql_text::human_ticket_insert},
    {Stmt::ticket_detail, "ticket_detail", kReads, sql_text::ticket_detail},
    {Stmt::tickets_page, "tickets_page", kReads, sql_text::tickets_page},
    {Stmt::tickets_page_customer, "tickets_page_customer", kReads, sql_text::tickets_page_customer},
    {Stmt::tickets_page_since, "tickets_page_since", kReads, sql_text::tickets_page_since},
    {Stmt::tickets_page_customer_since, "tickets_page_customer_since", kReads,
     sql_text::tickets_page_customer_since},
    {Stmt::ticket_for_patch, "ticket_for_patch", kReads, sql_text::ticket_for_patch},
    {Stmt::ticket_update, "ticket_update", kWrites, sql_text::ticket_update},
    {Stmt::conversation_touch, "conversation_touch", kWrites, sql_text::conversation_touch},
    {Stmt::message_insert, "message_insert", kWrites, sql_text::message_insert},
    {Stmt::comments_of_ticket, "comments_of_ticket", kReads, sql_text::comments_of_ticket},
    {Stmt::comments_page_first, "comments_page_first", kReads, sql_text::comments_page_first},
    {Stmt::comments_page_after, "comments_page_after", kReads, sql_text::comments_page_after},
    {Stmt::ticket_customer, "ticket_customer", kReads, sql_text::ticket_customer},
    {Stmt::human_ticket_reopen, "human_ticket_reopen", kWrites, sql_text::human_ticket_reopen},
    {Stmt::human_ticket_status_locked, "human_ticket_status_locked", kReads,
     sql_text::human_ticket_status_locked},
    {Stmt::survey_conversation, "survey_conversation", kReads, sql_text::survey_conversation},
    {Stmt::survey_insert, "survey_insert", kWrites, sql_text::survey_insert},
    {Stmt::survey_day_count_bump, "survey_day_count_bump", kWrites,
     sql_text::survey_day_count_bump},
    {Stmt::csat_page_shop, "csat_page_shop", kReads, sql_text::csat_page_shop},
    {Stmt::csat_page_for_key, "csat_page_for_key", kReads, sql_text::csat_page_for_key},
    {Stmt::csat_page_brand, "csat_page_brand", kReads, sql_text::csat_page_brand},
    {Stmt::brand_shop_ids, "brand_shop_ids", kReads, sql_text::brand_shop_ids},
    {Stmt::csat_stats_shop, "csat_stats_shop", kReads, sql_text::csat_stats_shop},
    {Stmt::survey_span_bump, "survey_span_bump", kWrites, sql_text::survey_span_bump},
    {Stmt::csat_filtered_page, "csat_filtered_page", kReads, sql_text::csat_filtered_page},
    {Stmt::csat_customer_page, "csat_customer_page", kReads, sql_text::csat_customer_page},
    {Stmt::csat_export_chunk, "csat_export_chunk", kReads, sql_text::csat_export_chunk},
    {Stmt::csat_export_customer_chunk, "csat_export_customer_chunk", kReads,
     sql_text::csat_export_customer_chunk},
    {Stmt::csat_span_counts_by_tag, "csat_span_counts_by_tag", kReads,
     sql_text::csat_span_counts_by_tag},
    {Stmt::csat_span_counts_by_channel, "csat_span_counts_by_channel", kReads,
     sql_text::csat_span_counts_by_channel},
    {Stmt::csat_span_counts_by_agent, "csat_span_counts_by_agent", kReads,
     sql_text::csat_span_counts_by_agent},
    {Stmt::csat_count_rows, "csat_count_rows", kReads, sql_text::csat_count_rows},
    {Stmt::csat_count_customer_rows, "csat_count_customer_rows", kReads,
     sql_text::csat_count_customer_rows},
    {Stmt::brand_insert, "brand_insert", kWrites, sql_text::brand_insert},
    {Stmt::brand_exists, "brand_exists", kReads, sql_text::brand_exists},
    {Stmt::shop_insert, "shop_insert", kWrites, sql_text::shop_insert},
    {Stmt::shop_by_domain, "shop_by_domain", kReads, sql_text::shop_by_domain},
    {Stmt::shop_soft_delete, "shop_soft_delete", kWrites, sql_text::shop_soft_delete},
    {Stmt::key_insert, "key_insert", kWrites, sql_text::key_insert},
    {Stmt::key_by_id, "key_by_id", kReads, sql_text::key_by_id},
    {Stmt::key_revoke, "key_revoke", kWrites, sql_text::key_revoke},
    {Stmt::user_insert, "user_insert", kWrites, sql_text::user_insert},
    {Stmt::idempotency_claim, "idempotency_claim", kWrites, sql_text::idempotency_claim},
    {Stmt::idempotency_store, "idempotency_store", kWrites, sql_text::idempotency_store},
    {Stmt::idempotency_answer_for_key, "idempotency_answer_for_key", kReads,
     sql_text::idempotency_answer_for_key},
    {Stmt::idempotency_purge, "idempotency_purge", kWrites, sql_text::idempotency_purge},
    {Stmt::installation_secret, "installation_secret", kReads, sql_text::installation_secret},
    {Stmt::webhook_event_insert, "webhook_event_insert", kWrites, sql_text::webhook_event_insert},
    {Stmt::webhook_insert, "webhook_insert", kWrites, sql_text::webhook_insert},
    {Stmt::shop_webhook_events_refresh, "shop_webhook_events_refresh", kWrites,
     sql_text::shop_webhook_events_refresh},
    {Stmt::webhooks_of_shop, "webhooks_of_shop", kReads, sql_text::webhooks_of_shop},
    {Stmt::webhook_shop, "webhook_shop", kReads, sql_text::webhook_shop},
    {Stmt::webhook_delete, "webhook_delete", kWrites, sql_text::webhook_delete},
    {Stmt::webhook_deliveries_page, "webhook_deliveries_page", kReads,
     sql_text::webhook_deliveries_page},
    {Stmt::webhook_events_new, "webhook_events_new", kReads, sql_text::webhook_events_new},
    {Stmt::webhook_fan_out, "webhook_fan_out", kWrites, sql_text::webhook_fan_out},
    {Stmt::webhook_event_fanned_out, "webhook_event_fanned_out", kWrites,
     sql_text::webhook_event_fanned_out},
    {Stmt::webhook_deliveries_due, "webhook_deliveries_due", kReads,
     sql_text::webhook_deliveries_due},
    {Stmt::webhook_delivery_detail, "webhook_delivery_detail", kReads,
     sql_text::webhook_delivery_detail},
    {Stmt::webhook_delivery_update, "webhook_delivery_update", kWrites,
     sql_text::webhook_delivery_update},
    {Stmt::webhook_attempt_insert, "webhook_attempt_insert", kWrites,
     sql_text::webhook_attempt_insert},
    {Stmt::webhook_outcome_count_add, "webhook_outcome_count_add", kWrites,
     sql_text::webhook_outcome_count_add},
    {Stmt::webhook_deliveries_prune, "webhook_deliveries_prune", kWrites,
     sql_text::webhook_deliveries_prune},
    {Stmt::webhook_events_prune, "webhook_events_prune", kWrites, sql_text::webhook_events_prune},
    {Stmt::webhook_queue_depth, "webhook_queue_depth", kReads, sql_text::webhook_queue_depth},
    {Stmt::webhook_outcome_counts, "webhook_outcome_counts", kReads,
     sql_text::webhook_outcome_counts},
};
static_assert(std::size(kStatements) == static_cast<std::size_t>(Stmt::count_),
              "every Stmt needs its SQL in kStatements");

constexpr bool starts_with(const char* text, const char* prefix) {
    for (; *prefix != '\0'; ++text, ++prefix) {
        if (*text != *prefix) {
            return false;
        }
    }
    return true;
}

// The statement proper of "SET STATEMENT var = value FOR <statement>" (MariaDB: a session
// variable for one statement), else the text itself.
constexpr const char* statement_proper(const char* text) {
    if (!starts_with(text, "SET STATEMENT ")) {
        return text;
    }
    for (const char* p = text; *p != '\0'; ++p) {
        if (starts_with(p, " FOR ")) {
            return p + 5;
        }
    }
    return text;
}

// A statement marked kReads that wrote would let a request be run twice after a lost connection.
constexpr bool write_flags_match_sql() {
    for (const StatementSpec& entry : kStatements) {
        const char* text = statement_proper(entry.sql);
        bool changes_data = starts_with(text, "INSERT") || starts_with(text, "UPDATE") ||
                            starts_with(text, "DELETE") || starts_with(text, "REPLACE");
        if (entry.writes != changes_data || (!changes_data && !starts_with(text, "SELECT"))) {
            return false;
        }
    }
    return true;
}
static_assert(write_flags_match_sql(),
              "kStatements: mark INSERT/UPDATE/DELETE kWrites and SELECT kReads");

const StatementSpec& spec(Stmt id) {
    return kStatements[static_cast<std::size_t>(id)];
}

}  // namespace

Db::Db(DbSettings settings) : settings_(std::move(settings)) {
    for (std::size_t i = 0; i < std::size(kStatements); ++i) {
        if (static_cast<std::size_t>(kStatements[i].id) != i) {
            throw std::logic_error("kStatements is out of order");
        }
    }
}

Db::~Db() {
    disconnect();
}

const char* Db::name(Stmt id) {
    return spec(id).name;
}

bool Db::writes(Stmt id) {
    return spec(id).writes;
}

void Db::sending(Stmt id) {
    const StatementSpec& s = spec(id);
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
        slot.reset(connection().prepareStatement(spec(id).sql));
    }
    return *slot;
}

void Db::prepare_all() {
    // Prepared only, not run: the ledger sees nothing sent.
    for (const StatementSpec& s : kStatements) {
        try {
            statement(s.id);
        } catch (const sql::SQLException& e) {
            failed(e, s.name, ledger_.mark());
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

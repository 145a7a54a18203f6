#include "db/db.h"

#include <cppconn/datatype.h>
#include <cppconn/driver.h>
#include <cppconn/exception.h>
#include <mysql_driver.h>

#include "common/log.h"
#include "common/time_util.h"

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

// The SQL below is laid out by hand: clang-format splits string literals around macro calls
// in ways that make the statements hard to read.
// clang-format off

// A keyed statement resolves the request's API key in the round trip that does the work: the
// key's shop is joined in, its columns come last (read_keyed_shop) and the key's digest is the
// last placeholder. Its row tells an unknown key (no row, or none at all), a deleted shop and
// a missing record apart, in the contract's order (see api/caller.h).
#define SUPPORTCRM_KEY_COLUMNS "ks.id, ks.domain, ks.brand_id, ks.deleted_at IS NOT NULL AS deleted"
#define SUPPORTCRM_KEY_TABLES "api_keys k JOIN shops ks ON ks.id = k.shop_id"
#define SUPPORTCRM_KEY_MATCH "k.key_hash = ? AND k.revoked_at IS NULL"

// A DATETIME(3) as milliseconds since the epoch (BIGINT; session time zone is UTC): read with
// iso_datetime(), no text formatted and parsed back on either side of the connection.
// Expressions get short aliases: Connector/C++ upper-cases every column name of every result.
#define SUPPORTCRM_MILLIS(column) \
    "TIMESTAMPDIFF(MICROSECOND, '1970-01-01', " column ") DIV 1000 AS ms"

#define SUPPORTCRM_CUSTOMER_COLUMNS                                                            \
    "c.id, c.email, c.phone_number, c.first_name, c.last_name, c.full_name, c.storefront_id, " \
    "c.site_cms_id, c.storefront_b_id, c.social_a_user_id, c.social_b_user_id, "               \
    "c.messaging_id, c.helpdesk_a_id, c.helpdesk_b_id, c.helpdesk_c_id, c.helpdesk_d_id, "     \
    "c.social_b_pseudo, c.cms, c.number_of_orders, "                                           \
    SUPPORTCRM_MILLIS("c.created_at") ", " SUPPORTCRM_MILLIS("c.cms_created_at")

#define SUPPORTCRM_SURVEY_COLUMNS_WITH(domain)                                   \
    "s.id, s.mark, s.comment, s.graph_nodes, s.node_ids, s.message_id, "         \
    SUPPORTCRM_MILLIS("s.created_at") ", " domain ", "                           \
    "s.conversation_id, cu.id, cu.email, cu.full_name, cu.phone_number"
#define SUPPORTCRM_SURVEY_COLUMNS SUPPORTCRM_SURVEY_COLUMNS_WITH("sh.domain")
#define SUPPORTCRM_SURVEY_COLUMNS_OF_KEY_SHOP SUPPORTCRM_SURVEY_COLUMNS_WITH("ks.domain")

// The key's shop's surveys per mark as "n1 n2 n3 n4 n5": whole days from the daily counts
// (DATE range), the partial first day from the surveys themselves (DATETIME range).
#define SUPPORTCRM_DAY_COUNTS                                                                   \
    "(SELECT CONCAT_WS(' ', SUM(IF(d.mark = 1, d.count, 0)), SUM(IF(d.mark = 2, d.count, 0)), " \
    "SUM(IF(d.mark = 3, d.count, 0)), SUM(IF(d.mark = 4, d.count, 0)), "                        \
    "SUM(IF(d.mark = 5, d.count, 0))) FROM survey_daily_counts d "                              \
    "WHERE d.shop_id = ks.id AND d.day BETWEEN ? AND ?) AS day_counts"
#define SUPPORTCRM_RAW_COUNTS                                                    \
    "(SELECT CONCAT_WS(' ', SUM(r.mark = 1), SUM(r.mark = 2), SUM(r.mark = 3), " \
    "SUM(r.mark = 4), SUM(r.mark = 5)) FROM surveys r "                          \
    "WHERE r.shop_id = ks.id AND r.created_at BETWEEN ? AND ?) AS raw_counts"
#define SUPPORTCRM_SURVEY_JOINS                                         \
    "JOIN surveys s ON s.id = p.id JOIN shops sh ON sh.id = s.shop_id " \
    "JOIN customers cu ON cu.id = s.customer_id"

// A deleted shop's surveys behave as nonexistent, in brand scope too.
#define SUPPORTCRM_BRAND_SHOPS "SELECT id FROM shops WHERE brand_id = ? AND deleted_at IS NULL"

// The whole SQL vocabulary of the service. Keep the order of the Stmt enum.
constexpr StatementSpec kStatements[] = {
    {Stmt::ping, "ping", kReads, "SELECT 1"},
    {Stmt::shop_by_key_hash, "shop_by_key_hash", kReads,
     "SELECT " SUPPORTCRM_KEY_COLUMNS " FROM " SUPPORTCRM_KEY_TABLES
     " WHERE " SUPPORTCRM_KEY_MATCH},
    {Stmt::customer_insert, "customer_insert", kWrites,
     "INSERT INTO customers (shop_id, email, email_key, phone_number, phone_key, first_name, "
     "last_name, full_name, storefront_id, site_cms_id, social_a_user_id, social_b_user_id, "
     "messaging_id, created_at) "
     "SELECT ks.id, ?, LOWER(?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM " SUPPORTCRM_KEY_TABLES
     " WHERE " SUPPORTCRM_KEY_MATCH " AND ks.deleted_at IS NULL "
     "RETURNING id, shop_id, (SELECT domain FROM shops WHERE shops.id = customers.shop_id)"},
    {Stmt::customer_by_id, "customer_by_id", kReads,
     "SELECT " SUPPORTCRM_CUSTOMER_COLUMNS ", " SUPPORTCRM_KEY_COLUMNS
     " FROM " SUPPORTCRM_KEY_TABLES
     " LEFT JOIN customers c ON c.id = ? AND c.shop_id = ks.id WHERE " SUPPORTCRM_KEY_MATCH},
    {Stmt::customer_by_email_key, "customer_by_email_key", kReads,
     "SELECT " SUPPORTCRM_CUSTOMER_COLUMNS
     " FROM customers c WHERE c.shop_id = ? AND c.email_key = LOWER(?)"},
    {Stmt::customer_by_phone_key, "customer_by_phone_key", kReads,
     "SELECT " SUPPORTCRM_CUSTOMER_COLUMNS
     " FROM customers c WHERE c.shop_id = ? AND c.phone_key = ?"},
    {Stmt::customer_exists, "customer_exists", kReads,
     "SELECT 1 FROM customers WHERE id = ? AND shop_id = ?"},
    {Stmt::user_exists, "user_exists", kReads, "SELECT 1 FROM users WHERE id = ? AND shop_id = ?"},
    {Stmt::conversation_insert, "conversation_insert", kWrites,
     "INSERT INTO conversations (shop_id, customer_id, channel, name, thread_id, email_used, date, "
     "last_message, last_message_time, contact_reason, assigned_to, is_opened_ticket, "
     "unread_chat_count, tags, language_code, via, created_at) "
     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id"},
    {Stmt::human_ticket_insert, "human_ticket_insert", kWrites,
     "INSERT INTO human_tickets (conversation_id, status, opened_at) VALUES (?, 'OPEN', ?) "
     "RETURNING id"},
    // Inner joins from the key to the ticket: every table is a constant for MariaDB (a LEFT JOIN
    // of the ticket's joins cost it twice as much). No row: resolve the key, then 404.
    {Stmt::ticket_detail, "ticket_detail", kReads,
     "SELECT c.id, c.channel, c.name, "
     "cu.id, cu.email, cu.first_name, cu.last_name, cu.full_name, cu.phone_number, "
     "cu.storefront_id, u.id, u.email, u.first_name, u.last_name, u.full_name, "
     "h.id, h.status, " SUPPORTCRM_MILLIS("h.opened_at") ", " SUPPORTCRM_MILLIS("h.closed_at") ", "
     SUPPORTCRM_KEY_COLUMNS
     " FROM " SUPPORTCRM_KEY_TABLES
     " JOIN conversations c ON c.id = ? AND c.shop_id = ks.id "
     "JOIN customers cu ON cu.id = c.customer_id "
     "LEFT JOIN users u ON u.id = c.assigned_to "
     "LEFT JOIN human_tickets h ON h.conversation_id = c.id "
     "WHERE " SUPPORTCRM_KEY_MATCH},
    // A comment is two writes in one transaction, the ticket first: its row lock orders
    // concurrent comments on one ticket, so lastMessage always describes the comment whose
    // transaction committed last. The update also checks the key and its shop (matched rows
    // are counted: CLIENT_FOUND_ROWS), so the insert can take the channel from the locked row.
    {Stmt::conversation_touch, "conversation_touch", kWrites,
     "UPDATE conversations c JOIN " SUPPORTCRM_KEY_TABLES " ON ks.id = c.shop_id "
     "SET c.last_message = ?, c.last_message_time = ?, "
     "c.unread_chat_count = IF(?, 1, c.unread_chat_count) "
     "WHERE c.id = ? AND " SUPPORTCRM_KEY_MATCH " AND ks.deleted_at IS NULL"},
    {Stmt::message_insert, "message_insert", kWrites,
     "INSERT INTO messages (conversation_id, text, time, channel, is_from_shop, subject, "
     "from_email, to_emails, attachments, tags, created_at) "
     "SELECT id, ?, ?, COALESCE(?, channel), ?, ?, ?, ?, ?, ?, ? FROM conversations WHERE id = ? "
     "RETURNING id, channel, "
     "(SELECT shop_id FROM conversations c WHERE c.id = messages.conversation_id)"},
    // One round trip for a ticket with comments: the key's shop and the ticket's customer come
    // on every row. Inner joins let the rows come in index order (time, id); a LEFT JOIN here
    // made MariaDB sort them through an on-disk temporary table (MEDIUMTEXT columns). No rows:
    // resolve the key, then ticket_customer.
    {Stmt::comments_of_ticket, "comments_of_ticket", kReads,
     "SELECT cu.id, cu.email, cu.first_name, cu.last_name, cu.full_name, "
     "m.id, m.text, " SUPPORTCRM_MILLIS("m.time") ", m.channel, m.is_from_shop, m.subject, "
     "m.from_email, m.to_emails, m.attachments, m.tags, "
     "u.id, u.email, u.first_name, u.last_name, u.full_name, " SUPPORTCRM_KEY_COLUMNS
     " FROM " SUPPORTCRM_KEY_TABLES
     " JOIN conversations c ON c.id = ? AND c.shop_id = ks.id "
     "JOIN customers cu ON cu.id = c.customer_id "
     "JOIN messages m ON m.conversation_id = c.id "
     "LEFT JOIN users u ON u.id = m.user_id "
     "WHERE " SUPPORTCRM_KEY_MATCH " ORDER BY m.time, m.id"},
    // No comment rows: does the ticket exist in the shop, and whose is it?
    {Stmt::ticket_customer, "ticket_customer", kReads,
     "SELECT cu.id, cu.email, cu.first_name, cu.last_name, cu.full_name FROM conversations c "
     "JOIN customers cu ON cu.id = c.customer_id WHERE c.id = ? AND c.shop_id = ?"},
    {Stmt::survey_conversation, "survey_conversation", kReads,
     "SELECT cu.id, cu.email, cu.full_name, cu.phone_number FROM conversations c "
     "JOIN customers cu ON cu.id = c.customer_id WHERE c.id = ? AND c.shop_id = ?"},
    {Stmt::survey_insert, "survey_insert", kWrites,
     "INSERT INTO surveys (shop_id, conversation_id, customer_id, mark, comment, message_id, "
     "graph_nodes, node_ids, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id"},
    {Stmt::survey_day_count_bump, "survey_day_count_bump", kWrites,
     "INSERT INTO survey_daily_counts (shop_id, day, mark, count) VALUES (?, ?, ?, 1) "
     "ON DUPLICATE KEY UPDATE count = count + 1"},
    // The page: a backward range scan of ix_surveys_shop_created, stopping after the page.
    // The index is forced: with the joins, MariaDB otherwise switches the prepared statement
    // (after its first execution) to walking the shop's whole index prefix from its newest
    // survey, which takes a second for a window months back in a shop of a million surveys.
    {Stmt::csat_page_shop, "csat_page_shop", kReads,
     "SELECT " SUPPORTCRM_SURVEY_COLUMNS " FROM surveys s FORCE INDEX (ix_surveys_shop_created) "
     "JOIN shops sh ON sh.id = s.shop_id JOIN customers cu ON cu.id = s.customer_id "
     "WHERE s.shop_id = ? AND s.created_at BETWEEN ? AND ? "
     "ORDER BY s.created_at DESC, s.id DESC LIMIT ? OFFSET ?"},
    // Shop scope in one statement, so in one snapshot without a transaction: the key's shop,
    // the window's counts per mark (whole days from the daily counts, the partial first day
    // from the rows; each a string "n1 n2 n3 n4 n5", evaluated once: the key's shop is a
    // constant table) and the page, one survey per row, read backwards along the index and
    // stopped after the page. No rows (an unknown key, an empty window, a page past the end):
    // the caller resolves the key and falls back to csat_page_shop + csat_stats_shop. (A LEFT
    // JOIN would keep the key's row, but MariaDB then sorts the whole window.)
    {Stmt::csat_page_for_key, "csat_page_for_key", kReads,
     "SELECT " SUPPORTCRM_SURVEY_COLUMNS_OF_KEY_SHOP ", " SUPPORTCRM_DAY_COUNTS
     ", " SUPPORTCRM_RAW_COUNTS ", " SUPPORTCRM_KEY_COLUMNS " FROM " SUPPORTCRM_KEY_TABLES
     " JOIN surveys s FORCE INDEX (ix_surveys_shop_created) "
     "ON s.shop_id = ks.id AND s.created_at BETWEEN ? AND ? "
     "JOIN customers cu ON cu.id = s.customer_id WHERE " SUPPORTCRM_KEY_MATCH
     " ORDER BY s.created_at DESC, s.id DESC LIMIT ? OFFSET ?"},
    // Deep pages in brand scope (see survey_repo.cpp): the brand's surveys in the window are
    // sorted as a whole.
    {Stmt::csat_page_brand, "csat_page_brand", kReads,
     "SELECT " SUPPORTCRM_SURVEY_COLUMNS
     " FROM (SELECT id FROM surveys WHERE shop_id IN (" SUPPORTCRM_BRAND_SHOPS
     ") AND created_at BETWEEN ? AND ? "
     "ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?) p " SUPPORTCRM_SURVEY_JOINS
     " ORDER BY s.created_at DESC, s.id DESC"},
    {Stmt::brand_shop_ids, "brand_shop_ids", kReads, SUPPORTCRM_BRAND_SHOPS " ORDER BY id"},
    // Stats: whole days from the per-day counts, plus the raw rows of the partial first day
    // (a startDate with a time of day); the caller passes empty ranges for parts not needed.
    {Stmt::csat_stats_shop, "csat_stats_shop", kReads,
     "SELECT mark, SUM(n) FROM ("
     "SELECT mark, count AS n FROM survey_daily_counts WHERE shop_id = ? AND day BETWEEN ? AND ? "
     "UNION ALL SELECT mark, COUNT(*) FROM surveys WHERE shop_id = ? "
     "AND created_at BETWEEN ? AND ? GROUP BY mark) t GROUP BY mark"},
    {Stmt::brand_insert, "brand_insert", kWrites,
     "INSERT INTO brands (name, created_at) VALUES (?, ?) RETURNING id"},
    {Stmt::brand_exists, "brand_exists", kReads, "SELECT id FROM brands WHERE id = ?"},
    {Stmt::shop_insert, "shop_insert", kWrites,
     "INSERT INTO shops (domain, brand_id, created_at) VALUES (?, ?, ?) RETURNING id"},
    {Stmt::shop_by_domain, "shop_by_domain", kReads,
     "SELECT id, domain, brand_id, deleted_at IS NOT NULL FROM shops WHERE domain = ?"},
    {Stmt::shop_soft_delete, "shop_soft_delete", kWrites,
     "UPDATE shops SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL"},
    {Stmt::key_insert, "key_insert", kWrites,
     "INSERT INTO api_keys (shop_id, label, key_hash, created_at) VALUES (?, ?, ?, ?) "
     "RETURNING id"},
    {Stmt::key_by_id, "key_by_id", kReads,
     "SELECT id, revoked_at IS NOT NULL FROM api_keys WHERE id = ?"},
    {Stmt::key_revoke, "key_revoke", kWrites,
     "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"},
    {Stmt::user_insert, "user_insert", kWrites,
     "INSERT INTO users (shop_id, email, first_name, last_name, full_name, created_at) "
     "VALUES (?, ?, ?, ?, ?, ?) RETURNING id"},
};
// clang-format on
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

// A statement marked kReads that wrote would let a request be run twice after a lost connection.
constexpr bool write_flags_match_sql() {
    for (const StatementSpec& s : kStatements) {
        bool changes_data = starts_with(s.sql, "INSERT") || starts_with(s.sql, "UPDATE") ||
                            starts_with(s.sql, "DELETE") || starts_with(s.sql, "REPLACE");
        if (s.writes != changes_data || (!changes_data && !starts_with(s.sql, "SELECT"))) {
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

void Db::failed(const sql::SQLException& e, const char* what, WriteLedger::Mark before) {
    const int code = e.getErrorCode();
    if (is_connection_lost(code)) {
        // The server rolls back an open transaction when the connection goes; whether a
        // statement sent outside one (or COMMIT) took effect is unknown unless it was never sent.
        if (is_not_sent(code)) {
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
    sql::ConnectOptionsMap options;
    if (!settings_.socket.empty()) {
        options["hostName"] = sql::SQLString("localhost");
        options["socket"] = sql::SQLString(settings_.socket);
    } else {
        options["hostName"] = sql::SQLString(settings_.host);
        options["port"] = static_cast<int>(settings_.port);
    }
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
        throw DbUnavailable(std::string("cannot connect to the database: code ") +
                            std::to_string(e.getErrorCode()) + ", SQLSTATE " + e.getSQLStateCStr() +
                            ": " + e.what());
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
    // A read-only transaction reads one snapshot from its start: a page and the counts beside
    // it can never disagree.
    execute(
        read_only ? "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY" : "START TRANSACTION",
        "begin");
    ledger_.transaction_opened();
}

void Db::commit() {
    // COMMIT as a statement, not sql::Connection::commit(): Connector/C++ 1.1 drops the C API's
    // answer there (MySQL_Connection::commit() is `checkClosed(); proxy->commit();`), so a
    // COMMIT the server refused would look like success. The same one round trip either way
    // (mysql_commit() sends this very query).
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

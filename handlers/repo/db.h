// The worker's one database connection and its prepared statements (RAII throughout).
//
// Every SQL statement the service runs is listed once in the Stmt enum and the table in
// db.cpp; each is prepared at most once per connection and reused for every request. A lost
// connection surfaces as DbUnavailable; the request boundary reconnects once and retries.
#pragma once

#include <cppconn/connection.h>
#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>
#include <cppconn/statement.h>

#include <array>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "fcgi/config.h"

namespace supportcrm {

enum class Stmt {
    ping,
    // auth
    shop_by_key_hash,
    // customers
    customer_insert,
    customer_by_id,
    customer_by_email_key,
    customer_by_phone_key,
    // tickets
    customer_exists,
    user_exists,
    conversation_insert,
    human_ticket_insert,
    ticket_detail,
    // comments
    conversation_touch,
    message_insert,
    comments_of_ticket,
    ticket_customer,
    // csat
    survey_conversation,
    survey_insert,
    survey_day_count_bump,
    csat_page_shop,
    csat_page_for_key,
    csat_page_brand,
    brand_shop_ids,
    csat_stats_shop,
    // admin
    brand_insert,
    brand_exists,
    shop_insert,
    shop_by_domain,
    shop_soft_delete,
    key_insert,
    key_by_id,
    key_revoke,
    user_insert,
    count_  // not a statement: the number of them
};

// The database cannot be reached, or the connection was lost mid-request: answer 503.
struct DbUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Any other database error. The message carries the statement's name, the MySQL error code
// and SQLSTATE — never bound values — and is for the log, not for clients.
struct DbError : std::runtime_error {
    DbError(const std::string& what, int code) : std::runtime_error(what), error_code(code) {}
    int error_code;
};

constexpr int kErDupEntry = 1062;

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

    // Prepares every statement now, so that a worker pays for it at start-up and a schema that
    // does not match the code is reported before the first request.
    void prepare_all();

    // The prepared statement for id, prepared on first use on this connection.
    sql::PreparedStatement& statement(Stmt id);
    static const char* name(Stmt id);

    // Runs fn (which uses statement(id)) and translates connector exceptions: a lost
    // connection becomes DbUnavailable, anything else DbError naming the statement.
    template <typename Fn>
    auto run(Stmt id, Fn&& fn) -> decltype(fn(std::declval<sql::PreparedStatement&>())) {
        try {
            return fn(statement(id));
        } catch (const sql::SQLException& e) {
            rethrow_as_ours(e, name(id));
        }
    }

    // Plain statements (DDL, transaction control); same translation as run().
    void execute(const std::string& sql_text, const char* what);

    void begin(bool read_only = false);
    void commit();
    void rollback() noexcept;

    sql::Connection& connection();

    // Connection-lost error codes of the client library and server.
    static bool is_connection_lost(int code);

    // Converts a connector exception met outside run() (e.g. while reading a result set).
    [[noreturn]] static void rethrow(const sql::SQLException& e, const char* what);

  private:
    [[noreturn]] void rethrow_as_ours(const sql::SQLException& e, const char* what) {
        rethrow(e, what);
    }

    DbSettings settings_;
    std::unique_ptr<sql::Connection> connection_;
    std::unique_ptr<sql::Statement> plain_;
    std::array<std::unique_ptr<sql::PreparedStatement>, static_cast<std::size_t>(Stmt::count_)>
        statements_;
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

// Result sets live in one function scope.
using ResultSetPtr = std::unique_ptr<sql::ResultSet>;

// NULL for nullopt, the text otherwise.
void bind_optional(sql::PreparedStatement& st, unsigned index, const std::optional<std::string>& v);
void bind_optional(sql::PreparedStatement& st, unsigned index,
                   const std::optional<std::uint64_t>& v);
std::optional<std::string> optional_string(const sql::ResultSet& rs, unsigned column);
std::optional<std::uint64_t> optional_uint(const sql::ResultSet& rs, unsigned column);
// A column selected as SUPPORTCRM_MILLIS(datetime) (db.cpp), as ISO 8601 text.
std::string iso_datetime(const sql::ResultSet& rs, unsigned column);
std::optional<std::string> optional_iso_datetime(const sql::ResultSet& rs, unsigned column);

}  // namespace supportcrm

// Every SQL statement of the service, declared once.
//
// Each <resource>_sql.h lists its statements as entries S(name, SQL) of one macro, beside the
// layout of their rows; SUPPORTCRM_STATEMENTS below strings the lists together, and from it
// follow the Stmt enum, each statement's name and the table Db prepares from. Whether a
// statement writes (what the WriteLedger counts) follows from its SQL text. Adding a statement
// is one entry in its resource's list and the code that runs it.
#pragma once

#include <cstddef>
#include <iterator>
#include <string_view>

#include "db/admin_sql.h"
#include "db/auth_sql.h"
#include "db/changes_sql.h"
#include "db/comment_sql.h"
#include "db/customer_sql.h"
#include "db/erasure_sql.h"
#include "db/idempotency_sql.h"
#include "db/search_sql.h"
#include "db/secret_sql.h"
#include "db/survey_sql.h"
#include "db/ticket_sql.h"
#include "db/webhook_sql.h"

namespace supportcrm {

// The whole SQL vocabulary of the service, each statement prepared once per connection
// (docs/performance.md, "The statements' shapes", tells why they look as they do).
// clang-format off
#define SUPPORTCRM_STATEMENTS(S)          \
    S(ping, "SELECT 1")                   \
    SUPPORTCRM_AUTH_STATEMENTS(S)         \
    SUPPORTCRM_CUSTOMER_STATEMENTS(S)     \
    SUPPORTCRM_ERASURE_STATEMENTS(S)      \
    SUPPORTCRM_TICKET_STATEMENTS(S)       \
    SUPPORTCRM_SEARCH_STATEMENTS(S)       \
    SUPPORTCRM_COMMENT_STATEMENTS(S)      \
    SUPPORTCRM_SURVEY_STATEMENTS(S)       \
    SUPPORTCRM_ADMIN_STATEMENTS(S)        \
    SUPPORTCRM_IDEMPOTENCY_STATEMENTS(S)  \
    SUPPORTCRM_SECRET_STATEMENTS(S)       \
    SUPPORTCRM_WEBHOOK_STATEMENTS(S)      \
    SUPPORTCRM_CHANGES_STATEMENTS(S)

#define SUPPORTCRM_STMT_ENUMERATOR(name, ...) name,
enum class Stmt { SUPPORTCRM_STATEMENTS(SUPPORTCRM_STMT_ENUMERATOR) count_ /* not a statement: the number of them */ };
#undef SUPPORTCRM_STMT_ENUMERATOR
// clang-format on

constexpr std::size_t kStatementCount = static_cast<std::size_t>(Stmt::count_);

namespace statement_text {

// The statement proper of "SET STATEMENT var = value FOR <statement>" (MariaDB: a session
// variable for one statement), else the text itself.
constexpr std::string_view proper(std::string_view sql) {
    constexpr std::string_view kSetStatement = "SET STATEMENT ", kFor = " FOR ";
    if (sql.substr(0, kSetStatement.size()) != kSetStatement) {
        return sql;
    }
    const std::size_t f = sql.find(kFor);
    return f == std::string_view::npos ? sql : sql.substr(f + kFor.size());
}

constexpr bool starts_with(std::string_view sql, std::string_view word) {
    return sql.substr(0, word.size()) == word;
}

// Whether the statement changes data: INSERT, UPDATE, DELETE or REPLACE.
constexpr bool writes(std::string_view sql) {
    const std::string_view s = proper(sql);
    return starts_with(s, "INSERT") || starts_with(s, "UPDATE") || starts_with(s, "DELETE") ||
           starts_with(s, "REPLACE");
}

// Every statement either writes or is a SELECT: anything else (a CALL, a LOAD) could write
// without the ledger knowing, and a request could then be run twice after a lost connection.
constexpr bool writes_or_selects(std::string_view sql) {
    return writes(sql) || starts_with(proper(sql), "SELECT");
}

}  // namespace statement_text

struct StatementSpec {
    const char* name;
    const char* sql;
    bool writes;  // changes data: counted by the WriteLedger
};

// clang-format off
#define SUPPORTCRM_STMT_SPEC(name, ...) StatementSpec{#name, __VA_ARGS__, statement_text::writes(__VA_ARGS__)},
inline constexpr StatementSpec kStatements[] = {SUPPORTCRM_STATEMENTS(SUPPORTCRM_STMT_SPEC)};
#undef SUPPORTCRM_STMT_SPEC
// clang-format on
static_assert(std::size(kStatements) == kStatementCount);

constexpr bool every_statement_writes_or_selects() {
    for (const StatementSpec& s : kStatements) {
        if (!statement_text::writes_or_selects(s.sql)) {
            return false;
        }
    }
    return true;
}
static_assert(every_statement_writes_or_selects(),
              "a statement must be a SELECT or INSERT/UPDATE/DELETE/REPLACE");

constexpr const StatementSpec& statement_spec(Stmt id) {
    return kStatements[static_cast<std::size_t>(id)];
}

}  // namespace supportcrm

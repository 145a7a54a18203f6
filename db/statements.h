// Every SQL statement of the service, declared once.
//
// Each <resource>_sql.h lists its statements as entries S(name, SQL) of one macro, beside the
// layout of their rows; SUPPORTCRM_STATEMENTS below strings the lists together, and from it
// follow the Stmt enum here and, in db/statement_table.h (read by db/statements.cpp alone),
// each statement's name and the table Db prepares from. Adding a statement is one entry in its
// resource's list and the code that runs it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "db/admin_sql.h"
#include "db/auth_sql.h"
#include "db/changes_sql.h"
#include "db/comment_sql.h"
#include "db/customer_sql.h"
#include "db/erasure_sql.h"
#include "db/idempotency_sql.h"
#include "db/search/sql.h"
#include "db/secret_sql.h"
#include "db/survey_sql.h"
#include "db/ticket_sql.h"
#include "db/webhook_sql.h"

namespace supportcrm {

// The whole SQL vocabulary of the service, each statement prepared once per connection
// (docs/performance.md, "The statements' shapes", tells why they look as they do).
// clang-format off
#define SUPPORTCRM_STATEMENTS(S)          \
    S(ping, (), "SELECT 1")                   \
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
enum class Stmt : std::uint16_t { SUPPORTCRM_STATEMENTS(SUPPORTCRM_STMT_ENUMERATOR) count_ /* not a statement: the number of them */ };
#undef SUPPORTCRM_STMT_ENUMERATOR
// clang-format on

constexpr std::size_t kStatementCount = static_cast<std::size_t>(Stmt::count_);

}  // namespace supportcrm

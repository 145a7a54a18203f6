// Every SQL statement of the service, declared once.
//
// Each <resource>_sql.h lists its statements as entries S(name, (params), SQL) of one macro,
// beside the layout of their rows: (params) are the types of its placeholders in order
// (db/binds.h: (Id, Key, OptText), or (Positional<N>) for the few bound by loops).
// SUPPORTCRM_STATEMENTS below strings the lists together, and from it follow the Stmt enum here;
// in db/statement_params.h each statement's parameter list, which bound<Stmt::name>(values...)
// checks its values against; and in db/statement_table.h (read by db/statements.cpp alone) each
// statement's name, the table Db prepares from, and the check that each SQL has as many ? as
// parameters. Adding a statement is one entry in its resource's list and the code that runs
// it: db.run(bound<Stmt::name>(values...), [&](sql::PreparedStatement& st) { ... }).
#pragma once

#include <cstddef>
#include <cstdint>

#include "db/admin_sql.h"
#include "db/auth_sql.h"
#include "db/changes_sql.h"
#include "db/comment_sql.h"
#include "db/customer_sql.h"
#include "db/erasure_sql.h"
#include "db/file_sql.h"
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
#define SUPPORTCRM_STATEMENTS(S, K)       \
    S(ping, (), "SELECT 1")                   \
    SUPPORTCRM_AUTH_STATEMENTS(S, K)      \
    SUPPORTCRM_CUSTOMER_STATEMENTS(S, K)  \
    SUPPORTCRM_ERASURE_STATEMENTS(S, K)   \
    SUPPORTCRM_TICKET_STATEMENTS(S, K)    \
    SUPPORTCRM_SEARCH_STATEMENTS(S, K)    \
    SUPPORTCRM_COMMENT_STATEMENTS(S, K)   \
    SUPPORTCRM_SURVEY_STATEMENTS(S, K)    \
    SUPPORTCRM_ADMIN_STATEMENTS(S, K)     \
    SUPPORTCRM_IDEMPOTENCY_STATEMENTS(S, K) \
    SUPPORTCRM_SECRET_STATEMENTS(S, K)    \
    SUPPORTCRM_WEBHOOK_STATEMENTS(S, K)   \
    SUPPORTCRM_CHANGES_STATEMENTS(S, K)   \
    SUPPORTCRM_FILE_STATEMENTS(S, K)

#define SUPPORTCRM_STMT_ENUMERATOR(name, ...) name,
enum class Stmt : std::uint16_t { SUPPORTCRM_STATEMENTS(SUPPORTCRM_STMT_ENUMERATOR, SUPPORTCRM_STMT_ENUMERATOR) count_ /* not a statement: the number of them */ };
#undef SUPPORTCRM_STMT_ENUMERATOR
// clang-format on

constexpr std::size_t kStatementCount = static_cast<std::size_t>(Stmt::count_);

}  // namespace supportcrm

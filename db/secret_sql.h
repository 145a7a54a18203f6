// The installation's secrets (sql/003): read by Db::cursor_secret(). Internal to db/.
#pragma once

#include "db/columns.h"

namespace supportcrm {

// clang-format off
namespace sql_text {

// The statements: one entry each, S(name, (params), SQL) or, a keyed read, K(name, (params),
// columns, joins, tail) (db/auth_sql.h). db/statements.h gathers every list into the
// Stmt enum and the statement table; the line below defines sql_text::<name> for the layouts.
#define SUPPORTCRM_SECRET_STATEMENTS(S, K)                                                         \
    S(installation_secret, (), "SELECT secret FROM installation_secrets WHERE name = 'cursor'")
SUPPORTCRM_SECRET_STATEMENTS(SUPPORTCRM_SQL_TEXT, SUPPORTCRM_KEYED_SQL_TEXT)

}  // namespace sql_text
// clang-format on

SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::installation_secret) == 1);

}  // namespace supportcrm

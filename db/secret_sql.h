// The installation's secrets (sql/003): read by Db::cursor_secret(). Internal to db/.
#pragma once

#include "db/columns.h"

namespace supportcrm {

namespace sql_text {
inline constexpr char installation_secret[] =
    "SELECT secret FROM installation_secrets WHERE name = 'cursor'";
}
static_assert(result_columns(sql_text::installation_secret) == 1);

}  // namespace supportcrm

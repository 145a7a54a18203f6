// The operator's statements (supportcrm-admin) and the layout of their rows. Included by
// db/statements.h (which gathers every statement list) and admin_repo.cpp (their reader).
#pragma once

#include "db/auth_sql.h"
#include "db/columns.h"

namespace supportcrm {

// clang-format off

namespace sql_text {
// The statements: one entry each, S(name, SQL). db/statements.h gathers every list into the
// Stmt enum and the statement table; the line below defines sql_text::<name> for the layouts.
#define SUPPORTCRM_ADMIN_STATEMENTS(S)                                                             \
    S(brand_insert, "INSERT INTO brands (name, created_at) VALUES (?, ?) RETURNING id")            \
    S(brand_exists, "SELECT id FROM brands WHERE id = ?")                                          \
    S(shop_insert, "INSERT INTO shops (domain, brand_id, created_at) VALUES (?, ?, ?) RETURNING id") \
    /* The columns of SUPPORTCRM_SHOP_COLUMNS, of the shop itself. */                               \
    S(shop_by_domain,                                                                              \
      "SELECT id, domain, brand_id, deleted_at IS NOT NULL, webhook_events FROM shops "            \
      "WHERE domain = ?")                                                                          \
    S(shop_soft_delete, "UPDATE shops SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL")     \
    S(key_insert,                                                                                  \
      "INSERT INTO api_keys (shop_id, label, key_hash, created_at) VALUES (?, ?, ?, ?) "           \
      "RETURNING id")                                                                              \
    S(key_by_id, "SELECT id, revoked_at IS NOT NULL FROM api_keys WHERE id = ?")                   \
    S(key_revoke, "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")        \
    S(user_insert,                                                                                 \
      "INSERT INTO users (shop_id, email, first_name, last_name, full_name, created_at) "          \
      "VALUES (?, ?, ?, ?, ?, ?) RETURNING id")
SUPPORTCRM_ADMIN_STATEMENTS(SUPPORTCRM_SQL_TEXT)

}  // namespace sql_text

// clang-format on

namespace layout {
namespace returned_id {  // what admin_repo.cpp's returned_id() reads
static_assert(result_columns(sql_text::brand_insert) == 1);
static_assert(result_columns(sql_text::shop_insert) == 1);
static_assert(result_columns(sql_text::key_insert) == 1);
static_assert(result_columns(sql_text::user_insert) == 1);
}  // namespace returned_id
namespace shop_by_domain {
constexpr ColumnRun shop{1, kShopColumns};
static_assert(shop.last() == result_columns(sql_text::shop_by_domain));
}  // namespace shop_by_domain
}  // namespace layout

}  // namespace supportcrm

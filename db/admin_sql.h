// The operator's statements (supportcrm-admin) and the layout of their rows. Internal to db/:
// included by db.cpp (the statement table) and admin_repo.cpp (their reader).
#pragma once

#include "db/auth_sql.h"
#include "db/columns.h"

namespace supportcrm {

// clang-format off

namespace sql_text {

inline constexpr char brand_insert[] =
    "INSERT INTO brands (name, created_at) VALUES (?, ?) RETURNING id";
inline constexpr char brand_exists[] = "SELECT id FROM brands WHERE id = ?";
inline constexpr char shop_insert[] =
    "INSERT INTO shops (domain, brand_id, created_at) VALUES (?, ?, ?) RETURNING id";
// The columns of SUPPORTCRM_KEY_COLUMNS, of the shop itself.
inline constexpr char shop_by_domain[] =
    "SELECT id, domain, brand_id, deleted_at IS NOT NULL, webhook_events FROM shops "
    "WHERE domain = ?";
inline constexpr char shop_soft_delete[] =
    "UPDATE shops SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL";
inline constexpr char key_insert[] =
    "INSERT INTO api_keys (shop_id, label, key_hash, created_at) VALUES (?, ?, ?, ?) "
    "RETURNING id";
inline constexpr char key_by_id[] = "SELECT id, revoked_at IS NOT NULL FROM api_keys WHERE id = ?";
inline constexpr char key_revoke[] =
    "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL";
inline constexpr char user_insert[] =
    "INSERT INTO users (shop_id, email, first_name, last_name, full_name, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?) RETURNING id";

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
constexpr ColumnRun shop{1, kKeyColumns};
static_assert(shop.last() == result_columns(sql_text::shop_by_domain));
}  // namespace shop_by_domain
}  // namespace layout

}  // namespace supportcrm

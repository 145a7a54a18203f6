// The operator's statements (supportcrm-admin) and the layout of their rows. Included by
// db/statements.h (which gathers every statement list) and admin_repo.cpp (their reader).
#pragma once

#include "db/auth_sql.h"
#include "db/columns.h"

namespace supportcrm {

// clang-format off

// One key as the operator sees it (key list, key rotate).
#define SUPPORTCRM_KEY_ROW_COLUMNS                                                                  \
    "k.id, k.label, k.scopes + 0 AS scopes, " SUPPORTCRM_MILLIS("k.created_at") ", "                \
    "TIMESTAMPDIFF(MICROSECOND, '1970-01-01', k.expires_at) DIV 1000 AS expires, "                  \
    "TIMESTAMPDIFF(MICROSECOND, '1970-01-01', k.last_used_at) DIV 1000 AS last_used, "              \
    "k.revoked_at IS NOT NULL AS revoked, k.rate_count, k.rate_period"

namespace sql_text {
// The statements: one entry each, S(name, (params), SQL) or, a keyed read, K(name, (params),
// columns, joins, tail) (db/auth_sql.h). db/statements.h gathers every list into the
// Stmt enum and the statement table; the line below defines sql_text::<name> for the layouts.
#define SUPPORTCRM_ADMIN_STATEMENTS(S, K)                                                          \
    S(brand_insert, (Text, Time), "INSERT INTO brands (name, created_at) VALUES (?, ?) RETURNING id")            \
    S(brand_exists, (Id), "SELECT id FROM brands WHERE id = ?")                                          \
    S(shop_insert, (Text, OptId, Time), "INSERT INTO shops (domain, brand_id, created_at) VALUES (?, ?, ?) RETURNING id") \
    /* The columns of SUPPORTCRM_SHOP_COLUMNS, of the shop itself. */                               \
    S(shop_by_domain, (Text),                                                                              \
      "SELECT id, domain, brand_id, deleted_at IS NOT NULL, webhook_events FROM shops "            \
      "WHERE domain = ?")                                                                          \
    S(shop_soft_delete, (Time, Id), "UPDATE shops SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL")     \
    S(key_insert, (Id, OptText, Text, Time, Text, OptTime, OptUInt, OptUInt, OptId),                                                                                  \
      "INSERT INTO api_keys (shop_id, label, key_hash, created_at, scopes, expires_at, "           \
      "rate_count, rate_period, replaces_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id")     \
    /* key list (extensions.md §E12): every key of the shop, revoked ones too. */                 \
    S(keys_of_shop, (Id), "SELECT " SUPPORTCRM_KEY_ROW_COLUMNS " FROM api_keys k WHERE k.shop_id = ? "   \
      "ORDER BY k.id")                                                                             \
    /* key rotate: the old key, locked until its successor is made and its expiry set. */         \
    S(key_for_rotation, (Id),                                                                            \
      "SELECT " SUPPORTCRM_KEY_ROW_COLUMNS ", k.shop_id FROM api_keys k WHERE k.id = ? FOR UPDATE") \
    /* key rotate replaces a key at most once: its live successor, if it has one. Read after */ \
    /* key_for_rotation's lock on the old key, the transaction's first plain read: its snapshot */ \
    /* starts after a concurrent rotation of the same key committed (on Galera the two meet at */  \
    /* certification, both writing the old key's row). Not a locking read: api_keys has no */      \
    /* index on replaces_id, and a locking scan would hold every key's row (lastUsedAt). */       \
    S(key_successor, (Id),                                                                               \
      "SELECT id FROM api_keys WHERE replaces_id = ? AND revoked_at IS NULL LIMIT 1")             \
    S(key_set_expiry, (Time, Id), "UPDATE api_keys SET expires_at = ? WHERE id = ?")                           \
    S(key_by_id, (Id), "SELECT id, revoked_at IS NOT NULL FROM api_keys WHERE id = ?")                   \
    S(key_revoke, (Time, Id), "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")        \
    S(user_insert, (Id, Text, OptText, OptText, OptText, Time),                                                                                 \
      "INSERT INTO users (shop_id, email, first_name, last_name, full_name, created_at) "          \
      "VALUES (?, ?, ?, ?, ?, ?) RETURNING id")
SUPPORTCRM_ADMIN_STATEMENTS(SUPPORTCRM_SQL_TEXT, SUPPORTCRM_KEYED_SQL_TEXT)

}  // namespace sql_text

// clang-format on

namespace layout {
namespace returned_id {  // what admin_repo.cpp's returned_id() reads
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::brand_insert) == 1);
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::shop_insert) == 1);
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::key_insert) == 1);
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::user_insert) == 1);
}  // namespace returned_id
namespace key_row {  // keys_of_shop, key_for_rotation
constexpr unsigned at(std::string_view name) {
    return column_of(SUPPORTCRM_KEY_ROW_COLUMNS, name);
}
constexpr ColumnRun row{1, count_columns(SUPPORTCRM_KEY_ROW_COLUMNS)};
constexpr unsigned id = row[at("id")], label = row[at("label")], scopes = row[at("scopes")],
                   created = row[at("ms")], expires = row[at("expires")],
                   last_used = row[at("last_used")], revoked = row[at("revoked")],
                   rate_count = row[at("rate_count")], rate_period = row[at("rate_period")];
SUPPORTCRM_LAYOUT_CHECK(row.last() == result_columns(sql_text::keys_of_shop));
constexpr unsigned shop_id = row.next();
SUPPORTCRM_LAYOUT_CHECK(shop_id == result_columns(sql_text::key_for_rotation));
}  // namespace key_row
namespace shop_by_domain {
constexpr ColumnRun shop{1, kShopColumns};
SUPPORTCRM_LAYOUT_CHECK(shop.last() == result_columns(sql_text::shop_by_domain));
}  // namespace shop_by_domain
}  // namespace layout

}  // namespace supportcrm

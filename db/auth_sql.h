// The API key's columns, joined into every keyed statement, and the key's own statement. Included
// by db/statements.h (which gathers every statement list) and the repositories.
#pragma once

#include <cppconn/resultset.h>

#include "db/columns.h"
#include "db/rows.h"

namespace supportcrm {

// clang-format off

// A keyed statement resolves the request's API key in the round trip that does the work: the
// key's shop is joined in, its columns come last (read_keyed_shop) and the key's digest is
// bound to the placeholder of SUPPORTCRM_KEY_MATCH. Its row tells an unknown key (no row, or
// none at all), a deleted shop and a missing record apart, in the contract's order (see
// api/caller.h).
// The shop's columns come in the same places in both lists (shop_by_domain selects a shop
// itself); in the key's row the shop's `deleted` and the key's terms (extensions.md §E12) are
// packed into one text column, key_terms, so the row every request reads already says what
// the key may do: no statement of its own for scopes, expiry or rate. One column, not six:
// Connector/C++ pays for every column of every result set (its column-name map, the binds),
// and five separate columns cost S1 ~8 % more instructions per request (docs/performance.md,
// "Key terms in one column").
// key_terms: "deleted,key id,scope bits,expiry (epoch ms),rate count,rate period (s)", a
// NULL as an empty field (read_keyed_shop()).
#define SUPPORTCRM_SHOP_COLUMNS \
    "ks.id, ks.domain, ks.brand_id, ks.deleted_at IS NOT NULL AS deleted, ks.webhook_events"
// (`k`.`id` is quoted so that column_of("id") names the shop's id alone.)
#define SUPPORTCRM_KEY_COLUMNS \
    "ks.id, ks.domain, ks.brand_id, CONCAT_WS(',', ks.deleted_at IS NOT NULL, `k`.`id`, " \
    "k.scopes + 0, IFNULL(TIMESTAMPDIFF(MICROSECOND, '1970-01-01', k.expires_at) DIV 1000, ''), " \
    "IFNULL(k.rate_count, ''), IFNULL(k.rate_period, '')) AS key_terms, ks.webhook_events"
#define SUPPORTCRM_KEY_TABLES "api_keys k JOIN shops ks ON ks.id = k.shop_id"
#define SUPPORTCRM_KEY_MATCH "k.key_hash = ? AND k.revoked_at IS NULL"

// A keyed statement: an entry K(name, (params), columns, joins, tail) of a statement list reads
// `columns` and then the key's (SUPPORTCRM_KEY_COLUMNS, last: the run read_keyed_shop() reads)
// from the key's tables and `joins`, where the key matches, then `tail` (more conditions, ORDER
// BY, LIMIT). (params) are the placeholders of columns, joins and tail; the key's digest (Key)
// is placed between those of the joins and the tail by the generator (db/statement_params.h),
// and is_keyed() tells such a statement. The keyed writes (INSERT ... SELECT, UPDATE ... JOIN)
// are written out: the key's tables and match sit inside another statement's shape.
#define SUPPORTCRM_KEYED_SQL(columns, joins, tail)                                  \
    "SELECT " columns ", " SUPPORTCRM_KEY_COLUMNS " FROM " SUPPORTCRM_KEY_TABLES " " \
    joins " WHERE " SUPPORTCRM_KEY_MATCH " " tail
#define SUPPORTCRM_KEYED_SQL_TEXT(name, params, columns, joins, tail) \
    inline constexpr char name[] = SUPPORTCRM_KEYED_SQL(columns, joins, tail);

// clang-format on

// Offsets into SUPPORTCRM_KEY_COLUMNS.
namespace key_col {
constexpr unsigned at(std::string_view name) {
    return column_of(SUPPORTCRM_KEY_COLUMNS, name);
}
constexpr unsigned id = at("id"), domain = at("domain"), brand_id = at("brand_id"),
                   key_terms = at("key_terms"), webhook_events = at("webhook_events");
}  // namespace key_col
// Offsets into SUPPORTCRM_SHOP_COLUMNS: the same places, `deleted` where key_terms is.
namespace shop_col {
constexpr unsigned at(std::string_view name) {
    return column_of(SUPPORTCRM_SHOP_COLUMNS, name);
}
constexpr unsigned id = at("id"), domain = at("domain"), brand_id = at("brand_id"),
                   deleted = at("deleted"), webhook_events = at("webhook_events");
SUPPORTCRM_LAYOUT_CHECK(id == key_col::id && domain == key_col::domain &&
                        brand_id == key_col::brand_id && deleted == key_col::key_terms &&
                        webhook_events == key_col::webhook_events);
}  // namespace shop_col
constexpr unsigned kKeyColumns = count_columns(SUPPORTCRM_KEY_COLUMNS);
constexpr unsigned kShopColumns = count_columns(SUPPORTCRM_SHOP_COLUMNS);

// The run of SUPPORTCRM_KEY_COLUMNS in a keyed statement's row.
Shop read_keyed_shop(const sql::ResultSet& rs, ColumnRun key);
// The run of SUPPORTCRM_SHOP_COLUMNS alone (a shop without a key: the key's terms not known).
Shop read_shop(const sql::ResultSet& rs, ColumnRun shop);

// clang-format off
namespace sql_text {

// The statements: one entry each, S(name, (params), SQL) or, a keyed read, K(name, (params),
// columns, joins, tail) (db/auth_sql.h). db/statements.h gathers every list into the
// Stmt enum and the statement table; the line below defines sql_text::<name> for the layouts.
#define SUPPORTCRM_AUTH_STATEMENTS(S, K)                                                           \
    S(shop_by_key_hash, (Key), "SELECT " SUPPORTCRM_KEY_COLUMNS " FROM " SUPPORTCRM_KEY_TABLES " WHERE " SUPPORTCRM_KEY_MATCH) \
    /* lastUsedAt (extensions.md §E12), outside any transaction of the request: the row is */     \
    /* written at most once a minute whichever worker runs this, and a row lock held elsewhere */  \
    /* (a rotation, a revocation) is not waited for: the touch is skipped, the request goes on. */ \
    S(key_touch, (Id),                                                                                   \
      "SET STATEMENT innodb_lock_wait_timeout = 0 FOR "                                            \
      "UPDATE api_keys SET last_used_at = UTC_TIMESTAMP() WHERE id = ? AND "                       \
      "(last_used_at IS NULL OR last_used_at < UTC_TIMESTAMP() - INTERVAL 1 MINUTE)")
SUPPORTCRM_AUTH_STATEMENTS(SUPPORTCRM_SQL_TEXT, SUPPORTCRM_KEYED_SQL_TEXT)

}  // namespace sql_text
// clang-format on

namespace layout::shop_by_key_hash {
constexpr ColumnRun key{1, kKeyColumns};
SUPPORTCRM_LAYOUT_CHECK(key.last() == result_columns(sql_text::shop_by_key_hash));
}  // namespace layout::shop_by_key_hash

}  // namespace supportcrm

// The Idempotency-Key statements (sql/004, extensions.md §E2) and the layout of their rows.
// Included by db/statements.h (which gathers every statement list) and idempotency_repo.cpp.
#pragma once

#include "db/auth_sql.h"
#include "db/columns.h"

namespace supportcrm {

// clang-format off

namespace sql_text {
// The statements: one entry each, S(name, (params), SQL) or, a keyed read, K(name, (params),
// columns, joins, tail) (db/auth_sql.h). db/statements.h gathers every list into the
// Stmt enum and the statement table; the line below defines sql_text::<name> for the layouts.
#define SUPPORTCRM_IDEMPOTENCY_STATEMENTS(S, K)                                                    \
    /* Claims the key for the key's live shop inside the request's transaction: the uncommitted row */ \
    /* is the "in progress" state. A second claim of the same key waits at most a second for the */ \
    /* first's row lock (long enough for a request that is about to finish, or for a gap lock another */ \
    /* claim holds for a moment) and then fails with ER_LOCK_WAIT_TIMEOUT: 409. A committed row makes */ \
    /* it fail with ER_DUP_ENTRY: the stored answer is read. No row returned: no live shop for the key. */ \
    S(idempotency_claim, (Text, Text, Key),                                                                           \
      "SET STATEMENT innodb_lock_wait_timeout = 1 FOR "                                            \
      "INSERT INTO idempotency_keys (shop_id, idem_key, request_hash, created_at) "                \
      "SELECT ks.id, ?, ?, UTC_TIMESTAMP(3) FROM " SUPPORTCRM_KEY_TABLES                           \
      " WHERE " SUPPORTCRM_KEY_MATCH " AND ks.deleted_at IS NULL "                                 \
      "RETURNING shop_id, (SELECT domain FROM shops WHERE shops.id = idempotency_keys.shop_id) AS domain, " \
      "(SELECT brand_id FROM shops WHERE shops.id = idempotency_keys.shop_id) AS brand, "         \
      "(SELECT webhook_events FROM shops WHERE shops.id = idempotency_keys.shop_id) AS hooks")     \
    /* The answer, in the claiming transaction: committed with the write or not at all. */         \
    S(idempotency_store, (Int, Text, OptText, Id, Text),                                                                           \
      "UPDATE idempotency_keys SET status = ?, body = ?, etag = ? WHERE shop_id = ? AND idem_key = ?") \
    /* A retry's read after its claim met a committed row: the key's own columns (the claim that */ \
    /* failed settled nothing) and the stored answer, in one round trip. */                        \
    K(idempotency_answer_for_key, (Text), "i.request_hash, i.status, i.body, i.etag",             \
      "LEFT JOIN idempotency_keys i ON i.shop_id = ks.id AND i.idem_key = ?", "")                  \
    /* Retention (docs/operations.md "Key retention"): kept 25 hours, deleted in small batches. */ \
    /* Its range scan may meet the row lock of a claim in progress (when no committed row is younger */ \
    /* than the cutoff): it waits for it at most a second, so a worker never stalls on retention. */ \
    S(idempotency_purge, (),                                                                           \
      "SET STATEMENT innodb_lock_wait_timeout = 1 FOR "                                            \
      "DELETE FROM idempotency_keys WHERE created_at < UTC_TIMESTAMP(3) - INTERVAL 25 HOUR "       \
      "LIMIT 500")
SUPPORTCRM_IDEMPOTENCY_STATEMENTS(SUPPORTCRM_SQL_TEXT, SUPPORTCRM_KEYED_SQL_TEXT)

}  // namespace sql_text

// clang-format on

namespace layout::idempotency_claim {
enum : unsigned { shop_id = 1, shop_domain, shop_brand_id, shop_webhook_events };
SUPPORTCRM_LAYOUT_CHECK(shop_webhook_events == result_columns(sql_text::idempotency_claim));
}  // namespace layout::idempotency_claim
namespace layout::idempotency_answer_for_key {
enum : unsigned { request_hash = 1, status, body, etag };
constexpr ColumnRun key{etag + 1, kKeyColumns};
SUPPORTCRM_LAYOUT_CHECK(key.last() == result_columns(sql_text::idempotency_answer_for_key));
}  // namespace layout::idempotency_answer_for_key

}  // namespace supportcrm

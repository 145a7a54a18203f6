// The webhook statements (extensions.md §E5) and the layout of their rows. Included by
// db/statements.h (which gathers every statement list) and webhook_repo.cpp (their reader).
#pragma once

#include "db/columns.h"

namespace supportcrm {

// clang-format off

namespace sql_text {
// The statements: one entry each, S(name, (params), SQL) or, a keyed read, K(name, (params),
// columns, joins, tail) (db/auth_sql.h). db/statements.h gathers every list into the
// Stmt enum and the statement table; the line below defines sql_text::<name> for the layouts.
#define SUPPORTCRM_WEBHOOK_STATEMENTS(S, K)                                                        \
    /* The API's one webhook statement: an event in the outbox, inside the write's transaction, */ \
    /* written when the shop's webhook_events bit for it is set (customers: a trigger, sql/006): */ \
    /* since the changes feed (E11, sql/013) every bit of every shop. fanned_out = 1 when no */    \
    /* webhook of the shop wants it (sql/022): the deliverer never reads it. */                    \
    S(webhook_event_insert, (Id, UInt, Text, Time, OptText, Bool),                                                                        \
      "INSERT INTO webhook_events (shop_id, type, payload, created_at, changes, fanned_out) "      \
      "VALUES (?, ?, ?, ?, ?, ?)")                                                                 \
    /* Two events of one write, in this order (their ids ascend): a customer's comment that */     \
    /* reopens its ticket (ticket.updated, comment.created), at the cost of one statement. */       \
    S(webhook_event_insert_two, (Id, UInt, Text, Time, OptText, Bool, Id, UInt, Text, Time, OptText, Bool),                                                                    \
      "INSERT INTO webhook_events (shop_id, type, payload, created_at, changes, fanned_out) "      \
      "VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)")                                             \
    /* supportcrm-admin webhook ... */                                                             \
    S(webhook_insert, (Id, Text, UInt, Text, Time),                                                                              \
      "INSERT INTO webhooks (shop_id, url, events, secret, created_at) VALUES (?, ?, ?, ?, ?) "    \
      "RETURNING id")                                                                              \
    /* The shop's two event masks and their mark (sql/022, db/webhook_repo.h shop_events), set in the */ \
    /* transaction that adds or deletes a webhook (the shop row is locked by it, so two such */    \
    /* transactions on one shop are ordered): the events its writes record, every type (255) */   \
    /* since the changes feed (E11) reads them all; above them, the union of its webhooks' */      \
    /* filters, which decides whether an event is written already fanned out. */                  \
    S(shop_webhook_events_refresh, (Id, Id),                                                                 \
      "UPDATE shops SET webhook_events = 65536 | 255 | "                                           \
      "(SELECT COALESCE(BIT_OR(w.events), 0) FROM webhooks w WHERE w.shop_id = ?) << 8 "          \
      "WHERE id = ?")                                                                              \
    S(webhooks_of_shop, (Id),                                                                            \
      "SELECT id, url, events, " SUPPORTCRM_MILLIS("created_at")                                   \
      " FROM webhooks WHERE shop_id = ? ORDER BY id")                                              \
    S(webhook_shop, (Id), "SELECT shop_id FROM webhooks WHERE id = ?")                                   \
    S(webhook_delete, (Id), "DELETE FROM webhooks WHERE id = ?")                                         \
    /* Newest first: events are numbered in commit order (near enough: by insert). */              \
    S(webhook_deliveries_page, (Id, Id),                                                                     \
      "SELECT d.event_id, e.type, d.attempts, d.status, d.last_status_code, "                      \
      SUPPORTCRM_MILLIS("d.next_attempt_at")                                                       \
      " FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id "                     \
      "WHERE d.webhook_id = ? ORDER BY d.event_id DESC LIMIT ?")                                   \
    /* supportcrm-webhooks: fan-out of new events to the webhooks that want them and existed when */ \
    /* the event happened, then the claim of due deliveries. Both claims skip the rows another */  \
    /* deliverer holds, so deliverers on several hosts share the work and never send one attempt */ \
    /* twice at once. */                                                                           \
    S(webhook_events_new, (UInt),                                                                          \
      "SELECT id FROM webhook_events WHERE fanned_out = 0 ORDER BY id LIMIT ? "                    \
      "FOR UPDATE SKIP LOCKED")                                                                    \
    S(webhook_fan_out, (Id),                                                                             \
      "INSERT IGNORE INTO webhook_deliveries (webhook_id, event_id, next_attempt_at) "             \
      "SELECT w.id, e.id, UTC_TIMESTAMP(3) FROM webhook_events e "                                 \
      "JOIN webhooks w ON w.shop_id = e.shop_id AND (w.events & e.type) <> 0 "                     \
      "AND w.created_at <= e.created_at WHERE e.id = ?")                                           \
    S(webhook_event_fanned_out, (Id), "UPDATE webhook_events SET fanned_out = 1 WHERE id = ?")           \
    /* Only webhook_deliveries rows are locked (FOR UPDATE locks every table of a join: the shop */ \
    /* row would block the shop's API writes). The claim's transaction is short: it leases the */ \
    /* rows it takes (webhook_delivery_lease) and commits before any receiver is contacted. The */ \
    /* second parameter lists the webhooks ("1,7") whose destination already has as many */ \
    /* attempts in flight as allowed: their backlog must not fill the batch and starve others. */ \
    S(webhook_deliveries_due, (Text, UInt),                                                                      \
      "SELECT webhook_id, event_id, attempts FROM webhook_deliveries "                             \
      "WHERE status = 0 AND next_attempt_at <= UTC_TIMESTAMP(3) AND NOT FIND_IN_SET(webhook_id, ?) " \
      "ORDER BY next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED")                                   \
    /* A claimed delivery is not due again until its lease ends: if its deliverer dies, another */ \
    /* one (or it, restarted) makes the attempt then. The lease's time is also the claim's token. */ \
    S(webhook_delivery_lease, (Time, Id, Id),                                                                      \
      "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE webhook_id = ? AND event_id = ?")   \
    S(webhook_delivery_detail, (Id, Id),                                                                     \
      "SELECT w.url, w.secret, e.type, e.payload, " SUPPORTCRM_MILLIS("e.created_at") ", s.domain, " \
      "e.changes "                                                                                 \
      "FROM webhook_events e JOIN webhooks w ON w.id = ? JOIN shops s ON s.id = e.shop_id "        \
      "WHERE e.id = ?")                                                                            \
    /* Only while the claim is still this deliverer's (its lease time unchanged): a deliverer */ \
    /* whose lease ran out records nothing over the one that claimed the delivery after it. */     \
    S(webhook_delivery_update, (UInt, Time, OptId, Id, Id, Time),                                                                     \
      "UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, next_attempt_at = ?, "   \
      "last_status_code = ? WHERE webhook_id = ? AND event_id = ? AND status = 0 "                 \
      "AND next_attempt_at = ?")                                                                   \
    S(webhook_attempt_insert, (Id, Id, Time, OptId, OptText, Id),                                                                      \
      "INSERT INTO webhook_attempts (webhook_id, event_id, attempted_at, status_code, error, "     \
      "duration_ms) VALUES (?, ?, ?, ?, ?, ?)")                                                    \
    /* An attempt's outcome, added just before the COMMIT that records it: the counter row stays */ \
    /* locked only from here to the COMMIT, so deliverers hardly ever wait for each other. */      \
    S(webhook_outcome_count_add, (UInt, Id),                                                                   \
      "INSERT INTO webhook_outcome_counts (outcome, attempts) VALUES (?, ?) "                      \
      "ON DUPLICATE KEY UPDATE attempts = attempts + VALUES(attempts)")                            \
    /* Retention (webhook-retention-days), in small autocommit batches. A finished delivery's */   \
    /* next_attempt_at is the time it finished (ix_webhook_deliveries_due); its attempts go with it */ \
    /* (ON DELETE CASCADE). An event goes once it has no delivery left; a pending delivery keeps its */ \
    /* event. Lock waits are cut short: retention can wait for the next round. */                  \
    S(webhook_deliveries_prune, (Time, UInt),                                                                    \
      "SET STATEMENT innodb_lock_wait_timeout = 1 FOR "                                            \
      "DELETE FROM webhook_deliveries WHERE status IN (1, 2, 3) AND next_attempt_at < ? LIMIT ?")     \
    S(webhook_events_prune, (Time, UInt),                                                                        \
      "SET STATEMENT innodb_lock_wait_timeout = 1 FOR "                                            \
      "DELETE FROM webhook_events WHERE created_at < ? AND fanned_out = 1 AND NOT EXISTS "         \
      "(SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id) "                 \
      "ORDER BY created_at LIMIT ?")                                                               \
    /* GET /metrics (extensions.md §E6), at scrape time only. Both counts are index-only range */  \
    /* scans (ix_webhook_deliveries_due, ix_webhook_events_pending) over the backlog, nothing else. */ \
    S(webhook_queue_depth, (),                                                                         \
      "SELECT (SELECT COUNT(*) FROM webhook_deliveries "                                           \
      "WHERE status = 0 AND next_attempt_at <= UTC_TIMESTAMP(3)) + "                               \
      "(SELECT COUNT(*) FROM webhook_events WHERE fanned_out = 0)")                                \
    S(webhook_outcome_counts, (), "SELECT outcome, attempts FROM webhook_outcome_counts")
SUPPORTCRM_WEBHOOK_STATEMENTS(SUPPORTCRM_SQL_TEXT, SUPPORTCRM_KEYED_SQL_TEXT)

}  // namespace sql_text

// clang-format on

namespace layout {
namespace webhooks_of_shop {
constexpr unsigned id = 1, url = 2, events = 3, created_at = 4;
SUPPORTCRM_LAYOUT_CHECK(created_at == result_columns(sql_text::webhooks_of_shop));
}  // namespace webhooks_of_shop
namespace webhook_deliveries_page {
constexpr unsigned event_id = 1, type = 2, attempts = 3, status = 4, last_status_code = 5,
                   next_attempt_at = 6;
SUPPORTCRM_LAYOUT_CHECK(next_attempt_at == result_columns(sql_text::webhook_deliveries_page));
}  // namespace webhook_deliveries_page
namespace webhook_deliveries_due {
constexpr unsigned webhook_id = 1, event_id = 2, attempts = 3;
SUPPORTCRM_LAYOUT_CHECK(attempts == result_columns(sql_text::webhook_deliveries_due));
}  // namespace webhook_deliveries_due
namespace webhook_delivery_detail {
constexpr unsigned url = 1, secret = 2, type = 3, payload = 4, created_at = 5, domain = 6,
                   changes = 7;
SUPPORTCRM_LAYOUT_CHECK(changes == result_columns(sql_text::webhook_delivery_detail));
}  // namespace webhook_delivery_detail
namespace webhook_outcome_counts {
constexpr unsigned outcome = 1, attempts = 2;
SUPPORTCRM_LAYOUT_CHECK(attempts == result_columns(sql_text::webhook_outcome_counts));
}  // namespace webhook_outcome_counts
}  // namespace layout

}  // namespace supportcrm

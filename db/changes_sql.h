// The changes feed's statements (extensions.md §E11) and the layout of their rows. Included by
// db/statements.h (which gathers every statement list) and changes_repo.cpp (their reader).
//
// The feed's entries are the webhook outbox's events (sql/006, sql/013). A write inserts its
// event with seq NULL; a reader numbers its shop's committed events (changes_number, under the
// change_sequences row lock) and reads by number: why that never skips an event is in
// changes_repo.h.
#pragma once

#include "db/columns.h"

namespace supportcrm {

// clang-format off

namespace sql_text {
#define SUPPORTCRM_CHANGES_STATEMENTS(S, K)                                                        \
    /* Whether the shop has committed events not numbered yet (a consistent read: an event */     \
    /* committing meanwhile is found by the next call). ux_webhook_events_shop_seq: one lookup. */ \
    S(changes_unnumbered, (Id),                                                                          \
      "SELECT 1 FROM webhook_events WHERE shop_id = ? AND seq IS NULL LIMIT 1")                    \
    /* The numbering, in one short READ COMMITTED transaction. The shop's counter row, locked: */ \
    /* one numbering at a time per shop; a locking read reads the last committed numbering. */   \
    /* With it, the running maximum of created_at where the last numbering left it (sql/015). */ \
    S(change_sequence_locked, (Id),                                                                      \
      "SELECT last_seq, " SUPPORTCRM_MILLIS("COALESCE(last_at, '1970-01-01')")                     \
      " FROM change_sequences WHERE shop_id = ? FOR UPDATE")                                       \
    /* A shop's first numbering makes its row (two racing: the second waits, then ignores). */    \
    S(change_sequence_insert, (Id),                                                                      \
      "INSERT IGNORE INTO change_sequences (shop_id, last_seq) VALUES (?, 0)")                     \
    /* The shop's committed unnumbered events, in id order: a consistent (non-locking) read, so */ \
    /* an event whose write has not committed is neither seen nor waited for (a locking scan of */ \
    /* the index would wait for that write's row lock). Under READ COMMITTED the read's */        \
    /* snapshot is taken now, after the counter's lock: it holds every numbering before. */       \
    S(changes_unnumbered_ids, (Id, UInt),                                                                      \
      "SELECT id, " SUPPORTCRM_MILLIS("created_at")                                                \
      " FROM webhook_events WHERE shop_id = ? AND seq IS NULL ORDER BY id LIMIT ?")                \
    /* Each of those events gets the next number, one primary-key update each: the statement */  \
    /* touches that committed row alone. (A multi-table UPDATE over a JSON_TABLE of the ids was */ \
    /* one statement, but it may scan webhook_events, and its locking scan then waits for a */    \
    /* writer's uncommitted event: seen in tests/integration/changes_test.cpp, 6 s.) */            \
    /* feed_at: the running maximum of created_at in number order (sql/015), for since=. */     \
    S(changes_number, (Id, Time, Id),                                                                              \
      "UPDATE webhook_events SET seq = ?, feed_at = ? WHERE id = ? AND seq IS NULL")              \
    S(change_sequence_advance, (Id, Time, Id),                                                                     \
      "UPDATE change_sequences SET last_seq = ?, last_at = ? WHERE shop_id = ?")                  \
    /* A page of the feed: the entries after the cursor's number, in number order. */            \
    S(changes_page, (Id, Id, Id),                                                                                \
      "SELECT seq, id, type, payload, changes, " SUPPORTCRM_MILLIS("created_at")                   \
      " FROM webhook_events WHERE shop_id = ? AND seq > ? ORDER BY seq LIMIT ?")                   \
    /* since=<datetime>: the first number of an event written at or after it, and the shop's */   \
    /* last number (where a feed with nothing that recent starts). Events numbered before */      \
    /* sql/015 (feed_at NULL, all below the later numbers) first: MIN over that range of */        \
    /* ix_webhook_events_shop_feed_at, empty once retention deleted them (forced: the optimizer */ \
    /* took ux and read all 200,000 events of a shop). Then one dive: the */                       \
    /* first number whose feed_at, the running maximum of created_at, reached it (sql/015 says */ \
    /* why that is the first event written at or after it). The last: one dive into ux. */       \
    S(changes_since, (Id, Text, Id, Text, Id),                                                                               \
      "SELECT COALESCE("                                                                           \
      "(SELECT MIN(seq) FROM webhook_events FORCE INDEX (ix_webhook_events_shop_feed_at) "         \
      "WHERE shop_id = ? AND feed_at IS NULL "                                                     \
      "AND seq IS NOT NULL AND created_at >= ?), "                                                 \
      "(SELECT seq FROM webhook_events FORCE INDEX (ix_webhook_events_shop_feed_at) "              \
      "WHERE shop_id = ? AND feed_at >= ? "                                                        \
      "ORDER BY feed_at, seq LIMIT 1)) AS first, "                                                 \
      "(SELECT COALESCE(MAX(seq), 0) FROM webhook_events WHERE shop_id = ?) AS last")
SUPPORTCRM_CHANGES_STATEMENTS(SUPPORTCRM_SQL_TEXT, SUPPORTCRM_KEYED_SQL_TEXT)
}  // namespace sql_text

// clang-format on

namespace layout {
namespace changes_page {
constexpr unsigned seq = 1, id = 2, type = 3, payload = 4, changes = 5, created_at = 6;
SUPPORTCRM_LAYOUT_CHECK(created_at == result_columns(sql_text::changes_page));
}  // namespace changes_page
namespace change_sequence_locked {
constexpr unsigned last_seq = 1, last_at = 2;
SUPPORTCRM_LAYOUT_CHECK(last_at == result_columns(sql_text::change_sequence_locked));
}  // namespace change_sequence_locked
namespace changes_unnumbered_ids {
constexpr unsigned id = 1, created_at = 2;
SUPPORTCRM_LAYOUT_CHECK(created_at == result_columns(sql_text::changes_unnumbered_ids));
}  // namespace changes_unnumbered_ids
namespace changes_since {
constexpr unsigned first = 1, last = 2;
SUPPORTCRM_LAYOUT_CHECK(last == result_columns(sql_text::changes_since));
}  // namespace changes_since
}  // namespace layout

}  // namespace supportcrm

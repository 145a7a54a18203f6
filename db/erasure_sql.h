// The erasure statements (DELETE /api/v1/customers/{id}, extensions.md §E9). Included by
// db/statements.h (which gathers every statement list) and erasure_repo.cpp (their reader).
//
// The first transaction clears the customer row (erased_at: from then on the id answers 410);
// every later batch is bounded (db/erasure_plan.h) and its own short transaction. The tickets go
// in id order, a group of small ones or a keyset batch of one large ticket's comments at a time,
// each batch recording how far the tickets are (sql/021) in its own transaction; the surveys,
// stored answers and events then go in LIMIT ? batches that find only rows still holding
// personal data. So a DELETE cut short, or repeated, carries on where the last one stopped,
// and a finished erasure finds nothing left to do.
#pragma once

#include "db/columns.h"

namespace supportcrm {

// clang-format off

// Every personal field of a customer row, the duplicate-detection keys with them (a later create
// with the same email or phone makes a new customer). id, number_of_orders, created_at stay.
#define SUPPORTCRM_ERASED_CUSTOMER_FIELDS                                                       \
    "email = NULL, email_key = NULL, phone_number = NULL, phone_key = NULL, first_name = NULL, " \
    "last_name = NULL, full_name = NULL, storefront_id = NULL, site_cms_id = NULL, "            \
    "storefront_b_id = NULL, social_a_user_id = NULL, social_b_user_id = NULL, "                \
    "messaging_id = NULL, helpdesk_a_id = NULL, helpdesk_b_id = NULL, helpdesk_c_id = NULL, "   \
    "helpdesk_d_id = NULL, social_b_pseudo = NULL, cms = NULL, cms_created_at = NULL"
// The customer and those merged into it (one hop: merged_into is always the last target), as
// text: the ids the events' and stored answers' JSON carries.
#define SUPPORTCRM_ERASED_IDS \
    "(SELECT CAST(x.id AS CHAR) FROM customers x WHERE x.id = ? OR x.merged_into = ?)"
#define SUPPORTCRM_ERASED_TICKET_IDS \
    "(SELECT CAST(t.id AS CHAR) FROM conversations t WHERE t.customer_id = ?)"
#define SUPPORTCRM_ERASED_COMMENT_IDS                                                     \
    "(SELECT CAST(m.id AS CHAR) FROM conversations t JOIN messages m "                    \
    "ON m.conversation_id = t.id WHERE t.customer_id = ?)"

namespace sql_text {
#define SUPPORTCRM_ERASURE_STATEMENTS(S, K)                                                        \
    /* The first transaction: the live customer of the shop only (a merged or erased one, or */   \
    /* another shop's, matches nothing: the caller reads why). */                                   \
    S(customer_erase, (Text, Id, Id),                                                                              \
      "UPDATE customers SET " SUPPORTCRM_ERASED_CUSTOMER_FIELDS ", erased_at = ?, "                \
      "version = version + 1 WHERE id = ? AND shop_id = ? AND merged_into IS NULL "                \
      "AND erased_at IS NULL")                                                                     \
    /* The customers merged into it hold its former email and phone as keys and their own */     \
    /* personal data: they go in the same transaction (few rows per target). */                    \
    S(customer_erase_merged, (Text, Id),                                                                       \
      "UPDATE customers SET " SUPPORTCRM_ERASED_CUSTOMER_FIELDS ", erased_at = ? "                 \
      "WHERE merged_into = ?")                                                                     \
    S(customer_erasure_done_at, (Id),                                                                    \
      "SELECT erasure_done_at IS NOT NULL FROM customers WHERE id = ?")                            \
    /* How far the tickets are (sql/021): erasure_through, and the ticket and (time, id) of */    \
    /* erasure_comment (NULLs without one). */                                                     \
    S(erasure_progress, (Id),                                                                            \
      "SELECT c.erasure_through, m.conversation_id, m.time, m.id FROM customers c "                \
      "LEFT JOIN messages m ON m.id = c.erasure_comment WHERE c.id = ?")                           \
    /* Its next tickets after erasure_through, with their numbers of comments (a count along */   \
    /* ix_messages_conversation_time): what plan_ticket_groups (db/erasure_plan.h) groups. */     \
    S(erase_ticket_chunk, (Id, Id, UInt),                                                                          \
      "SELECT t.id, (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = t.id) "             \
      "FROM conversations t WHERE t.customer_id = ? AND t.id > ? ORDER BY t.id LIMIT ?")          \
    /* A group: every comment of the customer's tickets with ids in (?, ?], the shop's too (a */  \
    /* reply quotes the customer), at most a batch of them (the plan counted them), read from */   \
    /* the tickets along ix_conversations_customer (STRAIGHT_JOIN: never a range of comments */    \
    /* over other customers' tickets). */                                                          \
    S(erase_group_comments, (Id, Id, Id),                                                                        \
      "UPDATE conversations t STRAIGHT_JOIN messages m ON m.conversation_id = t.id "               \
      "SET m.text = '', m.subject = NULL, m.from_email = NULL, m.to_emails = '[]', "               \
      "m.attachments = NULL WHERE t.customer_id = ? AND t.id > ? AND t.id <= ?")                   \
    /* The comments of a ticket of more than a batch, in keyset batches along */                  \
    /* ix_messages_conversation_time (conversation_id, time, id): a batch starts after the last */ \
    /* (time, id) of the one before (or of erasure_comment), so it reads only its own rows and */  \
    /* never the ones already scrubbed. erase_comments_next: the (time, id) that ends a full */    \
    /* batch (none: what is left is the last batch). */                                            \
    S(erase_comments_next, (Id, Time, Time, Id, UInt),                                                                         \
      "SELECT time, id FROM messages WHERE conversation_id = ? AND time >= ? "                     \
      "AND (time > ? OR id > ?) ORDER BY time, id LIMIT 1 OFFSET ?")                               \
    S(erase_comments, (Id, Time, Time, Id, Time, Time, Id),                                                                              \
      "UPDATE messages SET text = '', subject = NULL, from_email = NULL, to_emails = '[]', "       \
      "attachments = NULL WHERE conversation_id = ? AND time >= ? AND (time > ? OR id > ?) "       \
      /* Bounded on both sides (not ORDER BY ... LIMIT, which MariaDB sorts: it read every */      \
      /* comment left, each batch): the range holds the batch's rows only. */                      \
      "AND time <= ? AND (time < ? OR id <= ?)")                                                   \
    /* The tickets with ids in (?, ?] of the customer, with the last batch of their comments */   \
    /* and words. Their fetch shape changes: their versions (ETags) too; once (a repeat finds */   \
    /* them clean). */                                                                             \
    S(erase_tickets, (Id, Id, Id),                                                                               \
      "UPDATE conversations SET name = NULL, last_message = NULL, thread_id = NULL, "              \
      "email_used = NULL, version = version + 1 WHERE customer_id = ? AND id > ? AND id <= ? "     \
      "AND (name IS NOT NULL OR last_message IS NOT NULL OR thread_id IS NOT NULL "                \
      "OR email_used IS NOT NULL)")                                                                \
    /* The progress, in the transaction of the batch it records: only ever forward (a */          \
    /* concurrent DELETE of the same customer, behind, leaves it where it is); a comment's only */ \
    /* while its ticket is the next one to do. */                                                  \
    S(erasure_tickets_through, (Id, Id, Id),                                                                     \
      "UPDATE customers SET erasure_through = ?, erasure_comment = NULL "                          \
      "WHERE id = ? AND erasure_through < ?")                                                      \
    S(erasure_comment_through, (Id, Id, Id),                                                                     \
      "UPDATE customers SET erasure_comment = ? WHERE id = ? AND erasure_through = ?")             \
    /* mark, created_at, conversation, channel and agent stay: CSAT statistics do not change. */   \
    S(erase_surveys, (Id, UInt),                                                                               \
      "UPDATE surveys SET comment = NULL, graph_nodes = '{}', node_ids = '[]' "                    \
      "WHERE customer_id = ? AND (comment IS NOT NULL OR graph_nodes <> '{}' "                     \
      "OR node_ids <> '[]') LIMIT ?")                                                              \
    /* Stored Idempotency-Key answers carrying the customer (its create, merge or PATCH answer), */ \
    /* one of its tickets (create, PATCH), a comment on one or a survey of it: deleted, a retry */  \
    /* runs afresh. A comment create's answer names no customer, only the comment's id: it is */   \
    /* matched by that id among the comments of the customer's tickets (merged ones moved in). */  \
    S(erase_idempotency_answers, (Id, Id, Id, Id, Id, Id, Id, Id, UInt),                                                                   \
      "DELETE FROM idempotency_keys WHERE shop_id = ? AND body IS NOT NULL AND ("                  \
      "JSON_VALUE(body, '$.customer.id') IN " SUPPORTCRM_ERASED_IDS                                \
      " OR JSON_VALUE(body, '$.ticket.customerID') IN " SUPPORTCRM_ERASED_IDS                      \
      " OR JSON_VALUE(body, '$.comment.id') IN " SUPPORTCRM_ERASED_COMMENT_IDS                     \
      " OR JSON_VALUE(body, '$.survey.customer.id') IN " SUPPORTCRM_ERASED_IDS ") LIMIT ?")        \
    /* Pending deliveries of the events about to lose their data: cancelled (finished now, so */  \
    /* retention prunes them as it prunes delivered ones). Before erase_events, in its batch's */  \
    /* transaction, event by event. */                                                \
    S(erase_cancel_deliveries, (Text, Id),                                                                     \
      "UPDATE webhook_deliveries SET status = 3, next_attempt_at = ? "                             \
      "WHERE event_id = ? AND status = 0")                                                         \
    /* The shop's events carrying the data, a batch of them: their ids, then their payloads */    \
    /* become {"id": <the resource's id>, "erased": true} (what the changes feed shows) and */    \
    /* their E8 changes go. customer.erased itself ({"id": ...} only) stays. */                    \
    S(erase_events_batch, (Id, Id, Id, Id, Id, Id, Id, UInt),                                                                          \
      "SELECT e.id FROM webhook_events e WHERE e.shop_id = ? AND e.type <> 128 "                   \
      "AND JSON_VALUE(e.payload, '$.erased') IS NULL AND ("                                        \
      "(e.type IN (1, 16, 64) AND JSON_VALUE(e.payload, '$.id') IN " SUPPORTCRM_ERASED_IDS ") "    \
      "OR (e.type IN (2, 32) AND JSON_VALUE(e.payload, '$.id') IN "                                \
      SUPPORTCRM_ERASED_TICKET_IDS ") "                                                            \
      "OR (e.type = 4 AND JSON_VALUE(e.payload, '$.ticketId') IN "                                 \
      SUPPORTCRM_ERASED_TICKET_IDS ") "                                                            \
      "OR (e.type = 8 AND JSON_VALUE(e.payload, '$.customer.id') IN " SUPPORTCRM_ERASED_IDS "))"   \
      " ORDER BY e.id LIMIT ? FOR UPDATE")                                                         \
    S(erase_event, (Id),                                                                                 \
      "UPDATE webhook_events SET payload = CONCAT('{\"id\":', "                                    \
      "COALESCE(JSON_EXTRACT(payload, '$.id'), 'null'), ',\"erased\":true}'), changes = NULL "     \
      "WHERE id = ?")                                                                              \
    S(customer_erasure_done, (Time, Id),                                                                       \
      "UPDATE customers SET erasure_done_at = ? WHERE id = ? AND erasure_done_at IS NULL")         \
    /* The answer's totals: the rows stay (scrubbed), so a repeat counts the same. Every */        \
    /* DELETE of an erasure counts them: the comments along the customer's tickets */              \
    /* (STRAIGHT_JOIN; as conversation_id IN (its tickets), MariaDB 10.11 read the whole of */     \
    /* ix_messages_conversation_time, every shop's comments). */                                   \
    S(erasure_totals, (Id, Id, Id),                                                                              \
      "SELECT (SELECT COUNT(*) FROM conversations WHERE customer_id = ?), "                        \
      "(SELECT COUNT(*) FROM conversations t STRAIGHT_JOIN messages m "                            \
      "ON m.conversation_id = t.id WHERE t.customer_id = ?), "                                     \
      "(SELECT COUNT(*) FROM surveys WHERE customer_id = ?)")
SUPPORTCRM_ERASURE_STATEMENTS(SUPPORTCRM_SQL_TEXT, SUPPORTCRM_KEYED_SQL_TEXT)
}  // namespace sql_text

// clang-format on

}  // namespace supportcrm

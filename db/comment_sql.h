// The comments statements and the layout of their rows. Included by db/statements.h (which gathers
// every statement list) and comment_repo.cpp (their reader).
#pragma once

#include "db/auth_sql.h"
#include "db/columns.h"
#include "db/ticket_sql.h"

namespace supportcrm {

// clang-format off

// A comment's files (extensions.md §E13) as one JSON array of [id, filename, contentType,
// size, sha256, createdAt ms] in the comment's order, NULL for none: one index range of
// message_files' primary key a comment. Backquoted names: the layout looks columns up by name
// (db/columns.h), and this list's own "id" is the comment's.
#define SUPPORTCRM_COMMENT_FILES_COLUMN                                                        \
    "(SELECT JSON_ARRAYAGG(JSON_ARRAY(`f`.`id`, f.filename, f.content_type, f.size, f.sha256, " \
    SUPPORTCRM_MILLIS_VALUE("f.created_at") ") ORDER BY mf.position) FROM message_files mf "    \
    "JOIN files f ON `f`.`id` = mf.file_id WHERE mf.message_id = `m`.`id`) AS files"
#define SUPPORTCRM_COMMENT_COLUMNS                                                  \
    "m.id, m.text, " SUPPORTCRM_MILLIS("m.time") ", m.channel, m.is_from_shop, "   \
    "m.subject, m.from_email, m.to_emails, m.attachments, m.tags, "                 \
    SUPPORTCRM_COMMENT_FILES_COLUMN

namespace sql_text {

// One round trip for a ticket with comments: the key's shop and the ticket's customer come
// on every row; inner joins, so the rows come in index order (docs/performance.md, "The
// statements' shapes"). No rows: resolve the key, then ticket_customer.
// The keyed entries' columns and joins (K: SUPPORTCRM_KEYED_SQL); `after` narrows the messages.
#define SUPPORTCRM_COMMENTS_OF_TICKET_COLUMNS                                    \
    SUPPORTCRM_SHOWN_CUSTOMER_COLUMNS ", " SUPPORTCRM_COMMENT_COLUMNS ", "       \
    SUPPORTCRM_PERSON_COLUMNS("u")
#define SUPPORTCRM_COMMENTS_OF_TICKET_JOINS(after)                              \
    "JOIN conversations c ON c.id = ? AND c.shop_id = ks.id "                     \
    "JOIN customers cu ON cu.id = c.customer_id "                                  \
    "JOIN messages m ON m.conversation_id = c.id " after                           \
    "LEFT JOIN users u ON u.id = m.user_id"

// conversation_touch also moves the ticket's version and updatedAt (its full shape changes:
// extensions.md §E8), and reopens a PENDING or SOLVED HumanTicket (a customer's message) in the
// same statement. When it reopens, it keeps in the session variable @supportcrm_reopened what
// the feed's ticket.updated needs besides what the touch writes itself: the status it left
// (the event's "changes") and the ticket's other fields, as one JSON array of
// SUPPORTCRM_REOPENED_TICKET_COLUMNS (the event's data, with the touch's own values: add_comment),
// prefixed by the request's token (bound: a number this connection never used before). The
// message_insert's RETURNING reads it back: no statement of its own (MariaDB 10.11 has no
// UPDATE ... RETURNING), and the ticket is not read again for its event. A comment that does not
// reopen evaluates none of it (the IF's other branch).
// The token matters: a ticket without HumanTicket has no row for the assignment, which then
// leaves the variable as an earlier comment on this connection set it. The array holds only
// columns this statement does not change: a multi-table UPDATE evaluates one table's assignments
// before or after it has written another table's row (the plan decides), so a changed column of
// the conversation could be read either way. Each HumanTicket assignment reads the row as either
// order of the two leaves it (closedAt is NULL in OPEN and PENDING).
// The SQL's DATETIMEs come as epoch milliseconds (SUPPORTCRM_MILLIS without its alias: a JSON
// number); assigned_to and is_opened_ticket as numbers; the rest as strings or null.
#define SUPPORTCRM_REOPENED_TICKET_COLUMNS                                                       \
    /* channel is utf8mb4_nopad_bin (sql/019), the other strings utf8mb4_bin: JSON_ARRAY of */     \
    /* both is "Illegal mix of collations" (1271) unless one collation is named. */                 \
    "h.status, ks.domain, c.customer_id, c.channel COLLATE utf8mb4_bin, c.name, c.thread_id, "      \
    "c.email_used, "                                                                                \
    SUPPORTCRM_MILLIS_VALUE("c.date") ", c.contact_reason, c.assigned_to, c.is_opened_ticket, "    \
    "c.tags, c.language_code, c.via, h.id, " SUPPORTCRM_MILLIS_VALUE("h.opened_at")

// The touch keeps the key's shops.webhook_events (its two event masks, db/webhook_repo.h) in the
// session variable @supportcrm_events, which message_insert's RETURNING reads back: the comment's
// events are written fanned out or not (sql/022) without a statement of their own. Assigned in
// the WHERE clause, evaluated for the row the touch matched (the key's tables are const tables:
// read once, while the statement is planned); a touch that matched nothing inserts no comment,
// so a value left by an earlier statement is never read.
#define SUPPORTCRM_KEEP_SHOP_EVENTS "AND (@supportcrm_events := ks.webhook_events) IS NOT NULL"

// The statements: one entry each, S(name, (params), SQL) or, a keyed read, K(name, (params),
// columns, joins, tail) (db/auth_sql.h). db/statements.h gathers every list into the
// Stmt enum and the statement table; the line below defines sql_text::<name> for the layouts.
#define SUPPORTCRM_COMMENT_STATEMENTS(S, K)                                                        \
    /* A comment is two writes in one transaction, the ticket first: its row lock orders */        \
    /* concurrent comments on one ticket, so lastMessage always describes the comment whose */     \
    /* transaction committed last. The update also checks the key and its shop (matched rows */    \
    /* are counted: CLIENT_FOUND_ROWS), so the insert can take the channel from the locked row. */ \
    /* The insert returns the ticket's shop and what the touch kept of a ticket it reopened. Its */ \
    /* expressions have short aliases: Connector/C++ upper-cases every column name of every */     \
    /* result, a long expression costs (the shop_id subquery's ~1,700 instructions a comment). */  \
    /* The ticket's customer is changed too (attach_seq, sql/011) and must not be erased: a */    \
    /* comment and an erasure are ordered by that row (its lock; on Galera, certification), so */  \
    /* a comment either commits before the erasure's first transaction (and its batches scrub */   \
    /* it) or finds the customer erased (410). */                                                  \
    S(conversation_touch, (Text, Text, Bool, Time, Text, Id, Key),                                                                          \
      "UPDATE conversations c JOIN " SUPPORTCRM_KEY_TABLES " ON ks.id = c.shop_id "                \
      "JOIN customers cu ON cu.id = c.customer_id AND cu.erased_at IS NULL "                       \
      "LEFT JOIN human_tickets h ON h.conversation_id = c.id "                                     \
      "SET c.last_message = ?, c.last_message_time = ?, cu.attach_seq = cu.attach_seq + 1, "       \
      "c.unread_chat_count = IF(?, 1, c.unread_chat_count), c.updated_at = ?, "                    \
      "c.version = c.version + 1, "                                                                \
      "h.status = IF((@supportcrm_reopened := IF(h.status IN ('PENDING', 'SOLVED'), "             \
      "CONCAT(?, ' ', JSON_ARRAY(" SUPPORTCRM_REOPENED_TICKET_COLUMNS ")), NULL)) IS NULL, "       \
      "h.status, 'OPEN'), "                                                                        \
      "h.closed_at = IF(h.status <> 'CLOSED', NULL, h.closed_at) "                                 \
      "WHERE c.id = ? AND " SUPPORTCRM_KEY_MATCH " AND ks.deleted_at IS NULL "                    \
      SUPPORTCRM_KEEP_SHOP_EVENTS)                                                                 \
    /* A shop's own message (isFromShop true) never reopens nor marks the ticket unread: the */   \
    /* same touch without the HumanTicket. It still changes two tables (the customer's */          \
    /* attach_seq), so MariaDB collects the second one's rows in a temporary table */              \
    /* (Created_tmp_tables +1 per comment: docs/performance.md, "Two-table UPDATEs"). */           \
    S(conversation_touch_by_shop, (Text, Text, Time, Id, Key),                                                                  \
      "UPDATE conversations c JOIN " SUPPORTCRM_KEY_TABLES " ON ks.id = c.shop_id "                \
      "JOIN customers cu ON cu.id = c.customer_id AND cu.erased_at IS NULL "                       \
      "SET c.last_message = ?, c.last_message_time = ?, cu.attach_seq = cu.attach_seq + 1, "       \
      "c.updated_at = ?, "                                                                         \
      "c.version = c.version + 1 "                                                                 \
      "WHERE c.id = ? AND " SUPPORTCRM_KEY_MATCH " AND ks.deleted_at IS NULL "                    \
      SUPPORTCRM_KEEP_SHOP_EVENTS)                                                                 \
    /* Its words are the search indexer's: the insert's trigger queues it (sql/023). */         \
    S(message_insert, (Text, Text, OptText, Bool, OptText, OptText, Text, OptText, Text, Time, Id),                                                                              \
      "INSERT INTO messages (conversation_id, text, time, channel, is_from_shop, subject, "        \
      "from_email, to_emails, attachments, tags, created_at) "                                     \
      "SELECT id, ?, ?, COALESCE(?, channel), ?, ?, ?, ?, ?, ?, ? FROM conversations WHERE id = ? " \
      "RETURNING id, channel, "                                                                    \
      "(SELECT shop_id FROM conversations c WHERE c.id = messages.conversation_id) AS shop, "      \
      "@supportcrm_reopened AS reop, @supportcrm_events AS ev")                                    \
    /* A comment's files (extensions.md E13): the shop's own, in the order given (JSON array of */ \
    /* ids); an id not the shop's inserts nothing, and file_unknown_of_shop names it. */           \
    S(message_files_insert, (Id, Text, Id),                                                        \
      "INSERT INTO message_files (message_id, position, file_id) SELECT ?, j.pos - 1, f.id "      \
      "FROM JSON_TABLE(?, '$[*]' COLUMNS (pos FOR ORDINALITY, fid BIGINT UNSIGNED PATH '$')) j "  \
      "JOIN files f ON f.id = j.fid AND f.shop_id = ? LOCK IN SHARE MODE")                          \
    S(file_unknown_of_shop, (Text, Id),                                                            \
      "SELECT j.fid FROM JSON_TABLE(?, '$[*]' COLUMNS (pos FOR ORDINALITY, "                        \
      "fid BIGINT UNSIGNED PATH '$')) j LEFT JOIN files f ON f.id = j.fid AND f.shop_id = ? "      \
      "WHERE f.id IS NULL ORDER BY j.pos LIMIT 1")                                                  \
    K(comments_of_ticket, (Id), SUPPORTCRM_COMMENTS_OF_TICKET_COLUMNS,                             \
      SUPPORTCRM_COMMENTS_OF_TICKET_JOINS(""), "ORDER BY m.time, m.id")                            \
    /* The same in pages (extensions.md §E3): limit + 1 rows tell whether a page follows; a later */ \
    /* page starts after the cursor's (time, id). "m.time >= ?" is what makes it a range of */     \
    /* ix_messages_conversation_time that starts at the cursor (the OR alone is read from the */   \
    /* ticket's first comment on). */                                                              \
    K(comments_page_first, (Id, Id), SUPPORTCRM_COMMENTS_OF_TICKET_COLUMNS,                        \
      SUPPORTCRM_COMMENTS_OF_TICKET_JOINS(""), "ORDER BY m.time, m.id LIMIT ?")                    \
    K(comments_page_after, (Id, Time, Time, Id, Id), SUPPORTCRM_COMMENTS_OF_TICKET_COLUMNS,        \
      SUPPORTCRM_COMMENTS_OF_TICKET_JOINS("AND m.time >= ? AND (m.time > ? OR m.id > ?) "),        \
      "ORDER BY m.time, m.id LIMIT ?")                                                             \
    /* A comment's touch matched nothing: is the ticket the key's shop's, its customer erased? */ \
    S(ticket_customer_erased, (Id, Key),                                                                      \
      "SELECT 1 FROM conversations c JOIN " SUPPORTCRM_KEY_TABLES " ON ks.id = c.shop_id "         \
      "JOIN customers cu ON cu.id = c.customer_id "                                                \
      "WHERE c.id = ? AND " SUPPORTCRM_KEY_MATCH " AND cu.erased_at IS NOT NULL")                  \
    /* No comment rows: does the ticket exist in the shop, and whose is it? */                     \
    S(ticket_customer, (Id, Id),                                                                             \
      "SELECT " SUPPORTCRM_SHOWN_CUSTOMER_COLUMNS " FROM conversations c "                           \
      "JOIN customers cu ON cu.id = c.customer_id WHERE c.id = ? AND c.shop_id = ?")
SUPPORTCRM_COMMENT_STATEMENTS(SUPPORTCRM_SQL_TEXT, SUPPORTCRM_KEYED_SQL_TEXT)

}  // namespace sql_text

// clang-format on

// Offsets into SUPPORTCRM_COMMENT_COLUMNS.
namespace comment_col {
constexpr unsigned at(std::string_view name) {
    return column_of(SUPPORTCRM_COMMENT_COLUMNS, name);
}
constexpr unsigned id = at("id"), text = at("text"), time = at("time"), channel = at("channel"),
                   is_from_shop = at("is_from_shop"), subject = at("subject"),
                   from_email = at("from_email"), to_emails = at("to_emails"),
                   attachments = at("attachments"), tags = at("tags"), files = at("files");
}  // namespace comment_col
constexpr unsigned kCommentColumns = count_columns(SUPPORTCRM_COMMENT_COLUMNS);

namespace layout {
namespace message_insert {  // RETURNING
constexpr unsigned id = 1, channel = 2, shop_id = 3, reopened = 4, shop_webhook_events = 5;
SUPPORTCRM_LAYOUT_CHECK(shop_webhook_events == result_columns(sql_text::message_insert));
}  // namespace message_insert
// The JSON array in @supportcrm_reopened (0-based: a Json::Value's indexes).
namespace reopened_ticket {
constexpr unsigned at(std::string_view name) {
    return column_of(SUPPORTCRM_REOPENED_TICKET_COLUMNS, name);
}
constexpr unsigned status = at("status"), domain = at("domain"), customer_id = at("customer_id"),
                   channel = at("channel"), name = at("name"), thread_id = at("thread_id"),
                   email_used = at("email_used"), date = at("date"),
                   contact_reason = at("contact_reason"), assigned_to = at("assigned_to"),
                   is_opened_ticket = at("is_opened_ticket"), tags = at("tags"),
                   language_code = at("language_code"), via = at("via"), ht_id = at("h.id"),
                   opened_at = at("opened_at");
constexpr unsigned kColumns = count_columns(SUPPORTCRM_REOPENED_TICKET_COLUMNS);
}  // namespace reopened_ticket
namespace comments_of_ticket {
constexpr ColumnRun customer{1, kPersonColumns};
constexpr ColumnRun comment = customer.then(kCommentColumns);
constexpr ColumnRun user = comment.then(kPersonColumns);
constexpr ColumnRun key = user.then(kKeyColumns);
SUPPORTCRM_LAYOUT_CHECK(key.last() == result_columns(sql_text::comments_of_ticket));
SUPPORTCRM_LAYOUT_CHECK(key.last() == result_columns(sql_text::comments_page_first));
SUPPORTCRM_LAYOUT_CHECK(key.last() == result_columns(sql_text::comments_page_after));
}  // namespace comments_of_ticket
namespace ticket_customer {
constexpr ColumnRun customer{1, kPersonColumns};
SUPPORTCRM_LAYOUT_CHECK(customer.last() == result_columns(sql_text::ticket_customer));
}  // namespace ticket_customer
}  // namespace layout

}  // namespace supportcrm

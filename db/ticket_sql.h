// The tickets statements, the Customer/User column list several statements share, and the layout of
// their rows. Included by db/statements.h (which gathers every statement list) and the repositories
// that read these rows.
#pragma once

#include <cppconn/resultset.h>

#include "db/auth_sql.h"
#include "db/columns.h"
#include "db/rows.h"

namespace supportcrm {

// clang-format off

// A Customer or User object of a response (PersonRow); a ticket's customer adds its contact.
#define SUPPORTCRM_PERSON_COLUMNS(t) \
    t ".id, " t ".email, " t ".first_name, " t ".last_name, " t ".full_name"
#define SUPPORTCRM_CONTACT_COLUMNS(t) t ".phone_number, " t ".storefront_id"
// SUPPORTCRM_PERSON_COLUMNS("cu") of a ticket's customer as responses show it: id 0 for an
// erased customer, whose `Customer` is null (extensions.md §E9; write_customer()).
#define SUPPORTCRM_SHOWN_CUSTOMER_COLUMNS \
    "IF(cu.erased_at IS NULL, cu.id, 0), cu.email, cu.first_name, cu.last_name, cu.full_name"
// A ticket's human_tickets row h (HumanTicketRow).
#define SUPPORTCRM_HUMAN_TICKET_COLUMNS \
    "h.id, h.status, " SUPPORTCRM_MILLIS("h.opened_at") ", " SUPPORTCRM_MILLIS("h.closed_at")

namespace sql_text {

// GET /api/v1/tickets: a page of the shop's tickets in the create shape, newest first, after
// the cursor's id (the first page binds UINT64_MAX); limit + 1 rows tell whether one follows.
// One statement per combination of filters, so that each uses its index (sql/003):
// customerId ix_conversations_customer, updatedSince ix_conversations_shop_last_message.
#define SUPPORTCRM_TICKET_COLUMNS                                                             \
    "t.id, t.customer_id, t.channel, t.name, t.thread_id, t.email_used, "                    \
    SUPPORTCRM_MILLIS("t.date") ", t.last_message, " SUPPORTCRM_MILLIS("t.last_message_time") \
    ", t.contact_reason, t.assigned_to, t.is_opened_ticket, t.unread_chat_count, t.tags, "   \
    "t.language_code, t.via"
// The full shape (extensions.md E8): the create shape, the HumanTicket, updatedAt, the version.
#define SUPPORTCRM_FULL_TICKET_COLUMNS                                                      \
    SUPPORTCRM_TICKET_COLUMNS ", " SUPPORTCRM_HUMAN_TICKET_COLUMNS ", "                    \
    SUPPORTCRM_MILLIS("t.updated_at") ", t.version"
#define SUPPORTCRM_TICKET_PAGE(filter)                                                           \
    "SELECT " SUPPORTCRM_TICKET_COLUMNS " FROM conversations t WHERE t.shop_id = ? " filter \
    " AND t.id < ? ORDER BY t.id DESC LIMIT ?"

// The statements: one entry each, S(name, (params), SQL) or, a keyed read, K(name, (params),
// columns, joins, tail) (db/auth_sql.h). db/statements.h gathers every list into the
// Stmt enum and the statement table; the line below defines sql_text::<name> for the layouts.
#define SUPPORTCRM_TICKET_STATEMENTS(S, K)                                                         \
    /* A merged customer (extensions.md E9) takes no new ticket: it is not found; an erased */    \
    /* one answers whether it is (410: the ticket would attach personal data to it). */            \
    S(customer_exists, (Id, Id),                                                                             \
      "SELECT erased_at IS NOT NULL FROM customers WHERE id = ? AND shop_id = ? "                  \
      "AND merged_into IS NULL")                                                                   \
    /* First in the create's transaction: a real change of the customer's row (sql/011), so a */  \
    /* merge or an erasure of it and this create are ordered, on one server by the row lock, on */ \
    /* a Galera cluster by certification (docs/scale-out.md). No row: merged or erased since. */  \
    S(customer_attach, (Id),                                                                             \
      "UPDATE customers SET attach_seq = attach_seq + 1 WHERE id = ? AND merged_into IS NULL "     \
      "AND erased_at IS NULL")                                                                     \
    S(user_exists, (Id, Id), "SELECT 1 FROM users WHERE id = ? AND shop_id = ?")                             \
    S(conversation_insert, (Id, Id, Text, OptText, OptText, OptText, Time, OptText, Time, OptText, OptId, Bool, Int64, Text, OptText, OptText, Time, Time, Bool, Id),                                                                         \
      "INSERT INTO conversations (shop_id, customer_id, channel, name, thread_id, email_used, date, " \
      "last_message, last_message_time, contact_reason, assigned_to, is_opened_ticket, "           \
      "unread_chat_count, tags, language_code, via, created_at, updated_at, has_human_ticket) "    \
      /* From the customer's row, which customer_attach holds locked and checked. The last */     \
      /* value: whether the create writes a HumanTicket too (sql/017, the status=none index). */ \
      "SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM customers "             \
      "WHERE id = ? AND merged_into IS NULL RETURNING id, "                                        \
      /* The customer's version: the new ticket's ETag names it (api/etag.h). */                  \
      "(SELECT version FROM customers WHERE customers.id = conversations.customer_id) AS cv")      \
    /* A simple INSERT (VALUES, not INSERT ... SELECT): under innodb_autoinc_lock_mode 1 an */    \
    /* INSERT ... SELECT holds the table's AUTO-INC lock to the statement's end, and concurrent */ \
    /* PATCHes opening HumanTickets deadlocked on it against each other's gap locks (1467). */    \
    S(human_ticket_insert, (Id, Id, Time),                                                                         \
      "INSERT INTO human_tickets (conversation_id, shop_id, status, opened_at) "                    \
      "VALUES (?, ?, 'OPEN', ?) RETURNING id")                                                     \
    /* Inner joins from the key to the ticket (docs/performance.md, "The statements' shapes"). */  \
    /* No row: resolve the key, then 404. */                                                       \
    K(ticket_detail, (Id),                                                                         \
      "c.id, c.channel, c.name, "                                                                  \
      SUPPORTCRM_SHOWN_CUSTOMER_COLUMNS ", " SUPPORTCRM_CONTACT_COLUMNS("cu") ", "                 \
      SUPPORTCRM_PERSON_COLUMNS("u") ", "                                                          \
      SUPPORTCRM_HUMAN_TICKET_COLUMNS ", c.version, cu.version",                                  \
      "JOIN conversations c ON c.id = ? AND c.shop_id = ks.id "                                    \
      "JOIN customers cu ON cu.id = c.customer_id "                                                \
      "LEFT JOIN users u ON u.id = c.assigned_to "                                                 \
      "LEFT JOIN human_tickets h ON h.conversation_id = c.id", "")                                 \
    S(tickets_page, (Id, Id, Id), SUPPORTCRM_TICKET_PAGE(""))                                                    \
    S(tickets_page_customer, (Id, Id, Id, Id), SUPPORTCRM_TICKET_PAGE("AND t.customer_id = ?"))                      \
    S(tickets_page_since, (Id, Time, Id, Id), SUPPORTCRM_TICKET_PAGE("AND t.last_message_time >= ?"))                  \
    S(tickets_page_customer_since, (Id, Id, Time, Id, Id), SUPPORTCRM_TICKET_PAGE("AND t.customer_id = ? AND t.last_message_time >= ?")) \
    /* PATCH /api/v1/tickets/{id} (extensions.md E8). The read: the ticket in the full shape */   \
    /* with its version and the key's shop, and whether the body's assigned_to (bound first; */   \
    /* NULL when not given) is a user of the shop, in one round trip; no row as for */            \
    /* ticket_detail. Not a locking read: the write checks the version itself. */                 \
    K(ticket_for_patch, (OptId, Id),                                                               \
      SUPPORTCRM_FULL_TICKET_COLUMNS ", "                                                          \
      "(SELECT COUNT(*) FROM users u WHERE u.id = ? AND u.shop_id = ks.id) AS uf, "                \
      "(SELECT cu.version FROM customers cu WHERE cu.id = t.customer_id) AS cv",                  \
      "JOIN conversations t ON t.id = ? AND t.shop_id = ks.id "                                    \
      "LEFT JOIN human_tickets h ON h.conversation_id = t.id", "")                                 \
    /* The write, and the version check that makes it atomic: it matches no row once another */   \
    /* change has taken the version the read saw. The HumanTicket, when there is one, changes */  \
    /* in the same statement (the LEFT JOIN leaves a missing one alone). */                       \
    S(ticket_update, (OptText, OptText, OptText, OptId, Text, Int64, Bool, Time, Bool, OptText, OptTime, Id, Id),                                                                               \
      "UPDATE conversations t LEFT JOIN human_tickets h ON h.conversation_id = t.id "              \
      "SET t.name = ?, t.contact_reason = ?, t.language_code = ?, t.assigned_to = ?, t.tags = ?, " \
      "t.unread_chat_count = ?, t.is_opened_ticket = ?, t.updated_at = ?, "                        \
      /* has_human_ticket (sql/017): true once the PATCH opens one (a HumanTicket stays). */     \
      "t.has_human_ticket = ?, t.version = t.version + 1, h.status = ?, h.closed_at = ? "          \
      "WHERE t.id = ? AND t.version = ?")                                                          \
    /* GET /api/v1/customers/{id}/export (extensions.md E9): the customer's tickets, id */         \
    /* ascending, in keyset chunks along ix_conversations_customer (customer_id, then id). */      \
    S(customer_export_ticket_ids, (Id, Id, Id),                                                                  \
      "SELECT id FROM conversations WHERE customer_id = ? AND id > ? ORDER BY id LIMIT ?")
SUPPORTCRM_TICKET_STATEMENTS(SUPPORTCRM_SQL_TEXT, SUPPORTCRM_KEYED_SQL_TEXT)

}  // namespace sql_text

// clang-format on

// Offsets into SUPPORTCRM_PERSON_COLUMNS, then SUPPORTCRM_CONTACT_COLUMNS.
namespace person_col {
constexpr unsigned at(std::string_view name) {
    return column_of(SUPPORTCRM_PERSON_COLUMNS("t") ", " SUPPORTCRM_CONTACT_COLUMNS("t"), name);
}
constexpr unsigned id = at("id"), email = at("email"), first_name = at("first_name"),
                   last_name = at("last_name"), full_name = at("full_name"),
                   phone_number = at("phone_number"), storefront_id = at("storefront_id");
}  // namespace person_col
constexpr unsigned kPersonColumns = count_columns(SUPPORTCRM_PERSON_COLUMNS("t"));
constexpr unsigned kPersonWithContactColumns =
    kPersonColumns + count_columns(SUPPORTCRM_CONTACT_COLUMNS("t"));
SUPPORTCRM_LAYOUT_CHECK(person_col::phone_number >= kPersonColumns &&
                            person_col::storefront_id >= kPersonColumns,
                        "a person without contact reads only SUPPORTCRM_PERSON_COLUMNS");

// A run of SUPPORTCRM_PERSON_COLUMNS (kPersonColumns long), or of those and
// SUPPORTCRM_CONTACT_COLUMNS (kPersonWithContactColumns long).
PersonRow read_person(const sql::ResultSet& rs, ColumnRun at);

namespace layout {
namespace ticket_detail {
constexpr ColumnRun ticket{1, 3};  // c.id, c.channel, c.name
constexpr unsigned id = ticket[0], channel = ticket[1], name = ticket[2];
constexpr ColumnRun customer = ticket.then(kPersonWithContactColumns);
constexpr ColumnRun user = customer.then(kPersonColumns);
// Offsets into SUPPORTCRM_HUMAN_TICKET_COLUMNS.
constexpr unsigned ht_id = column_of(SUPPORTCRM_HUMAN_TICKET_COLUMNS, "id"),
                   ht_status = column_of(SUPPORTCRM_HUMAN_TICKET_COLUMNS, "status"),
                   ht_opened_at = column_of(SUPPORTCRM_HUMAN_TICKET_COLUMNS, "opened_at"),
                   ht_closed_at = column_of(SUPPORTCRM_HUMAN_TICKET_COLUMNS, "closed_at");
constexpr ColumnRun human_ticket = user.then(count_columns(SUPPORTCRM_HUMAN_TICKET_COLUMNS));
constexpr unsigned version = human_ticket.next();   // what the ETag names (extensions.md E8)
constexpr unsigned customer_version = version + 1;  // and this (api/etag.h)
constexpr ColumnRun key{customer_version + 1, kKeyColumns};
SUPPORTCRM_LAYOUT_CHECK(key.last() == result_columns(sql_text::ticket_detail));
}  // namespace ticket_detail
namespace tickets_page {  // and its filtered variants
// 1-based: the row is SUPPORTCRM_TICKET_COLUMNS.
constexpr unsigned at(std::string_view name) {
    return 1 + column_of(SUPPORTCRM_TICKET_COLUMNS, name);
}
constexpr unsigned id = at("id"), customer_id = at("customer_id"), channel = at("channel"),
                   name = at("name"), thread_id = at("thread_id"), email_used = at("email_used"),
                   date = at("date"), last_message = at("last_message"),
                   last_message_time = at("last_message_time"),
                   contact_reason = at("contact_reason"), assigned_to = at("assigned_to"),
                   is_opened_ticket = at("is_opened_ticket"),
                   unread_chat_count = at("unread_chat_count"), tags = at("tags"),
                   language_code = at("language_code"), via = at("via");
constexpr unsigned kColumns = count_columns(SUPPORTCRM_TICKET_COLUMNS);
SUPPORTCRM_LAYOUT_CHECK(kColumns == result_columns(sql_text::tickets_page));
SUPPORTCRM_LAYOUT_CHECK(kColumns == result_columns(sql_text::tickets_page_customer));
SUPPORTCRM_LAYOUT_CHECK(kColumns == result_columns(sql_text::tickets_page_since));
SUPPORTCRM_LAYOUT_CHECK(kColumns == result_columns(sql_text::tickets_page_customer_since));
}  // namespace tickets_page
namespace ticket_for_patch {
// The create shape (tickets_page's offsets), the HumanTicket (ticket_detail's ht_* offsets),
// updatedAt, version, whether the user exists, the key.
constexpr ColumnRun ticket{1, tickets_page::kColumns};
constexpr ColumnRun human_ticket = ticket.then(count_columns(SUPPORTCRM_HUMAN_TICKET_COLUMNS));
constexpr unsigned updated_at = human_ticket.next(), version = updated_at + 1,
                   user_found = version + 1, customer_version = user_found + 1;
SUPPORTCRM_LAYOUT_CHECK(version == count_columns(SUPPORTCRM_FULL_TICKET_COLUMNS));
constexpr ColumnRun key{customer_version + 1, kKeyColumns};
SUPPORTCRM_LAYOUT_CHECK(key.last() == result_columns(sql_text::ticket_for_patch));
}  // namespace ticket_for_patch
namespace returned_id {  // human_ticket_insert
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::human_ticket_insert) == 1);
}  // namespace returned_id
namespace conversation_insert {
constexpr unsigned id = 1, customer_version = 2;
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::conversation_insert) == 2);
}  // namespace conversation_insert
}  // namespace layout

}  // namespace supportcrm

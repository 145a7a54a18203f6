// The statements of extensions.md §E10 (filters and full-text search of GET /api/v1/tickets and
// GET /api/v1/customers) and of the search data they read (sql/012: ticket_words,
// customer_words). Included by db/statements.h and the files of db/search/ and the repositories
// that run them.
#pragma once

#include "db/columns.h"
#include "db/customer_sql.h"
#include "db/ticket_sql.h"

namespace supportcrm {

// clang-format off

// A JSON array of words or tags read as rows (JSON_TABLE unescapes): the words of a query or of
// a text (common/words.h: letters and digits, at most 64 characters), the tags of a filter.
#define SUPPORTCRM_JSON_WORDS(doc) \
    "JSON_TABLE(" doc ", '$[*]' COLUMNS (w VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$'))"
#define SUPPORTCRM_JSON_TAGS(doc) \
    "JSON_TABLE(" doc ", '$[*]' COLUMNS (tag VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$'))"

// A JSON array of ids (tickets or customers) read as rows.
#define SUPPORTCRM_JSON_IDS(doc) "JSON_TABLE(" doc ", '$[*]' COLUMNS (id BIGINT UNSIGNED PATH '$'))"

// The end of the words starting with q.w: q.w followed by U+10FFFF, above every letter and
// digit (utf8mb4_bin compares code points). `x.word >= q.w AND x.word < end` is LIKE 'w%' for
// words (letters and digits only) but compares without building a pattern for each of the
// ticket's words: 2.8 times less server time per probe (docs/performance.md, "Word index").
#define SUPPORTCRM_WORD_END "CONCAT(q.w, _utf8mb4 X'F48FBFBF' COLLATE utf8mb4_bin)"

// Every read that goes from a word or tag row to its ticket (customer) also requires the row's
// shop_id to be the ticket's (customer's) and the caller's: an id the search data names may be
// another record's, of another shop, since a restore into the existing database (issue 43:
// AUTO_INCREMENT hands the ids of rows the dump does not have out again). shop_id is in the
// row the primary key's seek reads already: no read more.

// Every filter of GET /api/v1/tickets, each a pair of placeholders: the first NULL when the
// filter is not given (the server folds the bound values before it plans, so an absent filter
// costs nothing and a given one can use its index: customerId ix_conversations_customer,
// Channel ix_conversations_shop_channel, assignedTo ix_conversations_shop_assigned). assignedTo
// `none` binds 0 (no user has id 0): assigned_to IS NULL. status binds the comma list,
// `none` for a ticket without HumanTicket. tag binds a JSON array of the tags, all of which the
// ticket's tags must hold; q a JSON array of its words, each of which must start a word of the
// ticket (ticket_words, by its primary key: this ticket's words from w on).
// SUPPORTCRM_TICKET_COLUMN_FILTERS are those on the ticket's own columns (ticket_repo.cpp's
// bind_ticket_columns), the first four.
#define SUPPORTCRM_TICKET_COLUMN_FILTERS                                                           \
    " AND (? IS NULL OR t.customer_id = ?)"                                                        \
    " AND (? IS NULL OR t.last_message_time >= ?)"                                                 \
    " AND (? IS NULL OR t.channel = ?)"                                                            \
    " AND (? IS NULL OR t.assigned_to <=> NULLIF(?, 0))"
#define SUPPORTCRM_TICKET_FILTERS                                                                  \
    SUPPORTCRM_TICKET_COLUMN_FILTERS                                                               \
    " AND (? IS NULL OR FIND_IN_SET(IFNULL((SELECT h.status FROM human_tickets h "                 \
    "WHERE h.conversation_id = t.id), 'none'), ?) > 0)"                                            \
    " AND (? IS NULL OR NOT EXISTS (SELECT 1 FROM " SUPPORTCRM_JSON_TAGS("?") " want "             \
    "WHERE NOT EXISTS (SELECT 1 FROM " SUPPORTCRM_JSON_TAGS("t.tags") " have "                    \
    "WHERE have.tag = want.tag)))"                                                                 \
    " AND (? IS NULL OR NOT EXISTS (SELECT 1 FROM " SUPPORTCRM_JSON_WORDS("?") " q "               \
    "WHERE NOT EXISTS (SELECT 1 FROM ticket_words x WHERE x.conversation_id = t.id "               \
    "AND x.shop_id = t.shop_id AND x.word >= q.w AND x.word < " SUPPORTCRM_WORD_END ")))"
#define SUPPORTCRM_CUSTOMER_WORDS_MATCH                                                            \
    " AND NOT EXISTS (SELECT 1 FROM " SUPPORTCRM_JSON_WORDS("?") " q "                             \
    "WHERE NOT EXISTS (SELECT 1 FROM customer_words x WHERE x.customer_id = c.id "                 \
    "AND x.shop_id = c.shop_id AND x.word >= q.w AND x.word < " SUPPORTCRM_WORD_END "))"

// A page of the shop's tickets by one of conversations' own indexes, `index`, where `cond`
// (one placeholder or none) holds, newest first, with every filter (binds shop, cond's value,
// shop, the filters, the cursor's id, limit + 1: the by_* statements' order); and how many
// tickets `cond` lists, counted up to a bound (binds shop, cond's value, the bound).
#define SUPPORTCRM_TICKETS_BY_OWN_INDEX(index, cond)                                               \
    "SELECT " SUPPORTCRM_TICKET_COLUMNS " FROM conversations t "                                   \
    "FORCE INDEX (" index ") WHERE t.shop_id = ? AND " cond " AND t.shop_id = ?"                   \
    SUPPORTCRM_TICKET_FILTERS " AND t.id < ? ORDER BY t.id DESC LIMIT ?"
#define SUPPORTCRM_TICKETS_COUNT_BY(cond)                                                          \
    "SELECT COUNT(*) FROM (SELECT 1 FROM conversations t WHERE t.shop_id = ? AND " cond           \
    " LIMIT ?) n"

// Past the scan window, q's words (up to three) are read within a window of ids [low, high)
// (tickets or customers), each word's rows once into a temporary table (derived tables with
// DISTINCT: the server cannot probe ticket by ticket, 55 us each over 100,000 tickets,
// docs/performance.md, "Ways to a search page"), intersected, then the rows read and checked
// against the other filters.
// A word is matched as IN its forms (the shop's words it starts, SUPPORTCRM_WORD_FORMS) OR LIKE
// 'word%', one of the two bound: IN, the server reads one exact range (shop, form, [low, high))
// per form, where LIKE's one range from the first form to the last reads all the rows of the
// forms between them whatever the window. So LIKE binds the word itself, no wildcard (one exact
// range more), unless the word has more forms than the list holds (reads.h's
// kWordForms): then 'word%', and the list the word itself. Binds, for each word, shop, its
// forms (repeated to fill the list), the pattern, low and high (bind_windowed_words); then
// shop, the filters, the cursor's id and limit + 1.
#define SUPPORTCRM_WORD_FORMS "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
#define SUPPORTCRM_ROWS_IN_WINDOW(table, id, w)                                                    \
    "(SELECT DISTINCT " w "." id " FROM " table " " w " WHERE " w ".shop_id = ? "               \
    "AND (" w ".word IN " SUPPORTCRM_WORD_FORMS " OR " w ".word LIKE ?) "                          \
    "AND " w "." id " >= ? AND " w "." id " < ?)"
// The first of the shop's words in `table` from a given word on (>=) that a word starts (binds
// shop, the word to start at, the word): reads.cpp's word_forms, one seek each.
#define SUPPORTCRM_NEXT_WORD_FORM(table)                                                           \
    "SELECT w.word FROM " table " w WHERE w.shop_id = ? AND w.word >= ? "                        \
    "AND w.word < CONCAT(?, _utf8mb4 X'F48FBFBF' COLLATE utf8mb4_bin) ORDER BY w.word LIMIT 1"
// The ids having one, two or three words within the window, as a derived table's rows.
#define SUPPORTCRM_ONE_WORD_IN_WINDOW(table, id) SUPPORTCRM_ROWS_IN_WINDOW(table, id, "w")
#define SUPPORTCRM_TWO_WORDS_IN_WINDOW(table, id)                                                  \
    "(SELECT a." id " FROM " SUPPORTCRM_ROWS_IN_WINDOW(table, id, "w") " a STRAIGHT_JOIN "         \
    SUPPORTCRM_ROWS_IN_WINDOW(table, id, "x") " b ON b." id " = a." id ")"
#define SUPPORTCRM_THREE_WORDS_IN_WINDOW(table, id)                                                \
    "(SELECT a." id " FROM " SUPPORTCRM_ROWS_IN_WINDOW(table, id, "w") " a STRAIGHT_JOIN "         \
    SUPPORTCRM_ROWS_IN_WINDOW(table, id, "x") " b ON b." id " = a." id " STRAIGHT_JOIN "           \
    SUPPORTCRM_ROWS_IN_WINDOW(table, id, "y") " c ON c." id " = a." id ")"
#define SUPPORTCRM_TICKETS_OF_WORD_ROWS(words)                                                     \
    "SELECT " SUPPORTCRM_TICKET_COLUMNS " FROM " words("ticket_words", "conversation_id") " d "    \
    "STRAIGHT_JOIN conversations t ON t.id = d.conversation_id WHERE t.shop_id = ?"                \
    SUPPORTCRM_TICKET_FILTERS " AND t.id < ? ORDER BY t.id DESC LIMIT ?"
#define SUPPORTCRM_CUSTOMERS_OF_WORD_ROWS(words)                                                   \
    "SELECT " SUPPORTCRM_CUSTOMER_COLUMNS " FROM " words("customer_words", "customer_id") " d "    \
    "STRAIGHT_JOIN customers c ON c.id = d.customer_id "                                           \
    "WHERE c.shop_id = ? AND c.merged_into IS NULL AND c.id < ? ORDER BY c.id DESC LIMIT ?"

namespace sql_text {

// The ways to a page, the same rows (db/search/plan.h chooses; docs/performance.md, "Ways to a
// search page"):
// `scan` walks the shop's tickets newest first from the cursor down to a floor id and checks
// each (best when matches are many: a page fills after a few rows); the `by_*` statements
// start from the tickets that one filter's own index lists and check those: `by_word` the
// tickets having a word of `q` (bound as 'word%' on ix_ticket_words_shop_word), intersected
// with the tickets of two more words of q before any ticket row is read (the server probes a
// few rare candidates, or materializes the other word's range), then sorted;
// `in_window_by_*` do the same when they are all common, past the scan window, one window of
// ticket ids at a time (SUPPORTCRM_ROWS_IN_WINDOW: reads.h's walk_id_windows walks the windows down
// until the page is full);
// `by_tag` those carrying a tag (ix_ticket_tags_shop_tag) and
// `by_status` those whose HumanTicket has one of up to four statuses
// (ix_human_tickets_shop_status), both walked newest first and stopped at the page's end;
// `no_human_ticket` those without HumanTicket (sql/017, status=none alone) likewise. A q of
// more words than three: ticket_repo.cpp's search_many_words_page and `ticket_words_check`.
// scan binds shop, floor, the filters, the cursor's id, limit + 1; the by_* statements bind
// their own values first (word: shop and 'word%' three times, the starting word's first; tag:
// shop and the tag; status: shop and four statuses), then shop, the filters, the cursor's id
// and limit + 1.
#define SUPPORTCRM_SEARCH_STATEMENTS(S, K)                                                         \
    S(tickets_filtered_scan, (Positional<18>),                                                                       \
      "SELECT " SUPPORTCRM_TICKET_COLUMNS " FROM conversations t WHERE t.shop_id = ? "             \
      "AND t.id >= ?" SUPPORTCRM_TICKET_FILTERS " AND t.id < ? ORDER BY t.id DESC LIMIT ?")        \
    S(tickets_filtered_by_word, (Positional<23>),                                                                    \
      "SELECT " SUPPORTCRM_TICKET_COLUMNS " FROM (SELECT DISTINCT w.conversation_id "              \
      "FROM ticket_words w WHERE w.shop_id = ? AND w.word LIKE ? "                                 \
      "AND w.conversation_id IN (SELECT x.conversation_id FROM ticket_words x "                    \
      "WHERE x.shop_id = ? AND x.word LIKE ?) "                                                    \
      "AND w.conversation_id IN (SELECT y.conversation_id FROM ticket_words y "                    \
      "WHERE y.shop_id = ? AND y.word LIKE ?)) d "                                                 \
      "STRAIGHT_JOIN conversations t ON t.id = d.conversation_id WHERE t.shop_id = ?"              \
      SUPPORTCRM_TICKET_FILTERS " AND t.id < ? ORDER BY t.id DESC LIMIT ?")                        \
    S(tickets_in_window_by_word, (Positional<37>), SUPPORTCRM_TICKETS_OF_WORD_ROWS(SUPPORTCRM_ONE_WORD_IN_WINDOW))   \
    S(tickets_in_window_by_two_words, (Positional<57>),                                                              \
      SUPPORTCRM_TICKETS_OF_WORD_ROWS(SUPPORTCRM_TWO_WORDS_IN_WINDOW))                             \
    S(tickets_in_window_by_three_words, (Positional<77>),                                                            \
      SUPPORTCRM_TICKETS_OF_WORD_ROWS(SUPPORTCRM_THREE_WORDS_IN_WINDOW))                           \
    /* Whether any ticket of a window of ids has the columns customerId, Channel, assignedTo */  \
    /* and updatedSince ask for (SUPPORTCRM_TICKET_COLUMN_FILTERS): a window without one is skipped before its words' rows are */  \
    /* read. No ORDER BY, so the server reads the cheapest of their indexes (or intersects */    \
    /* them) within the window. Binds shop, low, high, the four pairs. */                          \
    S(ticket_columns_in_window, (Positional<11>),                                                                    \
      "SELECT 1 FROM conversations t WHERE t.shop_id = ? AND t.id >= ? AND t.id < ?"              \
      SUPPORTCRM_TICKET_COLUMN_FILTERS " LIMIT 1")                                                 \
    /* The first word of the shop from a given word on (>=) below a prefix's end: one seek of */  \
    /* ix_ticket_words_shop_word, which lists a prefix's words (`forms`) one by one (binds */      \
    /* shop, the word to start at, the prefix). MariaDB has no loose index scan for this */       \
    /* (DISTINCT or GROUP BY reads the whole range: 99,602 rows for `order%`). */                  \
    S(ticket_word_next_form, (Id, Text, Text), SUPPORTCRM_NEXT_WORD_FORM("ticket_words"))                           \
    S(tickets_filtered_by_tag, (Positional<19>),                                                                     \
      "SELECT " SUPPORTCRM_TICKET_COLUMNS " FROM ticket_tags g STRAIGHT_JOIN conversations t "     \
      "ON t.id = g.conversation_id WHERE g.shop_id = ? AND g.tag = ? AND t.shop_id = ?"            \
      SUPPORTCRM_TICKET_FILTERS " AND g.conversation_id < ? "                                      \
      "ORDER BY g.conversation_id DESC LIMIT ?")                                                   \
    S(tickets_filtered_by_status, (Positional<22>),                                                                  \
      "SELECT " SUPPORTCRM_TICKET_COLUMNS " FROM human_tickets h STRAIGHT_JOIN conversations t "   \
      "ON t.id = h.conversation_id WHERE h.shop_id = ? AND h.status IN (?, ?, ?, ?) "              \
      "AND t.shop_id = ?" SUPPORTCRM_TICKET_FILTERS " AND h.conversation_id < ? "                  \
      "ORDER BY h.conversation_id DESC LIMIT ?")                                                   \
    /* status=none alone (sql/017): the tickets without HumanTicket, by their own index */       \
    /* (shop, has_human_ticket = 0, id), newest first (binds shop twice, as the by_* */           \
    /* statements bind it after their values). The filters still check the status itself. */    \
    S(tickets_filtered_no_human_ticket, (Positional<18>),                                                            \
      SUPPORTCRM_TICKETS_BY_OWN_INDEX("ix_conversations_shop_human", "t.has_human_ticket = 0"))    \
    S(ticket_no_human_ticket_count, (Positional<2>), SUPPORTCRM_TICKETS_COUNT_BY("t.has_human_ticket = 0"))         \
    /* customerId, assignedTo and Channel beside a tag, a status or q (ticket_repo.cpp's */        \
    /* ticket_sources): the ticket's own columns, each by its index, newest first (ids */          \
    /* follow the indexed value: InnoDB appends the primary key); counted and walked as */         \
    /* status=none is. assignedTo binds its id as text, 0 for none (NULLIF: IS NULL). */           \
    S(tickets_filtered_by_customer, (Positional<19>),                                                                \
      SUPPORTCRM_TICKETS_BY_OWN_INDEX("ix_conversations_customer", "t.customer_id = ?"))           \
    S(ticket_customer_count, (Positional<3>), SUPPORTCRM_TICKETS_COUNT_BY("t.customer_id = ?"))                     \
    S(tickets_filtered_by_assigned, (Positional<19>),                                                                \
      SUPPORTCRM_TICKETS_BY_OWN_INDEX("ix_conversations_shop_assigned",                            \
                                      "t.assigned_to <=> NULLIF(?, 0)"))                           \
    S(ticket_assigned_count, (Positional<3>), SUPPORTCRM_TICKETS_COUNT_BY("t.assigned_to <=> NULLIF(?, 0)"))        \
    S(tickets_filtered_by_channel, (Positional<19>),                                                                 \
      SUPPORTCRM_TICKETS_BY_OWN_INDEX("ix_conversations_shop_channel", "t.channel = ?"))           \
    S(ticket_channel_count, (Positional<3>), SUPPORTCRM_TICKETS_COUNT_BY("t.channel = ?"))                          \
    /* The id `rows` places below the cursor in the shop's tickets (none: fewer are left): */     \
    /* the floor of a scan that may read that many tickets. */                                     \
    S(ticket_scan_floor, (Id, Id, Id),                                                                           \
      "SELECT t.id FROM conversations t WHERE t.shop_id = ? AND t.id < ? "                         \
      "ORDER BY t.id DESC LIMIT 1 OFFSET ?")                                                       \
    /* How many of the shop's rows a filter's index holds for its value, counted up to a */       \
    /* bound (binding shop, the value(s), bound): which filter to start from. */                  \
    S(ticket_tag_count, (Positional<3>),                                                                            \
      "SELECT COUNT(*) FROM (SELECT 1 FROM ticket_tags g WHERE g.shop_id = ? AND g.tag = ? "       \
      "LIMIT ?) n")                                                                                \
    S(ticket_status_count, (Positional<6>),                                                                         \
      "SELECT COUNT(*) FROM (SELECT 1 FROM human_tickets h WHERE h.shop_id = ? "                   \
      "AND h.status IN (?, ?, ?, ?) LIMIT ?) n")                                                   \
    /* How many of the shop's (ticket, word) rows a query word starts, counted up to a bound: */  \
    /* which word to start from. */                                                                \
    S(ticket_word_count, (Positional<3>),                                                                           \
      "SELECT COUNT(*) FROM (SELECT 1 FROM ticket_words w WHERE w.shop_id = ? AND w.word LIKE ? "  \
      "LIMIT ?) n")                                                                                \
    /* Of a list of tickets (a JSON array of ids), those having a word starting with each */    \
    /* of a few query words (a JSON array) in rows of the shop: binds ids, words, shop, the */    \
    /* number of words. The tickets are a table of their own, not the outer row of a */           \
    /* subquery, and the ticket is compared by a range of one value, not by `=`: so the */        \
    /* server plans the primary key's range (ticket, [w, w + U+10FFFF)) anew for each */           \
    /* (ticket, word), "Range checked for each record", and reads only the rows each word */       \
    /* starts (one seek when it starts none), where `x.conversation_id = c.id` reads all of */    \
    /* the ticket's words below w (docs/performance.md, "Many words"). */                          \
    S(ticket_words_check, (Text, Text, Id, Id),                                                                          \
      "SELECT c.id FROM " SUPPORTCRM_JSON_IDS("?") " c STRAIGHT_JOIN " SUPPORTCRM_JSON_WORDS("?")  \
      " q STRAIGHT_JOIN ticket_words x FORCE INDEX (PRIMARY) ON x.conversation_id >= c.id "        \
      "AND x.conversation_id <= c.id AND x.shop_id = ? "                                           \
      "AND x.word >= q.w AND x.word < " SUPPORTCRM_WORD_END                                         \
      " GROUP BY c.id HAVING COUNT(DISTINCT q.w) = ?")                                             \
    /* The other way for one word: the tickets of its rows in the shop (its index range, */     \
    /* 'word%') between the oldest and the newest candidate, up to a bound, which the worker */  \
    /* looks up in the candidates. Cheaper than the seeks when the word has few rows per */      \
    /* candidate: reading a row costs ~0.5 us, a seek 10-30 us (docs/performance.md, "Many */     \
    /* words"). */                                                                                 \
    /* The server reads whichever range is smaller: the word's in ix_ticket_words_shop_word */     \
    /* (its first and last word trimmed to the ids: the key's third part) or the primary */        \
    /* key's, every word of the tickets between the two ids; rows outside the ids are neither */   \
    /* counted against the bound nor sent. Binds shop, 'word%', the lowest and the highest */      \
    /* id, the bound. */                                                                           \
    S(ticket_word_tickets, (Id, Text, Id, Id, Id),                                                                         \
      "SELECT w.conversation_id FROM ticket_words w WHERE w.shop_id = ? AND w.word LIKE ? "        \
      "AND w.conversation_id BETWEEN ? AND ? LIMIT ?")                                             \
    /* Customers: the same two ways (scan binds shop, floor, words, cursor's id, limit + 1; */  \
    /* by_word shop and 'word%' first, then shop, words, cursor's id, limit + 1). */              \
    S(customers_search_scan, (Positional<5>),                                                                       \
      "SELECT " SUPPORTCRM_CUSTOMER_COLUMNS " FROM customers c WHERE c.shop_id = ? "               \
      "AND c.id >= ? AND c.merged_into IS NULL" SUPPORTCRM_CUSTOMER_WORDS_MATCH                    \
      " AND c.id < ? ORDER BY c.id DESC LIMIT ?")                                                  \
    S(customer_scan_floor, (Id, Id, Id),                                                                         \
      "SELECT c.id FROM customers c WHERE c.shop_id = ? AND c.id < ? "                             \
      "ORDER BY c.id DESC LIMIT 1 OFFSET ?")                                                       \
    S(customers_search_by_word, (Positional<6>),                                                                    \
      "SELECT " SUPPORTCRM_CUSTOMER_COLUMNS " FROM (SELECT DISTINCT w.customer_id "               \
      "FROM customer_words w WHERE w.shop_id = ? AND w.word LIKE ?) d "                            \
      "STRAIGHT_JOIN customers c ON c.id = d.customer_id "                                         \
      "WHERE c.shop_id = ? AND c.merged_into IS NULL" SUPPORTCRM_CUSTOMER_WORDS_MATCH              \
      " AND c.id < ? ORDER BY c.id DESC LIMIT ?")                                                  \
    S(customer_word_count, (Positional<3>),                                                                         \
      "SELECT COUNT(*) FROM (SELECT 1 FROM customer_words w WHERE w.shop_id = ? "                  \
      "AND w.word LIKE ? LIMIT ?) n")                                                              \
    /* Past the scan window, as for tickets (binds as SUPPORTCRM_ROWS_IN_WINDOW says, then */    \
    /* shop, the cursor's id, limit + 1: q's words are all intersected, at most three). */        \
    S(customers_in_window_by_word, (Positional<23>),                                                                 \
      SUPPORTCRM_CUSTOMERS_OF_WORD_ROWS(SUPPORTCRM_ONE_WORD_IN_WINDOW))                            \
    S(customers_in_window_by_two_words, (Positional<43>),                                                            \
      SUPPORTCRM_CUSTOMERS_OF_WORD_ROWS(SUPPORTCRM_TWO_WORDS_IN_WINDOW))                           \
    S(customers_in_window_by_three_words, (Positional<63>),                                                          \
      SUPPORTCRM_CUSTOMERS_OF_WORD_ROWS(SUPPORTCRM_THREE_WORDS_IN_WINDOW))                         \
    S(customer_word_next_form, (Id, Text, Text), SUPPORTCRM_NEXT_WORD_FORM("customer_words"))                       \
    /* The same for customers (binds ids, words, shop, the number of words). */                  \
    S(customer_words_check, (Text, Text, Id, Id),                                                                        \
      "SELECT c.id FROM " SUPPORTCRM_JSON_IDS("?") " c STRAIGHT_JOIN " SUPPORTCRM_JSON_WORDS("?")  \
      " q STRAIGHT_JOIN customer_words x FORCE INDEX (PRIMARY) ON x.customer_id >= c.id "          \
      "AND x.customer_id <= c.id AND x.shop_id = ? "                                               \
      "AND x.word >= q.w AND x.word < " SUPPORTCRM_WORD_END                                         \
      " GROUP BY c.id HAVING COUNT(DISTINCT q.w) = ?")                                             \
    /* And the customers of a word's rows (binds shop, 'word%', lowest and highest id, the */  \
    /* bound). */                                                                                  \
    S(customer_word_customers, (Id, Text, Id, Id, Id),                                                                     \
      "SELECT w.customer_id FROM customer_words w WHERE w.shop_id = ? AND w.word LIKE ? "          \
      "AND w.customer_id BETWEEN ? AND ? LIMIT ?")                                                 \
    /* The search data's writes. Each sets shop_id on a row that is there already: a row a */     \
    /* restore left under a reused id (issue 43) then says the shop of the record it now */        \
    /* describes, and the shop's index (shop_id, word, id) lists it. The same value (every */      \
    /* other case) changes nothing: no index entry is rewritten. */                                \
    /* The search indexer's (db/search/indexer.h, sql/023): the comments queued in */            \
    /* comment_words_pending, oldest first, locked (SKIP LOCKED: a second indexer, another */     \
    /* host's, takes the next ones), with each one's age in milliseconds. */                      \
    S(comment_words_claim, (UInt),                                                                 \
      "SELECT id, comment_id, TIMESTAMPDIFF(MICROSECOND, queued_at, NOW(3)) DIV 1000 "             \
      "FROM comment_words_pending ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED")                     \
    /* The claimed comments (a JSON array of their ids), each with its ticket, under a shared */ \
    /* lock: an erasure that scrubs one (db/erasure_sql.h) waits for the batch, which then has */  \
    /* the words deleted with the others, or the batch reads the scrubbed text (''), which has */  \
    /* none. A comment gone (no row) has nothing to index. Only the comments are locked: a */      \
    /* ticket row lock would hold the ticket's next comment (its touch) for the batch. No */      \
    /* ORDER BY: sorting the join's rows, texts and all, took a temporary table on disk. */        \
    S(comment_words_texts, (Text),                                                                 \
      "SELECT m.id, m.conversation_id, m.text FROM " SUPPORTCRM_JSON_IDS("?") " j "               \
      "STRAIGHT_JOIN messages m ON m.id = j.id LOCK IN SHARE MODE")                                \
    /* The shops of the batch's tickets (a JSON array of ids), without a lock: a ticket's shop */ \
    /* never changes. */                                                                           \
    S(comment_words_shops, (Text),                                                                 \
      "SELECT c.id, c.shop_id FROM " SUPPORTCRM_JSON_IDS("?") " j "                               \
      "STRAIGHT_JOIN conversations c ON c.id = j.id")                                              \
    /* The batch's words, sorted by key, as one JSON array of {"t": ticket, "s": shop, "w": */     \
    /* word} objects. A word the ticket has already is marked as a comment's (it stays when the */ \
    /* name changes). Re-run, it writes the same rows: the words are a set. */                     \
    S(comment_words_add, (Text),                                                                   \
      "INSERT INTO ticket_words (conversation_id, word, shop_id, in_comments) "                   \
      "SELECT q.t, q.w, q.s, 1 FROM JSON_TABLE(?, '$[*]' COLUMNS ("                                \
      "t BIGINT UNSIGNED PATH '$.t', s INT UNSIGNED PATH '$.s', "                                  \
      "w VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$.w')) q "                    \
      "ON DUPLICATE KEY UPDATE in_comments = 1, shop_id = VALUES(shop_id)")                        \
    /* The claimed entries go with the words they stood for (ids: a JSON array). */               \
    S(comment_words_done, (Text),                                                                  \
      "DELETE p FROM " SUPPORTCRM_JSON_IDS("?") " j JOIN comment_words_pending p ON p.id = j.id")  \
    /* The indexer's lag: the age of the oldest queued comment or customer, in milliseconds */   \
    /* (NULL: none), and how many are queued. */                                                   \
    S(comment_words_lag, (),                                                                       \
      "SELECT GREATEST(COALESCE((SELECT TIMESTAMPDIFF(MICROSECOND, queued_at, NOW(3)) DIV 1000 "   \
      "FROM comment_words_pending ORDER BY id LIMIT 1), -1), "                                     \
      "COALESCE((SELECT TIMESTAMPDIFF(MICROSECOND, queued_at, NOW(3)) DIV 1000 "                   \
      "FROM customer_words_pending ORDER BY id LIMIT 1), -1)), "                                   \
      "(SELECT COUNT(*) FROM comment_words_pending) + "                                            \
      "(SELECT COUNT(*) FROM customer_words_pending)")                                             \
    /* New customers (sql/024), as comment_words_claim. */                                         \
    S(customer_words_claim, (UInt),                                                                \
      "SELECT id, customer_id, TIMESTAMPDIFF(MICROSECOND, queued_at, NOW(3)) DIV 1000 "            \
      "FROM customer_words_pending ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED")                    \
    /* The claimed customers as they are now, under a shared lock (a PATCH, a merge or an */     \
    /* erasure of one waits for the batch): listed (neither merged nor erased) and the searched */ \
    /* fields. One a writer holds is skipped, not waited for (the batch would hold the others' */  \
    /* locks meanwhile, and writers would queue behind it): it stays queued for the next batch. */ \
    S(customer_words_rows, (Text),                                                                 \
      "SELECT c.id, c.shop_id, c.merged_into IS NULL AND c.erased_at IS NULL, c.email, "           \
      "c.phone_number, c.first_name, c.last_name, c.full_name FROM " SUPPORTCRM_JSON_IDS("?")     \
      " j STRAIGHT_JOIN customers c ON c.id = j.id LOCK IN SHARE MODE SKIP LOCKED")                \
    /* Which of the claimed customers the read above did not return exist (a plain read): */      \
    /* those are held by a writer; the rest are gone and have no words to write. */               \
    S(customer_words_present, (Text),                                                              \
      "SELECT c.id FROM " SUPPORTCRM_JSON_IDS("?") " j STRAIGHT_JOIN customers c ON c.id = j.id")  \
    /* Whatever words the claimed ids have: an earlier record's (issue 43), a batch's before. */  \
    S(customer_words_clear_batch, (Text),                                                          \
      "DELETE w FROM " SUPPORTCRM_JSON_IDS("?") " j STRAIGHT_JOIN customer_words w "               \
      "ON w.customer_id = j.id")                                                                   \
    /* The batch's words, {"t": customer, "s": shop, "w": word}, sorted by key. */                \
    S(customer_words_write, (Text),                                                                \
      "INSERT INTO customer_words (customer_id, word, shop_id) "                                   \
      "SELECT q.t, q.w, q.s FROM JSON_TABLE(?, '$[*]' COLUMNS ("                                   \
      "t BIGINT UNSIGNED PATH '$.t', s INT UNSIGNED PATH '$.s', "                                  \
      "w VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$.w')) q "                    \
      "ON DUPLICATE KEY UPDATE shop_id = VALUES(shop_id)")                                         \
    S(customer_words_done, (Text),                                                                 \
      "DELETE p FROM " SUPPORTCRM_JSON_IDS("?") " j JOIN customer_words_pending p ON p.id = j.id") \
    S(ticket_words_add_name, (Id, Id, Text),                                                                       \
      "INSERT INTO ticket_words (conversation_id, word, shop_id) "                                 \
      "SELECT ?, q.w, ? FROM " SUPPORTCRM_JSON_WORDS("?") " q "                                    \
      "ON DUPLICATE KEY UPDATE shop_id = VALUES(shop_id)")                                         \
    /* A ticket's tags (create, PATCH of tags): the old ones go, the new ones come. */          \
    S(ticket_tags_clear, (Id), "DELETE FROM ticket_tags WHERE conversation_id = ?")                      \
    S(ticket_tags_add, (Id, Id, Text),                                                                             \
      "INSERT INTO ticket_tags (conversation_id, tag, shop_id) "                                   \
      "SELECT ?, j.tag, ? FROM " SUPPORTCRM_JSON_TAGS("?") " j WHERE j.tag IS NOT NULL "           \
      "ON DUPLICATE KEY UPDATE shop_id = VALUES(shop_id)")                                         \
    /* A new record's id may be one that AUTO_INCREMENT hands out again after a restore into */   \
    /* the existing database (issue 43), still named by words of the record it was: whether */     \
    /* any are there. A plain read, which locks nothing: the DELETE that clears them, or a */      \
    /* locking read, would lock the gap at the index's end, where every concurrent create */       \
    /* inserts its rows (gap against gap: a deadlock). Not ticket_tags, which would double */      \
    /* the cost: a tag row never answers alone (the tag filter checks the ticket's own tags, */    \
    /* t.tags, and ticket_tags_add sets the shop), so stale tags go with the words. */             \
    S(ticket_id_has_words, (Id),                                                                         \
      "SELECT EXISTS (SELECT 1 FROM ticket_words WHERE conversation_id = ?)")                      \
    S(ticket_words_clear, (Id), "DELETE FROM ticket_words WHERE conversation_id = ?")                    \
    /* A new name: the words only the old name had go (then the new name's are added). */        \
    S(ticket_words_drop_name, (Id),                                                                      \
      "DELETE FROM ticket_words WHERE conversation_id = ? AND in_comments = 0")                    \
    S(customer_words_clear, (Id), "DELETE FROM customer_words WHERE customer_id = ?")                    \
    S(customer_words_add, (Id, Id, Text),                                                                          \
      "INSERT INTO customer_words (customer_id, word, shop_id) "                                   \
      "SELECT ?, q.w, ? FROM " SUPPORTCRM_JSON_WORDS("?") " q "                                    \
      "ON DUPLICATE KEY UPDATE shop_id = VALUES(shop_id)")                                         \
    /* Erasure (extensions.md E9): the customer's and those merged into it, in the first */       \
    /* transaction; its tickets' in the batches that clear those tickets (db/erasure_sql.h): */   \
    /* every row of the customer's tickets with ids in (?, ?], the tickets read along */           \
    /* ix_conversations_customer, then each one's rows along the primary key (STRAIGHT_JOIN: */    \
    /* never a range of ticket_words over other customers' tickets); the rows of a ticket of */    \
    /* many comments in bounded batches of their own. */                                           \
    S(erase_customer_words, (Id, Id),                                                                        \
      "DELETE FROM customer_words WHERE customer_id IN "                                           \
      "(SELECT x.id FROM customers x WHERE x.id = ? OR x.merged_into = ?)")                        \
    S(erase_tickets_words, (Id, Id, Id),                                                                         \
      "DELETE w FROM conversations t STRAIGHT_JOIN ticket_words w ON w.conversation_id = t.id "    \
      "WHERE t.customer_id = ? AND t.id > ? AND t.id <= ?")                                        \
    S(erase_ticket_words, (Id, UInt),                                                                          \
      "DELETE FROM ticket_words WHERE conversation_id = ? LIMIT ?")
SUPPORTCRM_SEARCH_STATEMENTS(SUPPORTCRM_SQL_TEXT, SUPPORTCRM_KEYED_SQL_TEXT)
}  // namespace sql_text

// clang-format on

namespace layout {
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::tickets_filtered_scan) == tickets_page::kColumns);
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::tickets_filtered_by_word) ==
                        tickets_page::kColumns);
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::tickets_filtered_by_tag) ==
                        tickets_page::kColumns);
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::tickets_in_window_by_word) ==
                        tickets_page::kColumns);
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::tickets_in_window_by_two_words) ==
                        tickets_page::kColumns);
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::tickets_in_window_by_three_words) ==
                        tickets_page::kColumns);
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::tickets_filtered_by_status) ==
                        tickets_page::kColumns);
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::tickets_filtered_no_human_ticket) ==
                        tickets_page::kColumns);
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::tickets_filtered_by_customer) ==
                        tickets_page::kColumns);
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::tickets_filtered_by_assigned) ==
                        tickets_page::kColumns);
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::tickets_filtered_by_channel) ==
                        tickets_page::kColumns);
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::customers_search_scan) ==
                        result_columns(sql_text::customers_page));
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::customers_search_by_word) ==
                        result_columns(sql_text::customers_page));
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::customers_in_window_by_word) ==
                        result_columns(sql_text::customers_page));
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::customers_in_window_by_two_words) ==
                        result_columns(sql_text::customers_page));
SUPPORTCRM_LAYOUT_CHECK(result_columns(sql_text::customers_in_window_by_three_words) ==
                        result_columns(sql_text::customers_page));
}  // namespace layout

}  // namespace supportcrm

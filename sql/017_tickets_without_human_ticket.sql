-- extensions.md §E10's `status=none` (tickets without a HumanTicket), listed by an index of its
-- own (docs/performance.md, "Ways to a search page"): no index lists rows that are absent, so
-- status=none walked every ticket of the shop when few tickets lacked a HumanTicket (100 of
-- 100,000: 200,215 rows read for one page). conversations.has_human_ticket says whether the
-- ticket has its human_tickets row; it is written with that row, in its transaction: at ticket
-- create (the row is written iff isOpenedTicket, db/ticket_repo.cpp insert_ticket) and by the
-- ticket's UPDATE of a PATCH that opens one (update_ticket). A HumanTicket is never deleted (a
-- ticket is never deleted: an erasure keeps it, a merge moves it within the shop).
--
-- Cost: the column is instant (MariaDB 10.3+, NOT NULL with a default, at the end: no table
-- rebuild); the backfill rewrites the rows of tickets that have a HumanTicket (one write set on
-- Galera); the index is built online (ALGORITHM=INPLACE, LOCK=NONE: reads and writes go on)
-- and holds (shop_id, has_human_ticket, id) for every ticket, 13 bytes of key each
-- (docs/performance.md, "Migrations under load", gives its time on a 100,000-ticket shop).
ALTER TABLE conversations ADD COLUMN IF NOT EXISTS has_human_ticket TINYINT(1) NOT NULL DEFAULT 0;

-- In batches of 2,000 tickets, each its own transaction (supportcrm-admin migrate runs a
-- statement naming @batch_hi once per range of @batch_table's ids; by hand this is one
-- statement over the whole range): one UPDATE of every ticket kept each of them locked until
-- it ended, ~2 s per 50,000 tickets with a HumanTicket, and a comment or PATCH waited for it.
SET @batch_table = 'conversations', @batch_size = 2000,
    @batch_lo = 0, @batch_hi = 18446744073709551615;
UPDATE conversations c JOIN human_tickets h ON h.conversation_id = c.id
SET c.has_human_ticket = 1
WHERE c.id BETWEEN @batch_lo AND @batch_hi AND c.has_human_ticket = 0;

CREATE INDEX IF NOT EXISTS ix_conversations_shop_human
    ON conversations (shop_id, has_human_ticket);

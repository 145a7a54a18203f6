-- How far an erasure's batches are (extensions.md §E9; db/erasure_sql.h, docs/operations.md
-- "Personal data"): a DELETE does a bounded share of the work and answers 202 while some is
-- left; the next one goes on from here instead of walking the tickets already done again.
--
-- erasure_through: every ticket of the customer with an id up to this one is done (its
-- comments, its words and its own fields cleared); 0 before the first. Set in the transaction
-- of the batch that finished that ticket, and only ever raised.
-- erasure_comment: within the ticket after erasure_through, when its comments take several
-- batches, the last comment (in (time, id) order) of the last batch done; NULL otherwise. Set in
-- the transaction of that batch. A DELETE reads the comment's ticket and (time, id) and starts
-- after it when that ticket is the next one to do; otherwise it ignores it.
--
-- Instant on MariaDB 10.3+ (columns added at the end: no table rebuild). The service reads the
-- columns only in an erasure's batches: until this migration runs, such a DELETE answers 5xx after
-- its first transaction (the customer answers 410 already), and repeating it once the
-- migration has run finishes the erasure.
ALTER TABLE customers
    ADD COLUMN IF NOT EXISTS erasure_through BIGINT UNSIGNED NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS erasure_comment BIGINT UNSIGNED NULL;

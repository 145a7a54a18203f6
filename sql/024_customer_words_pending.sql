-- A new customer's words are indexed after its commit, by the search indexer, like a comment's
-- (sql/023; extensions.md §E10 v1.3: "Changes are found within 1 s of their commit"; issue 45;
-- db/search/indexer.h).
--
-- Until now a customer's create ran two word statements in its transaction (whether its id
-- still had an earlier record's words, then the words' JSON_TABLE insert): 2 of its 5 round
-- trips. Now its insert leaves one row here (the trigger below: no statement of its own), and
-- the indexer takes the rows in batches: reads each customer under a shared lock, deletes
-- whatever words its id has (also an earlier record's, left by a restore into the database:
-- issue 43) and writes the words of its row as it is now, none when it is merged or erased.
-- A batch writes what the row says, so it agrees with any later write: a PATCH, a merge and an
-- erasure still write (or delete) the words in their own transactions, and a batch that runs
-- after them writes the same; one that runs before them is followed by theirs (the shared
-- lock orders the two). An erasure wins over an entry still waiting: the batch reads the
-- scrubbed, erased row and writes nothing.
CREATE TABLE IF NOT EXISTS customer_words_pending (
    id           BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    customer_id  BIGINT UNSIGNED NOT NULL,
    queued_at    DATETIME(3)     NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Every customer, however inserted (the API, E14's mail, a restore's INSERTs), is queued.
-- Replaced atomically (CREATE OR REPLACE): no insert runs without it.
CREATE OR REPLACE TRIGGER tr_customers_words_pending AFTER INSERT ON customers FOR EACH ROW
    INSERT INTO customer_words_pending (customer_id) VALUES (NEW.id);
-- Upgrade: the previous binary's workers, serving until the new pool takes over, write their
-- customers' words themselves and are queued as well (written again: the same rows).

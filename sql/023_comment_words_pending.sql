-- A comment's words are indexed after its commit, by the search indexer (extensions.md §E10
-- v1.3: "Changes are found within 1 s of their commit"; issue 45; db/search/indexer.h).
--
-- Until now the comment's transaction wrote its words (ticket_words, sql/012, sql/016): one
-- more statement, a temporary table for its JSON_TABLE, and a B-tree visit per new word in both
-- of the table's indexes, in every comment's request. Now the comment's insert leaves one small
-- row here, in its own transaction (the trigger below: no statement of its own), and the
-- indexer takes the rows in batches: reads the comments (a shared lock on each, so an erasure
-- that scrubs one waits for the batch, or the batch reads the scrubbed text), writes the words
-- of the whole batch in one statement sorted by key, deletes the rows it took, and commits.
--
-- Nothing committed is missed: the row commits with its comment, and goes only in the
-- transaction that wrote the comment's words. Nothing is indexed twice: the words are a set
-- (ON DUPLICATE KEY), and a batch that fails (a crash, a deadlock, a Galera certification
-- conflict with another host's indexer) rolls back with its rows, which the next batch takes.
-- queued_at: when the comment was inserted (its commit follows within its transaction): the
-- indexer's lag is the age of the oldest row (/status, /metrics).
CREATE TABLE IF NOT EXISTS comment_words_pending (
    id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    comment_id  BIGINT UNSIGNED NOT NULL,
    queued_at   DATETIME(3)     NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Every comment, however inserted (the API, E14's mail, a restore's INSERTs), is queued.
-- Replaced atomically (CREATE OR REPLACE): no insert runs without it.
CREATE OR REPLACE TRIGGER tr_messages_words_pending AFTER INSERT ON messages FOR EACH ROW
    INSERT INTO comment_words_pending (comment_id) VALUES (NEW.id);
-- Upgrade: the previous binary's workers, serving until the new pool takes over, write their
-- comments' words themselves and are queued as well (indexed again: a set, no change); the new
-- binary's workers start only once this file has run (they prepare the indexer's statements).

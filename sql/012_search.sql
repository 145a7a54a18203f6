-- Finding tickets and customers (extensions.md §E10): filters and full-text search, on MariaDB
-- alone (docs/performance.md, "Word index", has the design and what it costs).
--
-- The search data is a word table, not an InnoDB FULLTEXT index: the words are the spec's
-- (maximal runs of Unicode letters and digits), folded by the service (common/words.cpp) so that
-- "MÜLLER" finds "Müller" although every column compares utf8mb4_bin; there are no stop words
-- and no minimum token size but the spec's 3 characters; a word of a committed comment is an
-- ordinary B-tree row, visible to every later read, on one server or a Galera cluster alike.
-- A query word w matches the range [w, w + U+10FFFF) of a ticket's words (LIKE 'w%': words hold
-- only letters and digits, never % or _).
--
-- ticket_words: the distinct words of a ticket's name and of the text of all its comments.
-- in_comments: the word is in a comment (a comment's words are there for good until an erasure
-- clears the ticket); a word only in the name goes when the name changes.
-- (conversation_id, word): is this ticket's word there (the check of each query word);
-- (shop_id, word, conversation_id): which tickets of the shop have a word starting so.
CREATE TABLE IF NOT EXISTS ticket_words (
    conversation_id  BIGINT UNSIGNED NOT NULL,
    word             VARCHAR(64)  NOT NULL,
    shop_id          INT UNSIGNED NOT NULL,
    in_comments      TINYINT(1)   NOT NULL DEFAULT 0,
    PRIMARY KEY (conversation_id, word),
    KEY ix_ticket_words_shop_word (shop_id, word, conversation_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- customer_words: the distinct words of a customer's email, phone_number, first_name,
-- last_name and full_name, written with the customer row (create, PATCH, merge), gone with its
-- erasure.
CREATE TABLE IF NOT EXISTS customer_words (
    customer_id  BIGINT UNSIGNED NOT NULL,
    word         VARCHAR(64)  NOT NULL,
    shop_id      INT UNSIGNED NOT NULL,
    PRIMARY KEY (customer_id, word),
    KEY ix_customer_words_shop_word (shop_id, word, customer_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The filters of GET /api/v1/tickets that have an index of their own, newest first within the
-- value (InnoDB appends the primary key): Channel, assignedTo (NULL: `none`).
CREATE INDEX IF NOT EXISTS ix_conversations_shop_channel ON conversations (shop_id, channel);
CREATE INDEX IF NOT EXISTS ix_conversations_shop_assigned ON conversations (shop_id, assigned_to);

-- The words of what is stored already are not written here: sql/018's re-index
-- (db/search_reindex.cpp, run by `supportcrm-admin migrate` after the files) computes every
-- ticket's and customer's words with the service's own folding, in bounded batches of short
-- transactions. (This file filled both tables with one INSERT ... SELECT each, which held
-- shared locks on every comment for the whole statement: a comment write waited seconds
-- behind it, ~16 s per 200,000 comments.)

-- Finding tickets and customers (extensions.md §E10): filters and full-text search, on MariaDB
-- alone (docs/performance.md, "E10: search", has the design and what it costs).
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

-- The backfill: the words of what is stored already. The service splits and folds in C++; here
-- the same rule is written in SQL: letters and digits as PCRE's \p{L}, \p{Nd}, \p{Nl} and \p{Mc}
-- (glibc's C.UTF-8 iswalnum, which the service uses, counts these), folded with
-- LOWER(UPPER(...)) under utf8mb4_unicode_520_ci (Unicode's simple case mappings, as towlower
-- and towupper), cut to 64 characters, words of 3 or more. Both agree on every script's letters
-- and digits; they could only differ on a character whose class or case mapping changed
-- between Unicode 5.2 and glibc's Unicode version (docs/performance.md).
INSERT IGNORE INTO ticket_words (conversation_id, word, shop_id, in_comments)
SELECT m.conversation_id, LEFT(j.w, 64), c.shop_id, 1
FROM messages m
JOIN conversations c ON c.id = m.conversation_id,
JSON_TABLE(CONCAT('["', REPLACE(TRIM(REGEXP_REPLACE(
        LOWER(UPPER(CONVERT(m.text USING utf8mb4) COLLATE utf8mb4_unicode_520_ci)),
        '[^\\p{L}\\p{Nd}\\p{Nl}\\p{Mc}]+', ' ')), ' ', '","'), '"]'),
    '$[*]' COLUMNS (w VARCHAR(16000) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$')) j
WHERE CHAR_LENGTH(j.w) >= 3;

INSERT IGNORE INTO ticket_words (conversation_id, word, shop_id, in_comments)
SELECT c.id, LEFT(j.w, 64), c.shop_id, 0
FROM conversations c,
JSON_TABLE(CONCAT('["', REPLACE(TRIM(REGEXP_REPLACE(
        LOWER(UPPER(CONVERT(c.name USING utf8mb4) COLLATE utf8mb4_unicode_520_ci)),
        '[^\\p{L}\\p{Nd}\\p{Nl}\\p{Mc}]+', ' ')), ' ', '","'), '"]'),
    '$[*]' COLUMNS (w VARCHAR(1000) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$')) j
WHERE c.name IS NOT NULL AND CHAR_LENGTH(j.w) >= 3;

-- Customers: live ones only (a merged customer is never listed, an erased one holds nothing).
INSERT IGNORE INTO customer_words (customer_id, word, shop_id)
SELECT c.id, LEFT(j.w, 64), c.shop_id
FROM customers c,
JSON_TABLE(CONCAT('["', REPLACE(TRIM(REGEXP_REPLACE(
        LOWER(UPPER(CONVERT(CONCAT_WS(' ', c.email, c.phone_number, c.first_name, c.last_name,
                                      c.full_name) USING utf8mb4) COLLATE utf8mb4_unicode_520_ci)),
        '[^\\p{L}\\p{Nd}\\p{Nl}\\p{Mc}]+', ' ')), ' ', '","'), '"]'),
    '$[*]' COLUMNS (w VARCHAR(2000) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$')) j
WHERE c.merged_into IS NULL AND c.erased_at IS NULL AND CHAR_LENGTH(j.w) >= 3;

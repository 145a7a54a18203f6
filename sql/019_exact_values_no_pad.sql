-- Exact filters compare exactly (extensions.md §E3, §E10; issue 42): utf8mb4_bin is a PAD SPACE
-- collation, so `storefront_id=SF1` found "SF1 ", `Channel=Mail` found "Mail " and `tag=trail`
-- found "trail ". The columns the exact filters read become utf8mb4_nopad_bin: the same bytes
-- compared, trailing spaces included.
--
-- Safe on a big table (docs/operations.md, "What a migration costs"): every statement either
-- changes a column online (ALGORITHM=INPLACE, LOCK=NONE: reads and writes go on while the index
-- is rebuilt; the server refuses rather than lock, should it ever not be able to) or works on a
-- table no request uses yet. Re-runnable from any statement on.
--
-- The copy reads without locks (READ COMMITTED: a consistent read per statement, no shared
-- locks on the tickets it reads, so no write waits for it).
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;

-- The customer.created trigger (sql/006) puts storefront_id beside utf8mb4_bin columns in one
-- JSON_OBJECT, which two collations make "Illegal mix of collations" (1271): it names one, and
-- is replaced first and atomically (CREATE OR REPLACE), so that no insert ever runs without it
-- or fails between the two statements. The same text serves the column before and after.
CREATE OR REPLACE TRIGGER tr_customers_webhook_event AFTER INSERT ON customers FOR EACH ROW
    INSERT INTO webhook_events (shop_id, type, payload, created_at)
    SELECT s.id, 1,
           JSON_OBJECT('id', NEW.id, 'email', NEW.email, 'phone_number', NEW.phone_number,
                       'first_name', NEW.first_name, 'last_name', NEW.last_name,
                       'storefront_id', NEW.storefront_id COLLATE utf8mb4_bin,
                       'shopDomain', s.domain),
           NEW.created_at
    FROM shops s WHERE s.id = NEW.shop_id AND (s.webhook_events & 1) <> 0;

ALTER TABLE customers
    MODIFY storefront_id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,
    ALGORITHM=INPLACE, LOCK=NONE;
ALTER TABLE conversations
    MODIFY channel VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    ALGORITHM=INPLACE, LOCK=NONE;
ALTER TABLE surveys
    MODIFY channel VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL DEFAULT '',
    ALGORITHM=INPLACE, LOCK=NONE;

-- ticket_tags (sql/014): the tag is in its primary key, whose collation InnoDB cannot change in
-- place, and under PAD SPACE "x" and "x " of one ticket were one key. The table is built anew
-- beside the old one from the tickets' own tags (conversations.tags, what every write keeps
-- exact), swapped in by one atomic RENAME, and then every ticket changed since the copy began
-- (with ten minutes' margin for the app hosts' clocks, which set updated_at) is written again
-- while its row is locked: a ticket create or tag PATCH that committed into the old table after
-- the copy read its ticket is caught up, and one that runs during the catch-up waits for it
-- (its UPDATE of the ticket's row comes first) and then writes the new table itself.
DROP TABLE IF EXISTS ticket_tags_nopad;
CREATE TABLE ticket_tags_nopad (
    conversation_id  BIGINT UNSIGNED NOT NULL,
    tag              VARCHAR(255) NOT NULL,
    shop_id          INT UNSIGNED NOT NULL,
    PRIMARY KEY (conversation_id, tag),
    KEY ix_ticket_tags_shop_tag (shop_id, tag, conversation_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

SET @supportcrm_copy_start = UTC_TIMESTAMP(3) - INTERVAL 10 MINUTE;
INSERT IGNORE INTO ticket_tags_nopad (conversation_id, tag, shop_id)
SELECT c.id, j.tag, c.shop_id
FROM conversations c,
JSON_TABLE(c.tags, '$[*]' COLUMNS (tag VARCHAR(255) CHARACTER SET utf8mb4
                                   COLLATE utf8mb4_nopad_bin PATH '$')) j
WHERE JSON_VALID(c.tags) AND j.tag IS NOT NULL;

DROP TABLE IF EXISTS ticket_tags_pad;
RENAME TABLE ticket_tags TO ticket_tags_pad, ticket_tags_nopad TO ticket_tags;

START TRANSACTION;
-- Locks the changed tickets' rows (a no-op write), so that no tag write of theirs interleaves.
UPDATE conversations SET version = version WHERE updated_at >= @supportcrm_copy_start;
DELETE FROM ticket_tags WHERE conversation_id IN
    (SELECT id FROM conversations WHERE updated_at >= @supportcrm_copy_start);
INSERT IGNORE INTO ticket_tags (conversation_id, tag, shop_id)
SELECT c.id, j.tag, c.shop_id
FROM conversations c,
JSON_TABLE(c.tags, '$[*]' COLUMNS (tag VARCHAR(255) CHARACTER SET utf8mb4
                                   COLLATE utf8mb4_nopad_bin PATH '$')) j
WHERE c.updated_at >= @supportcrm_copy_start AND JSON_VALID(c.tags) AND j.tag IS NOT NULL;
COMMIT;

DROP TABLE IF EXISTS ticket_tags_pad;
SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ;

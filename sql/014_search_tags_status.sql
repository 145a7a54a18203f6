-- Finding tickets (extensions.md §E10): an index of their own for the `tag` and `status`
-- filters, so that a rare value (or one no ticket has) reads its own tickets, not the shop's
-- (docs/performance.md, "Ways to a search page": `tag=nothing` read 100,000 tickets).
--
-- ticket_tags: the distinct tags of each ticket (conversations.tags, a JSON array of strings),
-- written with that column in its transaction (ticket create, PATCH of tags). A merge moves
-- tickets between customers of one shop and an erasure keeps the tickets and their tags, so
-- neither changes these rows. (conversation_id, tag): a ticket's tags (PATCH rewrites them);
-- (shop_id, tag, conversation_id): the shop's tickets carrying a tag, newest last.
CREATE TABLE IF NOT EXISTS ticket_tags (
    conversation_id  BIGINT UNSIGNED NOT NULL,
    tag              VARCHAR(255) NOT NULL,
    shop_id          INT UNSIGNED NOT NULL,
    PRIMARY KEY (conversation_id, tag),
    KEY ix_ticket_tags_shop_tag (shop_id, tag, conversation_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The backfill: the stored tags read as the filter reads them (JSON_TABLE unescapes; a value
-- that is not a JSON array holds no tag to the filter either). In batches of 5,000 tickets
-- (see sql/017: supportcrm-admin migrate runs it once per range of ids; by hand, one
-- statement): on Galera each batch is a write set of its own.
SET @batch_table = 'conversations', @batch_size = 5000,
    @batch_lo = 0, @batch_hi = 18446744073709551615;
INSERT IGNORE INTO ticket_tags (conversation_id, tag, shop_id)
SELECT c.id, j.tag, c.shop_id
FROM conversations c,
JSON_TABLE(c.tags, '$[*]' COLUMNS (tag VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin
                                   PATH '$')) j
WHERE c.id BETWEEN @batch_lo AND @batch_hi AND JSON_VALID(c.tags) AND j.tag IS NOT NULL;

-- status: the HumanTicket's shop, so that (shop_id, status, conversation_id) lists the shop's
-- tickets having a status, newest last. Written by human_ticket_insert from the ticket's row;
-- a ticket never changes shop.
ALTER TABLE human_tickets
    ADD COLUMN IF NOT EXISTS shop_id INT UNSIGNED NOT NULL DEFAULT 0 AFTER conversation_id;
UPDATE human_tickets h JOIN conversations c ON c.id = h.conversation_id
SET h.shop_id = c.shop_id WHERE h.shop_id <> c.shop_id;
CREATE INDEX IF NOT EXISTS ix_human_tickets_shop_status
    ON human_tickets (shop_id, status, conversation_id);

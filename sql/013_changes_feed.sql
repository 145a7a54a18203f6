-- The changes feed (extensions.md §E11): every change of every shop, read in commit order.
--
-- The feed reads the webhook outbox (webhook_events: its id is the E5 webhook-id, the same
-- event either way), so every shop now records every event type, with or without webhooks:
-- shops.webhook_events, the bits of the events a write records (sql/006), is all of them
-- (255) for every shop, and `supportcrm-admin webhook create|delete` keeps it so
-- (db/webhook_sql.h, shop_webhook_events_refresh). The write pays one INSERT for its event
-- (docs/performance.md, "Changes feed and outbox").
ALTER TABLE shops MODIFY COLUMN webhook_events TINYINT UNSIGNED NOT NULL DEFAULT 255;
UPDATE shops SET webhook_events = 255 WHERE webhook_events <> 255;

-- seq: the event's place in its shop's feed, 1, 2, 3, ... with no gap, given AFTER the event
-- committed, by a reader of the feed (db/changes_repo.cpp, sequence_changes), never by the
-- write: an auto-increment id is taken at insert, so ids commit out of order and "id > cursor"
-- would skip an event that commits after a larger id was read. NULL: committed (or not yet)
-- and not numbered yet. Numbering runs under the shop's change_sequences row lock, so one
-- numbering at a time per shop (on Galera: two nodes' numberings conflict on that row in
-- certification and one is run again), and a reader's snapshot always holds a prefix
-- 1..n of the numbers (docs/scale-out.md, "The changes feed").
-- ux_webhook_events_shop_seq serves the feed's reads (shop, seq > cursor) and the search for
-- the shop's unnumbered events (seq IS NULL, in id order: InnoDB keeps NULLs first, then id).
ALTER TABLE webhook_events
    ADD COLUMN IF NOT EXISTS seq BIGINT UNSIGNED NULL,
    ADD UNIQUE KEY IF NOT EXISTS ux_webhook_events_shop_seq (shop_id, seq);

-- The last number given in each shop's feed. Its row is the lock that orders the numberings.
CREATE TABLE IF NOT EXISTS change_sequences (
    shop_id   INT UNSIGNED NOT NULL,
    last_seq  BIGINT UNSIGNED NOT NULL,
    PRIMARY KEY (shop_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

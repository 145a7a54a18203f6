-- The changes feed's since=<datetime> (extensions.md §E11) as one index lookup.
--
-- A reader with since=T starts at the first number (seq) whose event was written at or after T
-- (db/changes_sql.h, changes_since). Written times do not follow numbers (a long
-- transaction's event is written before, and numbered after, a short one's), so that was
-- MIN(seq) over the shop's events with created_at >= T: on ux_webhook_events_shop_seq a read
-- of every numbered event of the shop (ANALYZE: 200,000 rows read, 305 ms, for a shop with
-- 200,000 events; docs/performance.md, "Changes feed and outbox").
--
-- feed_at: the latest created_at among the shop's events numbered up to this one since this
-- migration, a running maximum in number order, set with seq by the numbering (NULL while
-- unnumbered). It never decreases as seq grows, and it first reaches T exactly at the first
-- event written at or after T (before that every created_at is below T; there the maximum is
-- its own created_at). So that event's number is the first entry of
-- ix_webhook_events_shop_feed_at (shop_id, feed_at, seq) at or after (shop, T): one dive.
--
-- Events numbered before this migration keep feed_at NULL (no backfill: MariaDB computes a
-- running MAX() window by recomputing each frame, minutes for 400,000 rows, above the
-- migration runner's 30 s read timeout). They all come before the newer ones, so changes_since
-- looks among them first (the index's (shop, NULL, seq) range) until retention has deleted them.
ALTER TABLE webhook_events
    ADD COLUMN IF NOT EXISTS feed_at DATETIME(3) NULL,
    ADD KEY IF NOT EXISTS ix_webhook_events_shop_feed_at (shop_id, feed_at, seq);

-- The running maximum where the shop's last numbering left it (read and advanced with last_seq
-- under the row lock): the next numbering continues it without reading an event row. NULL: no
-- numbering since this migration.
ALTER TABLE change_sequences ADD COLUMN IF NOT EXISTS last_at DATETIME(3) NULL;

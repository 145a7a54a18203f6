-- An event no webhook wants is written already fanned out (extensions.md §E5, §E11; issue 45).
--
-- Since the changes feed (sql/013) every write records its event, and every event row was
-- written with fanned_out = 0: the deliverer then read each one, ran its fan-out (an INSERT ...
-- SELECT joining the shop's webhooks) and set fanned_out = 1 (moving its ix_webhook_events_pending
-- entry), three statements and a commit on the database per write, for shops without a single
-- webhook as for the others.
--
-- shops.webhook_events now holds two masks of the event bits and a mark (db/webhook_repo.h,
-- shop_events):
--   bits 0-7    the events the shop's writes record: all of them (255), as since sql/013;
--   bits 8-15   the union of the filters of the shop's webhooks (0: no webhook);
--   bit 16      (65536) bits 8-15 hold that union. Without it every event counts as wanted
--               and is left to the deliverer as before: so a binary that writes events fanned
--               out loses none while this migration has not run yet (the package reloads, then
--               migrates), nor after an older binary's `webhook create` rewrote the column.
-- A write reads the column with its key (the keyed statement's row) and writes its event with
-- fanned_out = 1 when no webhook of the shop wants its type. `supportcrm-admin webhook
-- create|delete` sets it in the transaction that adds or deletes the webhook, under the shop
-- row's lock (db/webhook_sql.h, shop_webhook_events_refresh). A write whose snapshot was taken
-- before a new webhook committed does not give it its event: the write came first.
--
-- shops holds a row per shop: the column change copies a small table. Re-runnable.
ALTER TABLE shops MODIFY COLUMN webhook_events INT UNSIGNED NOT NULL DEFAULT 65791;
UPDATE shops s
SET s.webhook_events = 65536 | 255 |
    (SELECT COALESCE(BIT_OR(w.events), 0) FROM webhooks w WHERE w.shop_id = s.id) << 8;

-- The customer.created event (sql/006, sql/019), written by the customers trigger: fanned out
-- at once when the mark is set and no webhook of the shop wants customer.created (bit 1 of the
-- webhooks' mask: 256).
-- Replaced atomically (CREATE OR REPLACE): no insert runs without it.
CREATE OR REPLACE TRIGGER tr_customers_webhook_event AFTER INSERT ON customers FOR EACH ROW
    INSERT INTO webhook_events (shop_id, type, payload, created_at, fanned_out)
    SELECT s.id, 1,
           JSON_OBJECT('id', NEW.id, 'email', NEW.email, 'phone_number', NEW.phone_number,
                       'first_name', NEW.first_name, 'last_name', NEW.last_name,
                       'storefront_id', NEW.storefront_id COLLATE utf8mb4_bin,
                       'shopDomain', s.domain),
           NEW.created_at, (s.webhook_events & (65536 | 256)) = 65536
    FROM shops s WHERE s.id = NEW.shop_id AND (s.webhook_events & 1) <> 0;

-- Events written before this migration and still waiting for a fan-out that can deliver them to
-- no webhook are left to the deliverer: it fans them out as before.

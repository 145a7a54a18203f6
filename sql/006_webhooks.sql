-- Signed webhooks (extensions.md §E5): the shop's endpoints, a transactional outbox of events
-- and the deliveries of each event to each endpoint, with every attempt.
--
-- Event types are bits (customer.created 1, ticket.created 2, comment.created 4,
-- survey.created 8: db/webhook_repo.h). shops.webhook_events is the union of the filters of the
-- shop's webhooks, kept by `supportcrm-admin webhook create|delete` in the transaction that
-- changes them. Every write path already reads the shop row (the API key's statement joins it),
-- so a shop without webhooks costs its creates no statement at all: the event row is written
-- only when the shop's bit for it is set.
ALTER TABLE shops ADD COLUMN IF NOT EXISTS webhook_events TINYINT UNSIGNED NOT NULL DEFAULT 0;

CREATE TABLE IF NOT EXISTS webhooks (
    id          INT UNSIGNED NOT NULL AUTO_INCREMENT,
    shop_id     INT UNSIGNED NOT NULL,
    url         VARCHAR(2048) NOT NULL,
    events      TINYINT UNSIGNED NOT NULL,
    -- The base64 of the 32 key bytes (the secret shown once is "whsec_" followed by it).
    secret      VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    created_at  DATETIME(3)  NOT NULL,
    PRIMARY KEY (id),
    KEY ix_webhooks_shop (shop_id),
    CONSTRAINT fk_webhooks_shop FOREIGN KEY (shop_id) REFERENCES shops (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The outbox: one row per event, written in the transaction of the change it reports, the
-- payload (the resource exactly as the create response carries it) rendered then. The
-- deliverer fans each event out to the shop's webhooks whose filter takes it and that existed
-- when it happened, then sets fanned_out.
CREATE TABLE IF NOT EXISTS webhook_events (
    id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    shop_id     INT UNSIGNED NOT NULL,
    type        TINYINT UNSIGNED NOT NULL,
    payload     MEDIUMTEXT   NOT NULL,
    created_at  DATETIME(3)  NOT NULL,
    fanned_out  TINYINT UNSIGNED NOT NULL DEFAULT 0,
    PRIMARY KEY (id),
    KEY ix_webhook_events_pending (fanned_out, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- One event to one webhook. status: 0 pending, 1 delivered, 2 failed. A pending delivery is due
-- at next_attempt_at; deliverers claim due rows with FOR UPDATE SKIP LOCKED.
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    webhook_id        INT UNSIGNED NOT NULL,
    event_id          BIGINT UNSIGNED NOT NULL,
    status            TINYINT UNSIGNED NOT NULL DEFAULT 0,
    attempts          INT UNSIGNED NOT NULL DEFAULT 0,
    next_attempt_at   DATETIME(3)  NOT NULL,
    last_status_code  SMALLINT UNSIGNED NULL,
    PRIMARY KEY (webhook_id, event_id),
    KEY ix_webhook_deliveries_due (status, next_attempt_at),
    CONSTRAINT fk_webhook_deliveries_webhook FOREIGN KEY (webhook_id) REFERENCES webhooks (id)
        ON DELETE CASCADE,
    CONSTRAINT fk_webhook_deliveries_event FOREIGN KEY (event_id) REFERENCES webhook_events (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Every attempt: when, what the receiver answered (NULL: no HTTP answer; error says why).
CREATE TABLE IF NOT EXISTS webhook_attempts (
    id           BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    webhook_id   INT UNSIGNED NOT NULL,
    event_id     BIGINT UNSIGNED NOT NULL,
    attempted_at DATETIME(3)  NOT NULL,
    status_code  SMALLINT UNSIGNED NULL,
    error        VARCHAR(255) NULL,
    duration_ms  INT UNSIGNED NOT NULL,
    PRIMARY KEY (id),
    KEY ix_webhook_attempts_delivery (webhook_id, event_id),
    CONSTRAINT fk_webhook_attempts_delivery FOREIGN KEY (webhook_id, event_id)
        REFERENCES webhook_deliveries (webhook_id, event_id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- customer.created: the customer insert is one autocommit statement that resolves the API key
-- itself, so its event is written by this trigger, inside that very statement (atomic with it:
-- a duplicate's failed insert fires nothing, a rolled-back transaction takes the event along).
-- It costs a shop without webhooks one primary-key read of its shop row and nothing else. The
-- payload is the "customer" object of the 201 response (handlers/customers_create.cpp), in its
-- key order; keep the two in step (tests/integration/webhooks_test.cpp compares them).
CREATE TRIGGER IF NOT EXISTS tr_customers_webhook_event AFTER INSERT ON customers FOR EACH ROW
    INSERT INTO webhook_events (shop_id, type, payload, created_at)
    SELECT s.id, 1,
           JSON_OBJECT('id', NEW.id, 'email', NEW.email, 'phone_number', NEW.phone_number,
                       'first_name', NEW.first_name, 'last_name', NEW.last_name,
                       'storefront_id', NEW.storefront_id, 'shopDomain', s.domain),
           NEW.created_at
    FROM shops s WHERE s.id = NEW.shop_id AND (s.webhook_events & 1) <> 0;

-- Lookups and cursor pages (extensions.md §E3).
--
-- The cursor secret: the key of the HMAC that makes a page cursor tamper-evident. It lives in
-- the database, not in the config file, so that every host of a cluster signs and checks
-- cursors with the same secret without an operator copying it around; it is generated here,
-- once (RANDOM_BYTES is the server's CSPRNG, MariaDB 10.10+), and never leaves the server but
-- to the workers, which read it once each (docs/operations.md, "Cursor secret", tells how to
-- rotate it). Hex text, so that no layer has to carry binary bytes.
CREATE TABLE IF NOT EXISTS installation_secrets (
    name        VARCHAR(64)  NOT NULL,
    secret      CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    created_at  DATETIME(3)  NOT NULL,
    PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

INSERT IGNORE INTO installation_secrets (name, secret, created_at)
VALUES ('cursor', LOWER(HEX(RANDOM_BYTES(32))), UTC_TIMESTAMP(3));

-- Every list is newest first within a shop and pages by id (keyset): GET /api/v1/customers
-- without a filter walks (shop_id, id) backwards; storefront_id is compared exactly, and InnoDB
-- appends the primary key, so (shop_id, storefront_id) serves it in id order. email and
-- phone_number use the unique keys of duplicate detection (uq_customers_shop_email/phone).
CREATE INDEX IF NOT EXISTS ix_customers_shop ON customers (shop_id, id);
CREATE INDEX IF NOT EXISTS ix_customers_shop_storefront ON customers (shop_id, storefront_id);

-- GET /api/v1/tickets?updatedSince=: the range of lastMessageTime within a shop. Without a
-- filter ix_conversations_shop (shop_id, id) serves it; customerId uses
-- ix_conversations_customer (customer_id, then the primary key: id order).
CREATE INDEX IF NOT EXISTS ix_conversations_shop_last_message
    ON conversations (shop_id, last_message_time);

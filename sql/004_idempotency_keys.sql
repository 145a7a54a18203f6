-- Idempotency-Key (extensions.md §E2): the stored answer of each keyed POST that succeeded.
--
-- A row is inserted by the request that claims the key, inside the transaction that does the
-- write, and completed (status, body) in that same transaction: a row is committed only
-- together with its write, so a committed row always holds an answer to replay. While the
-- claiming transaction is open its uncommitted row is the "in progress" state: another request
-- with the key meets its lock (409); a request that dies rolls its row back with its write.
-- The key is the primary key, so the claim's duplicate check is the clustered index itself.
-- Rows older than 25 hours are deleted in small batches by the workers (docs/operations.md,
-- "Key retention"); ix_idempotency_keys_created serves that.
CREATE TABLE IF NOT EXISTS idempotency_keys (
    shop_id       BIGINT UNSIGNED NOT NULL,
    idem_key      VARBINARY(255)  NOT NULL,
    request_hash  CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    status        SMALLINT UNSIGNED NULL,
    body          MEDIUMBLOB      NULL,
    created_at    DATETIME(3)     NOT NULL,
    PRIMARY KEY (shop_id, idem_key),
    KEY ix_idempotency_keys_created (created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- supportcrm_webhook_deliveries_total{result} (extensions.md §E6) and the pruning of old
-- webhook rows (webhook-retention-days).
--
-- The counts are kept in the database, not in a deliverer's memory: deliverers on several hosts
-- share the work and each restarts at will, while the pool (any of its workers, on any host)
-- answers /metrics. A count derived from webhook_attempts would go down when old rows are
-- pruned, which Prometheus takes for a counter reset. So each delivery round adds its outcomes
-- here in its own transaction, atomically with the attempts it records (a round rolled back
-- counts nothing). outcome: 0 an attempt failed and is retried, 1 delivered, 2 failed for good
-- (DeliveryStatus in db/webhook_repo.h).
CREATE TABLE IF NOT EXISTS webhook_outcome_counts (
    outcome   TINYINT UNSIGNED NOT NULL,
    attempts  BIGINT UNSIGNED NOT NULL,
    PRIMARY KEY (outcome)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- What happened before this migration: every delivered or failed delivery ended with one
-- attempt of that outcome, every other attempt was retried.
INSERT IGNORE INTO webhook_outcome_counts (outcome, attempts)
SELECT 1, COUNT(*) FROM webhook_deliveries WHERE status = 1
UNION ALL
SELECT 2, COUNT(*) FROM webhook_deliveries WHERE status = 2
UNION ALL
SELECT 0, (SELECT COUNT(*) FROM webhook_attempts) -
          (SELECT COUNT(*) FROM webhook_deliveries WHERE status IN (1, 2));

-- Pruning finds old events by age without reading the whole outbox.
ALTER TABLE webhook_events ADD INDEX IF NOT EXISTS ix_webhook_events_created (created_at);

-- Changing tickets and customers (extensions.md §E8).
--
-- version: the record's version, what its ETag names. It goes up by one in the statement of
-- every change of a field the ETag covers (a PATCH, a comment's update of its ticket), so an
-- If-Match is checked and the change written in one atomic step, UPDATE ... WHERE id = ? AND
-- version = ? (no read-then-write race, on one server or across Galera nodes, where the loser
-- of two such updates fails certification and is run again). A new record is version 1.
ALTER TABLE conversations
    ADD COLUMN IF NOT EXISTS version BIGINT UNSIGNED NOT NULL DEFAULT 1,
    ADD COLUMN IF NOT EXISTS updated_at DATETIME(3) NULL;
ALTER TABLE customers ADD COLUMN IF NOT EXISTS version BIGINT UNSIGNED NOT NULL DEFAULT 1;

-- updatedAt of the tickets made before: the last change known, its creation or its newest
-- comment (every comment changes lastMessage).
UPDATE conversations c
SET c.updated_at = GREATEST(c.created_at,
                            COALESCE((SELECT MAX(m.created_at) FROM messages m
                                      WHERE m.conversation_id = c.id), c.created_at))
WHERE c.updated_at IS NULL;
-- The default is for rows written by other means than the service (which sets it): operator
-- scripts, test fixtures.
ALTER TABLE conversations MODIFY COLUMN updated_at DATETIME(3) NOT NULL
    DEFAULT CURRENT_TIMESTAMP(3);

-- ticket.updated and customer.updated carry "changes" beside "data" (NULL for other types).
ALTER TABLE webhook_events ADD COLUMN IF NOT EXISTS changes MEDIUMTEXT NULL;

-- A replayed answer about one ticket or customer carries its ETag again.
ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS etag VARCHAR(64) NULL;

-- Keys that fit the job (extensions.md §E12): scopes, expiry, rotation, per-key rate limits.
--
-- scopes: what the key may do. Keys made before this migration keep doing what they did:
-- read, write and export (the default); `erase` must be given explicitly.
-- expires_at: after it the key answers 401 "API key expired" (NULL: never). Rotation sets it
-- on the old key to the end of the overlap.
-- rate_count / rate_period: the key's budget, rate_count requests per rate_period seconds
-- (1 or 60), enforced by the service itself per host (both NULL: no limit).
-- last_used_at: kept to the minute; written at most once a minute per key, never on the
-- request's own transaction (docs/operations.md, "Key hygiene").
-- replaces_id: the key a rotation made this one to replace.
ALTER TABLE api_keys
    ADD COLUMN IF NOT EXISTS scopes SET('read', 'write', 'export', 'erase') NOT NULL
        DEFAULT 'read,write,export',
    ADD COLUMN IF NOT EXISTS expires_at DATETIME(3) NULL,
    ADD COLUMN IF NOT EXISTS rate_count INT UNSIGNED NULL,
    ADD COLUMN IF NOT EXISTS rate_period SMALLINT UNSIGNED NULL,
    ADD COLUMN IF NOT EXISTS last_used_at DATETIME NULL,
    ADD COLUMN IF NOT EXISTS replaces_id INT UNSIGNED NULL;

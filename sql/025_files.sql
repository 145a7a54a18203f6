-- Files (extensions.md §E13): a row per upload, the bytes content-addressed on disk under
-- files-dir (files-dir/ab/cd/<sha256>, common/file_store.h), written and synced before the row
-- that names them commits. Many rows may name one sha256 (two shops, or one shop twice); the
-- bytes are removed only when no row names them (erasure, or `supportcrm-admin files sweep`).
CREATE TABLE IF NOT EXISTS files (
    id            BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    shop_id       INT UNSIGNED    NOT NULL,
    filename      VARCHAR(255)    NOT NULL,
    content_type  VARCHAR(255)    NOT NULL,
    size          BIGINT UNSIGNED NOT NULL,
    sha256        CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    created_at    DATETIME(3)     NOT NULL,
    PRIMARY KEY (id),
    -- The sweep and the erasure ask whether any row still names the bytes.
    KEY ix_files_sha256 (sha256),
    CONSTRAINT fk_files_shop FOREIGN KEY (shop_id) REFERENCES shops (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Which comments reference which files, in the order the comment gave them. A file may be
-- referenced by several comments; erasing a customer deletes its comments' files (rows here
-- go with them: ON DELETE CASCADE).
CREATE TABLE IF NOT EXISTS message_files (
    message_id  BIGINT UNSIGNED  NOT NULL,
    position    TINYINT UNSIGNED NOT NULL,
    file_id     BIGINT UNSIGNED  NOT NULL,
    PRIMARY KEY (message_id, position),
    KEY ix_message_files_file (file_id),
    CONSTRAINT fk_message_files_message FOREIGN KEY (message_id) REFERENCES messages (id)
        ON DELETE CASCADE,
    CONSTRAINT fk_message_files_file FOREIGN KEY (file_id) REFERENCES files (id)
        ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

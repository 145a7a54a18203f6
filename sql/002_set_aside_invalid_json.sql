-- Stored values that are not JSON (issue 10, extensions.md §E1). Before the strict reader,
-- bodies such as {"attachments":[01,-,1.]} or a byte-order mark that shifted the slice were
-- stored verbatim, and every later list holding them was not JSON for any reader. This moves
-- each such value aside into invalid_json_archive (nothing is lost: an operator can read it
-- there) and puts the column's empty value in its place: attachments NULL, graphNodes {},
-- nodeIds []. The types stay those the contract promises.
--
-- JSON_VALID is MariaDB's own check, laxer than RFC 8259 in a few corners (it accepts "1.",
-- duplicate names and numbers beyond the double range), so a value with only those flaws
-- stays; it catches the examples of the issue (leading zeros, a lone "-", raw control
-- characters, comments, cut-off text). Every statement can be re-run: the archive key makes a
-- second copy a no-op and the updates only touch values still invalid.

CREATE TABLE IF NOT EXISTS invalid_json_archive (
    table_name   VARCHAR(64)     NOT NULL,
    row_id       BIGINT UNSIGNED NOT NULL,
    column_name  VARCHAR(64)     NOT NULL,
    original     MEDIUMTEXT      NOT NULL,
    archived_at  DATETIME(3)     NOT NULL,
    PRIMARY KEY (table_name, row_id, column_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

INSERT IGNORE INTO invalid_json_archive (table_name, row_id, column_name, original, archived_at)
SELECT 'messages', id, 'attachments', attachments, UTC_TIMESTAMP(3)
FROM messages WHERE attachments IS NOT NULL AND NOT JSON_VALID(attachments);

UPDATE messages SET attachments = NULL
WHERE attachments IS NOT NULL AND NOT JSON_VALID(attachments);

INSERT IGNORE INTO invalid_json_archive (table_name, row_id, column_name, original, archived_at)
SELECT 'surveys', id, 'graph_nodes', graph_nodes, UTC_TIMESTAMP(3)
FROM surveys WHERE NOT JSON_VALID(graph_nodes) OR JSON_TYPE(graph_nodes) <> 'OBJECT';

UPDATE surveys SET graph_nodes = '{}'
WHERE NOT JSON_VALID(graph_nodes) OR JSON_TYPE(graph_nodes) <> 'OBJECT';

INSERT IGNORE INTO invalid_json_archive (table_name, row_id, column_name, original, archived_at)
SELECT 'surveys', id, 'node_ids', node_ids, UTC_TIMESTAMP(3)
FROM surveys WHERE NOT JSON_VALID(node_ids) OR JSON_TYPE(node_ids) <> 'ARRAY';

UPDATE surveys SET node_ids = '[]'
WHERE NOT JSON_VALID(node_ids) OR JSON_TYPE(node_ids) <> 'ARRAY';

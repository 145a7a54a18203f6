-- CSAT analytics (extensions.md §E4).
--
-- 1. A survey keeps its conversation's Channel and assigned_to as they were when it was
--    recorded (filters channel / assignedTo, groupBy channel / agent, the export). Existing
--    surveys take their conversation's current values: the best the database still knows.
--    ix_surveys_customer serves the customerId filter and its export (a customer has few).
-- 2. survey_span_counts: counts per (shop, aligned time span, channel, agent) with one column
--    per mark. A span is [start, start + span) in minutes since 1000-01-01 00:00 UTC
--    (DATETIME's first day: never negative), start a multiple of span, for each span of
--    kCsatSpans (db/survey_sql.h): 15 minutes, 1 hour, 1 day. Every survey adds 1 to one row
--    per span and rollup, in the transaction that records it (one INSERT ... SELECT ... ON
--    DUPLICATE KEY UPDATE). Every zone offset in use is a multiple of 15 minutes, so any
--    window whose edges are on a quarter hour (every zone day, DST days included) is at most
--    3 quarter hours + whole hours + whole UTC days + whole hours + 3 quarter hours (a greedy
--    cover with the largest aligned span that fits), so statistics cost days x spans x
--    (channel, agent) rows, never a scan of surveys. Only these three spans: each one more
--    is 4 more rows to update per survey (a hot row per shop on every node of a cluster) for
--    a few lookups fewer per read (docs/performance.md, "CSAT span counts"). agent 0 is
--    "unassigned" (user ids start at 1; a primary key cannot hold NULL).
--    Each span also has its rollups: `rollup` bit 1 = summed over channels (channel ''), bit 2
--    = summed over agents (agent 0). A request reads only the rollup it needs (no channel
--    filter or grouping: channels summed; same for agents), so an unfiltered day costs one row
--    per span, not one per (channel, agent) pair; a survey adds to 3 spans x 4 rollups = 12
--    rows.
-- survey_daily_counts stays: v1's answers (no E4 parameter) still come from it unchanged.
ALTER TABLE surveys
    ADD COLUMN channel VARCHAR(255) NOT NULL DEFAULT '' AFTER node_ids,
    ADD COLUMN assigned_to INT UNSIGNED NULL AFTER channel,
    ADD KEY ix_surveys_customer (customer_id, created_at, id);

UPDATE surveys s JOIN conversations c ON c.id = s.conversation_id
    SET s.channel = c.channel, s.assigned_to = c.assigned_to;

CREATE TABLE IF NOT EXISTS survey_span_counts (
    shop_id     INT UNSIGNED      NOT NULL,
    span        SMALLINT UNSIGNED NOT NULL,  -- minutes
    start       BIGINT UNSIGNED   NOT NULL,  -- minutes since 1000-01-01 UTC, a multiple of span
    rollup      TINYINT UNSIGNED  NOT NULL,  -- 1: channels summed, 2: agents summed, 3: both
    channel     VARCHAR(255)      NOT NULL,
    agent       INT UNSIGNED      NOT NULL,  -- 0: unassigned
    c1          INT UNSIGNED      NOT NULL,
    c2          INT UNSIGNED      NOT NULL,
    c3          INT UNSIGNED      NOT NULL,
    c4          INT UNSIGNED      NOT NULL,
    c5          INT UNSIGNED      NOT NULL,
    PRIMARY KEY (shop_id, span, start, rollup, channel, agent),
    CONSTRAINT fk_survey_span_counts_shop FOREIGN KEY (shop_id) REFERENCES shops (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The backfill: the same arithmetic as the per-survey statement (sql_text::survey_span_bump),
-- one span at a time (a GROUP BY over surveys x 12 at once needs a temporary table that large).
INSERT INTO survey_span_counts (shop_id, span, start, rollup, channel, agent, c1, c2, c3, c4, c5)
SELECT s.shop_id, 15, TIMESTAMPDIFF(MINUTE, '1000-01-01 00:00:00', s.created_at) DIV 15 * 15,
       r.rollup, IF(r.rollup & 1, '', s.channel), IF(r.rollup & 2, 0, COALESCE(s.assigned_to, 0)),
       SUM(s.mark = 1), SUM(s.mark = 2), SUM(s.mark = 3), SUM(s.mark = 4), SUM(s.mark = 5)
FROM surveys s
CROSS JOIN (SELECT 0 AS rollup UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3) r
GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO survey_span_counts (shop_id, span, start, rollup, channel, agent, c1, c2, c3, c4, c5)
SELECT s.shop_id, 60, TIMESTAMPDIFF(MINUTE, '1000-01-01 00:00:00', s.created_at) DIV 60 * 60,
       r.rollup, IF(r.rollup & 1, '', s.channel), IF(r.rollup & 2, 0, COALESCE(s.assigned_to, 0)),
       SUM(s.mark = 1), SUM(s.mark = 2), SUM(s.mark = 3), SUM(s.mark = 4), SUM(s.mark = 5)
FROM surveys s
CROSS JOIN (SELECT 0 AS rollup UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3) r
GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO survey_span_counts (shop_id, span, start, rollup, channel, agent, c1, c2, c3, c4, c5)
SELECT s.shop_id, 1440, TIMESTAMPDIFF(MINUTE, '1000-01-01 00:00:00', s.created_at) DIV 1440 * 1440,
       r.rollup, IF(r.rollup & 1, '', s.channel), IF(r.rollup & 2, 0, COALESCE(s.assigned_to, 0)),
       SUM(s.mark = 1), SUM(s.mark = 2), SUM(s.mark = 3), SUM(s.mark = 4), SUM(s.mark = 5)
FROM surveys s
CROSS JOIN (SELECT 0 AS rollup UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3) r
GROUP BY 1, 2, 3, 4, 5, 6;

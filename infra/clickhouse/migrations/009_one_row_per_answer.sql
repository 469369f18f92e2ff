-- One row per answer (docs/data.md "One row per answer"). An API node makes a score's record
-- durable before its 200 leaves; a node that dies in between leaves a row for an answer that never
-- left, and the caller's retry with the same Idempotency-Key on another node may be scored again
-- (a new score_id). The digest of the organisation and the key ties those rows together, so the
-- data team's rule can count one of them: the latest, which is the one a retry got. Rows written
-- before this migration, and requests sent without a key, read as an empty digest: each is its own
-- request. On a cluster the column is added to every replica of scores_local (migrate.ts checks
-- system.columns per host) and the Distributed table is made again over it.
ALTER TABLE {db}.scores
    ADD COLUMN request_digest String COMMENT 'hex SHA-256 of the organisation and the request''s Idempotency-Key (never the key); empty when sent without one';

-- The rule over the whole table: every row of scores FINAL but those a later score of the same
-- organisation and request digest superseded (score ids begin with their time, so the greatest
-- is the latest). GLOBAL: on a cluster the rows of one request live on different shards (they are
-- sharded by score_id), so the superseded ids are found over all of them, then sent to each shard.
-- Convenient for small reads and exploration; a filter put around the view applies after the
-- superseded ids of the whole table are found, so docs/data.md's queries carry the rule inside,
-- next to their own filter. The view keeps the columns scores had when it was made (18.16 fixes
-- them at CREATE): a migration that adds a column to scores and wants it here recreates the view.
CREATE VIEW IF NOT EXISTS {db}.scores_answered AS
SELECT *
FROM {db}.scores FINAL
WHERE score_id GLOBAL NOT IN
    (SELECT arrayJoin(arrayPopBack(arraySort(groupUniqArray(score_id))))
     FROM {db}.scores
     WHERE request_digest != ''
     GROUP BY org_id, request_digest);

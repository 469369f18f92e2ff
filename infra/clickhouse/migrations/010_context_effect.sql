-- The request context's effect on the band before gates (engine.ts contextEffect), for every tier.
-- A response says it only in `context_applied`, which `verify` does not get, and there as `none`
-- where a gate or the band's end stopped the shift; a backtest replaying such a score under
-- another version needs the effect itself (docs/data.md "Backtests"). Rows written before this
-- migration, and scores made without a context, read as empty; the backtest then infers the
-- effect from `context_applied` and the stored band, as it did before.
ALTER TABLE {db}.scores
    ADD COLUMN context_effect String COMMENT 'the context''s effect before gates: none, band_elevated or band_reduced; empty without a context and in rows older than the column';

-- scores_answered (009) keeps the columns scores had when it was made: made again over the same
-- SELECT so that it has the new column too. A run that stops between the two statements leaves no
-- view until the next run, which makes it (migrate.ts applies what a host lacks).
DROP TABLE IF EXISTS {db}.scores_answered;

CREATE VIEW IF NOT EXISTS {db}.scores_answered AS
SELECT *
FROM {db}.scores FINAL
WHERE score_id GLOBAL NOT IN
    (SELECT arrayJoin(arrayPopBack(arraySort(groupUniqArray(score_id))))
     FROM {db}.scores
     WHERE request_digest != ''
     GROUP BY org_id, request_digest);

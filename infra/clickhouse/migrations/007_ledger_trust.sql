-- The reputation ledger's trust rule reads which subjects an organisation scored: a report counts
-- for other organisations only if its reporter scored the subject in the 90 days before it. Written
-- by services/audit-sink beside every batch of `scores`. Merges keep one row per organisation,
-- subject and UTC day: the day's earliest score (the version column `keep` falls as scored_at_ms
-- rises), so a report is never trusted on a score made after it. Readers take min(scored_at_ms)
-- per day, which is exact before merges too. The sort key answers "did org O score S between d1 and
-- d2" from the primary index. Kept as long as the scores it comes from (13 months).
CREATE TABLE IF NOT EXISTS {db}.scored_subjects
(
    org_id    String          COMMENT 'organisation that requested the score',
    subject   String          COMMENT 'canonical subject: phone:+<E.164 digits> or ip:<address, v4-mapped as v4>; personal data',
    scored_on Date            COMMENT 'UTC day of the score',
    scored_at_ms UInt64       COMMENT 'epoch milliseconds of the score (after merges: the earliest of its day)',
    keep      UInt64          COMMENT 'for the engine only: 2^53 - 1 - scored_at_ms, so a merge keeps the earliest'
)
ENGINE = ReplacingMergeTree(keep)
PARTITION BY toYYYYMM(scored_on)
ORDER BY (org_id, subject, scored_on);

-- requires: ttl
ALTER TABLE {db}.scored_subjects MODIFY TTL scored_on + INTERVAL 13 MONTH;

-- An operator's withdrawal of an outcome from the reputation ledger (`admin ledger withdraw`),
-- kept beside the outcome it withdraws, as long as outcomes are.
CREATE TABLE IF NOT EXISTS {db}.outcome_withdrawals
(
    outcome_id   FixedString(35)  COMMENT 'the withdrawn outcome (frs.outcomes.outcome_id)',
    org_id       String           COMMENT 'organisation that reported the outcome',
    withdrawn_at DateTime('UTC')  COMMENT 'when the operator withdrew it',
    reason       String           COMMENT 'why, as the operator gave it',
    operator     String           COMMENT 'who withdrew it (the operator''s name as given to the CLI)'
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(withdrawn_at)
ORDER BY (org_id, outcome_id);

-- requires: ttl
ALTER TABLE {db}.outcome_withdrawals MODIFY TTL withdrawn_at + INTERVAL 13 MONTH;

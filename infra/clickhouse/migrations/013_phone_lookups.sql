-- What the live phone lookup did for each score (docs/data.md "Phone lookups"): the provider and
-- the outcome the API node put in the score's audit record (shared/capabilities/phone-live-lookup/
-- result.ts LOOKUP_OUTCOMES). The record travels with the score, so counting lookups costs the
-- request path nothing. Scores without a lookup (no provider, no number, an organisation that did
-- not opt in), and rows written before this migration, read as empty.
ALTER TABLE {db}.scores
    ADD COLUMN phone_lookup_provider String COMMENT 'phone lookup provider (twilio, telesign); empty when no lookup was tried';

ALTER TABLE {db}.scores
    ADD COLUMN phone_lookup_outcome String COMMENT 'what the phone lookup did: answered, no_data, failed, timeout (each billed), cache_hit, joined, cap, breaker or redis (none asked); empty when none was tried';

-- Lookups per organisation, provider and UTC day over the last 62 days (this calendar month and
-- the whole of the last, whatever the day). `lookups` is what the provider bills and the monthly
-- cap counts: the outcomes that asked it. Every row of `scores FINAL` counts, including a score
-- whose answer never left (docs/data.md "One row per answer"): its lookup was made and paid for.
-- The window is filtered before the aggregation (as 011's view does); a filter on org_id put
-- around the view applies after it, over the window's rows with a lookup only.
CREATE VIEW IF NOT EXISTS {db}.phone_lookups_daily AS
SELECT org_id,
       provider,
       day,
       countIf(outcome IN ('answered', 'no_data', 'failed', 'timeout')) AS lookups,
       countIf(outcome = 'answered') AS answered,
       countIf(outcome = 'no_data') AS no_data,
       countIf(outcome = 'failed') AS failed,
       countIf(outcome = 'timeout') AS timeouts,
       countIf(outcome = 'cache_hit') AS cache_hits,
       countIf(outcome = 'joined') AS joined,
       countIf(outcome = 'cap') AS refused_cap,
       countIf(outcome = 'breaker') AS refused_breaker,
       countIf(outcome = 'redis') AS refused_redis
FROM
(
    SELECT org_id,
           phone_lookup_provider AS provider,
           phone_lookup_outcome AS outcome,
           toDate(scored_at) AS day
    FROM {db}.scores FINAL
    WHERE scored_at >= now() - INTERVAL 62 DAY AND phone_lookup_outcome != ''
)
GROUP BY org_id, provider, day;

-- scores_answered (009, 010) keeps the columns scores had when it was made: made again over the
-- same SELECT so that it has the new columns too (as 010 does).
DROP TABLE IF EXISTS {db}.scores_answered;

CREATE VIEW IF NOT EXISTS {db}.scores_answered AS
SELECT *
FROM {db}.scores FINAL
WHERE score_id GLOBAL NOT IN
    (SELECT arrayJoin(arrayPopBack(arraySort(groupUniqArray(score_id))))
     FROM {db}.scores
     WHERE request_digest != ''
     GROUP BY org_id, request_digest);

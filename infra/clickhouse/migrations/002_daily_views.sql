-- Rollups for data teams, one row per organisation and UTC day.
-- They are plain views over `scores FINAL`, not materialized aggregates: a re-delivered record
-- is a second row until a merge collapses it, and FINAL collapses it at read time, so every
-- count, share and latency quantile here is exact. An AggregatingMergeTree could dedupe counts
-- with uniqExact states but not quantiles, so it would double count re-delivered latencies.
-- Filter on org_id and day; the views compute over the whole table otherwise.
-- Migration 006 drops these views for queries that filter before they aggregate (docs/data.md).
--
-- Edited after release, once: the joined subqueries of scores_daily_bands had no alias, which
-- current ClickHouse refuses (joined_subquery_requires_alias, code 206), so on a current server
-- this migration failed after creating scores_daily and was never recorded as applied; the next
-- run of migrate.ts applies the fixed text (every statement is IF NOT EXISTS). On 18.16, where it
-- was applied, the aliases change nothing, and migrate.ts never re-runs a recorded migration.

-- Volume, band mix, degraded-source rate and latency quantiles per organisation and day.
CREATE VIEW IF NOT EXISTS {db}.scores_daily AS
SELECT
    org_id,                                                         -- organisation
    toDate(scored_at) AS day,                                       -- UTC day the scores were made
    count() AS scores,                                              -- scores returned with 200
    countIf(band = 'minimal') AS band_minimal,                      -- scores per band ...
    countIf(band = 'low') AS band_low,
    countIf(band = 'medium') AS band_medium,
    countIf(band = 'high') AS band_high,
    countIf(band = 'critical') AS band_critical,
    countIf(notEmpty(degraded_sources)) AS degraded_scores,         -- scores with >= 1 degraded source
    round(degraded_scores / scores, 4) AS degraded_rate,            -- share of degraded scores, 0..1
    quantileExact(0.5)(latency_ms) AS latency_p50_ms,               -- server-side scoring latency
    quantileExact(0.9)(latency_ms) AS latency_p90_ms,
    quantileExact(0.99)(latency_ms) AS latency_p99_ms,
    max(latency_ms) AS latency_max_ms
FROM {db}.scores FINAL
GROUP BY org_id, day;

-- Band mix as rows, with each band's share of the organisation's day (18.16 has no window
-- functions, hence the join with the day's total).
CREATE VIEW IF NOT EXISTS {db}.scores_daily_bands AS
SELECT
    org_id,                                                         -- organisation
    day,                                                            -- UTC day
    band,                                                           -- risk band
    scores,                                                         -- scores in this band
    round(scores / total, 4) AS share                               -- share of the day's scores, 0..1
FROM (SELECT org_id, toDate(scored_at) AS day, band, count() AS scores
      FROM {db}.scores FINAL GROUP BY org_id, day, band) AS per_band
ANY INNER JOIN (SELECT org_id, toDate(scored_at) AS day, count() AS total
      FROM {db}.scores FINAL GROUP BY org_id, day) AS per_day USING (org_id, day);

-- Primary risk factors per organisation and day (scores without one are left out).
CREATE VIEW IF NOT EXISTS {db}.scores_daily_risk_factors AS
SELECT
    org_id,                                                         -- organisation
    toDate(scored_at) AS day,                                       -- UTC day
    primary_risk_factor,                                            -- reason code
    count() AS scores                                               -- scores with this primary factor
FROM {db}.scores FINAL
WHERE primary_risk_factor != ''
GROUP BY org_id, day, primary_risk_factor;

-- Degraded sources per organisation and day: how often each capability answered on reduced evidence.
CREATE VIEW IF NOT EXISTS {db}.scores_daily_degraded_sources AS
SELECT
    org_id,                                                         -- organisation
    toDate(scored_at) AS day,                                       -- UTC day
    arrayJoin(degraded_sources) AS source,                          -- capability (component key)
    count() AS scores                                               -- scores it degraded
FROM {db}.scores FINAL
GROUP BY org_id, day, source;

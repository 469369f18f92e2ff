-- The daily views of 002 aggregated the whole of `scores FINAL` before a caller's filter on
-- organisation and day applied (neither 18.16 nor a current server pushes the filter through the
-- view into FINAL), so every read cost a scan of up to 13 months of every organisation: seconds
-- at 20 million rows, and growing with the table. docs/data.md replaces each with a query over
-- `scores FINAL` that filters on the sort key (org_id, scored_at) first: the same columns, exact
-- with re-delivered records, and reading only the organisation's days asked for.
-- DROP TABLE drops a view on 18.16 and on current servers alike.

DROP TABLE IF EXISTS {db}.scores_daily;

DROP TABLE IF EXISTS {db}.scores_daily_bands;

DROP TABLE IF EXISTS {db}.scores_daily_risk_factors;

DROP TABLE IF EXISTS {db}.scores_daily_degraded_sources;

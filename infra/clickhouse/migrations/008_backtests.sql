-- Backtests (`npm run backtest`, docs/data.md "Backtests"): one row per figure of a run, keyed by
-- run id, so data teams can query and compare runs and `admin version promote` reads the latest
-- run of a candidate against the default. A run's rows are inserted in one batch; a re-inserted
-- batch collapses on the sort key.
CREATE TABLE IF NOT EXISTS {db}.backtests
(
    run_id       String           COMMENT 'bt_ + 32 hex from a UUIDv7: ids sort by run time',
    ran_at       DateTime('UTC')  COMMENT 'when the backtest finished',
    candidate    String           COMMENT 'score version replayed as the candidate',
    baseline     String           COMMENT 'score version replayed as the baseline (the default when the run started, unless named)',
    window_from  Date             COMMENT 'first UTC day of retained scores replayed',
    window_to    Date             COMMENT 'UTC day after the last one replayed',
    org_id       String           COMMENT 'organisation whose scores were replayed; empty for all',
    scores       UInt64           COMMENT 'distinct scores replayed (re-delivered rows count once)',
    figure       String           COMMENT 'what the value is: band_share, band_scores, fraud, not_fraud, movement, psi, cap_share, caps_pass, ...',
    version      String           COMMENT 'the version the figure is about (candidate or baseline); empty for figures of the run',
    band         String           COMMENT 'band the figure is about (for movement: the baseline band); empty when none',
    to_band      String           COMMENT 'movement only: the candidate band',
    value        Float64          COMMENT 'the figure; NaN where it is undefined (a rate over no scores)'
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(ran_at)
ORDER BY (candidate, baseline, run_id, figure, version, band, to_band);

-- Every promotion `admin version promote` made, with the backtest it read, and, when it was
-- forced past a missing, stale or failed backtest, why.
CREATE TABLE IF NOT EXISTS {db}.version_promotions
(
    promoted_at      DateTime('UTC')  COMMENT 'when the default changed',
    version          String           COMMENT 'the new default',
    previous_default String           COMMENT 'the default it replaced',
    backtest_run_id  String           COMMENT 'the latest backtest of version against previous_default; empty when none',
    forced           UInt8            COMMENT '1 when promoted with --force past a missing, stale or failed backtest',
    reason           String           COMMENT 'the operator''s --reason (required with --force)',
    operator         String           COMMENT 'who promoted (the operator''s name as given to the CLI)'
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(promoted_at)
ORDER BY (version, promoted_at);

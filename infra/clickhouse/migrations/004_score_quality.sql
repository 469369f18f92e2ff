-- Score quality (score versions from 2026.12.0): what calibration from the scored population and
-- the comparison of a silent challenger with the default read. Rows written before this migration
-- read as raw_risk 0, no fired components and no challenger.
ALTER TABLE {db}.scores
    ADD COLUMN raw_risk Float64 COMMENT 'raw risk under score_version: the sum the percentile score ranks';

ALTER TABLE {db}.scores
    ADD COLUMN fired_components Array(String) COMMENT 'reason codes of the components that found risk (verdict elevated or adverse)';

ALTER TABLE {db}.scores
    ADD COLUMN challenger_version String COMMENT 'silent challenger version scored beside the default; empty when none';

ALTER TABLE {db}.scores
    ADD COLUMN challenger_score Nullable(UInt8) COMMENT 'challenger score 0..100; NULL when no challenger';

ALTER TABLE {db}.scores
    ADD COLUMN challenger_band String COMMENT 'challenger band (minimal..critical); empty when none';

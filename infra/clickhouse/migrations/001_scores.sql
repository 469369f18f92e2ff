-- One row per score returned with 200 by POST /v1/score, written by services/audit-sink.
-- ReplacingMergeTree keyed on the sort key (which ends in score_id) makes a re-delivered record
-- harmless: duplicates collapse on merge, and readers that need exact counts use FINAL or
-- uniqExact(score_id). Partitions are calendar months so retention drops whole partitions.
CREATE TABLE IF NOT EXISTS {db}.scores
(
    score_id         FixedString(35)  COMMENT 'sc_ + 32 hex from a UUIDv7; its time prefix gives scored_at',
    org_id           String           COMMENT 'organisation that requested the score',
    scored_at        DateTime('UTC')  COMMENT 'second the score was produced (from the UUIDv7 time)',
    scored_at_ms     UInt64           COMMENT 'epoch milliseconds the score was produced',
    tier             Enum8('verify' = 1, 'assess' = 2, 'bureau' = 3) COMMENT 'tier applied from the API key',
    score_version    String           COMMENT 'scoring model version used',
    score            UInt8            COMMENT 'percentile rank 0..100 against the version reference population',
    band             Enum8('minimal' = 1, 'low' = 2, 'medium' = 3, 'high' = 4, 'critical' = 5) COMMENT 'risk band',
    recommended_action String         COMMENT 'allow, watch, investigate, step_up_auth, challenge or block',
    coverage         String           COMMENT 'strong, partial or thin; evidence density only',
    primary_risk_factor String        COMMENT 'reason code of the primary risk factor, empty when none',
    degraded_sources Array(String)    COMMENT 'capabilities that answered on reduced evidence',
    has_phone        UInt8            COMMENT '1 when the subject carried a phone number',
    has_ip           UInt8            COMMENT '1 when the subject carried an IP address',
    latency_ms       UInt32           COMMENT 'server-side latency of the scoring call',
    node_id          String           COMMENT 'API node that produced the score',
    client_reference String           COMMENT 'caller reference echoed in the response',
    record_version   UInt16           COMMENT 'audit envelope schema version',
    request_json     String           COMMENT 'request as sent (subject, context, options, client_reference; never the key)',
    response_json    String           COMMENT 'response body exactly as returned to the caller',
    evidence_json    String           COMMENT 'full tier-permitted evidence, also when explain=false was asked',
    inserted_at      DateTime('UTC') DEFAULT now() COMMENT 'when the sink inserted this row'
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(scored_at)
ORDER BY (org_id, scored_at, score_id);

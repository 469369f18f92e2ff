-- One row per outcome accepted with 202 by POST /v1/outcomes, written by services/audit-sink from
-- Kafka `outcomes.v1`. Like `scores`: ReplacingMergeTree on a sort key that ends in outcome_id,
-- so a re-delivered record collapses on merge (read with FINAL or uniqExact(outcome_id)), and
-- monthly partitions so retention (13 months, the refresher's job) drops whole partitions.
CREATE TABLE IF NOT EXISTS {db}.outcomes
(
    outcome_id       FixedString(35)  COMMENT 'oc_ + 32 hex from a UUIDv7; its time prefix gives received_at',
    org_id           String           COMMENT 'organisation that reported the outcome',
    received_at      DateTime('UTC')  COMMENT 'second the outcome was accepted',
    received_at_ms   UInt64           COMMENT 'epoch milliseconds the outcome was accepted',
    occurred_at      DateTime('UTC')  COMMENT 'when it happened, as reported (received_at when not given)',
    outcome          Enum8('confirmed_fraud' = 1, 'chargeback' = 2, 'suspected_fraud' = 3, 'spam_or_abuse' = 4, 'not_fraud' = 5) COMMENT 'what happened',
    score_id         String           COMMENT 'the score the outcome is about, empty when reported by subject only',
    phone_number     String           COMMENT 'subject phone number (the score''s subject when score_id is set); personal data',
    ip_address       String           COMMENT 'subject IP address (the score''s subject when score_id is set); personal data',
    note             String           COMMENT 'caller free text',
    client_reference String           COMMENT 'caller reference for the case',
    node_id          String           COMMENT 'API node that accepted the outcome',
    record_version   UInt16           COMMENT 'outcome envelope schema version',
    request_json     String           COMMENT 'request body as sent (never the key)',
    inserted_at      DateTime('UTC') DEFAULT now() COMMENT 'when the sink inserted this row'
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (org_id, received_at, outcome_id);

-- requires: ttl
ALTER TABLE {db}.outcomes MODIFY TTL received_at + INTERVAL 13 MONTH;

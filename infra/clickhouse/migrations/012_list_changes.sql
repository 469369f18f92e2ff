-- Every change of an organisation's allow/deny lists (docs/data.md "List changes"): who made it,
-- when, and what. Copied by services/audit-sink from each organisation's outbox stream in Redis,
-- which the change itself wrote in the same atomic step, so no change is missing here; a copy that
-- is made again (the sink stopped between insert and trim) collapses on change_id. An `add` or
-- `remove` row names one entry; a `replace` row (a whole list at once, e.g. a CSV upload) counts
-- the entries before and after. Kept as long as the scores (13 months).
CREATE TABLE IF NOT EXISTS {db}.list_changes
(
    change_id      String           COMMENT 'lc_ + 32 hex: one per change (one per entry of an add or remove)',
    org_id         String           COMMENT 'organisation whose list changed',
    changed_at     DateTime('UTC')  COMMENT 'when the change was made',
    action         String           COMMENT 'add, remove or replace',
    actor          String           COMMENT 'who: key:<key id> (the API), user:<email> (the portal) or operator:<name> (the admin CLI)',
    entries        UInt32           COMMENT 'add and remove: 1; replace: entries after it',
    entries_before UInt32           COMMENT 'replace: entries before it; 0 otherwise',
    kind           String           COMMENT 'add and remove: phone, phone_prefix, ip, cidr or asn; empty for replace',
    value          String           COMMENT 'add and remove: the entry (canonical form); personal data for phone and ip; empty for replace',
    effect         String           COMMENT 'add and remove: allow or deny; empty for replace',
    reason         String           COMMENT 'add and remove: the reason given with the entry; empty for replace'
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(changed_at)
ORDER BY (org_id, changed_at, change_id);

-- requires: ttl
ALTER TABLE {db}.list_changes MODIFY TTL changed_at + INTERVAL 13 MONTH;

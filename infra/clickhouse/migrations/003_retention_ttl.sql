-- Retention: a score is kept 13 months from the moment it was made (explain's retained_until).
-- Servers with TTL (19.6+) delete rows at that age during merges. ClickHouse 18.16 has no TTL and
-- skips this statement; there the refresher's retention job drops whole monthly partitions once
-- all of their rows are past 13 months, which it also does on newer servers (whichever is first).

-- requires: ttl
ALTER TABLE {db}.scores MODIFY TTL scored_at + INTERVAL 13 MONTH;

-- Network velocity for data teams (docs/data.md "Network velocity"): per velocity subject and UTC
-- hour, the distinct organisations that scored it (uniqState, merged over any run of hours with
-- uniqMerge) and its scores, from the scored history. Subjects are spelled as the service's
-- counter spells them before it digests them (shared/capabilities/network-velocity/subjects.ts):
-- `phone:<E.164>`, `ip:<address>`, `net:<IPv4 /24>` or `net:<IPv6 /64>`; personal data, like
-- request_json. The service counts them under a keyed digest in Redis and never in clear; this
-- view is the same count from ClickHouse, which the integration test holds to within 2 %.
-- It reads the last 31 days of `scores FINAL`, filtered on scored_at before it aggregates (the
-- month partitions and the sort key narrow the read); a filter on subject or hour put around it
-- applies after that aggregation, so for one subject the query in docs/data.md filters inside.
-- Organisations an operator excludes from velocity (VELOCITY_EXCLUDED_ORGS) are not known here:
-- the query in docs/data.md leaves them out by id.
CREATE VIEW IF NOT EXISTS {db}.subject_organisations_hourly AS
SELECT subject,
       toStartOfHour(scored_at) AS hour,
       uniqState(org_id) AS organisations,
       count() AS scores
FROM
(
    SELECT org_id, scored_at,
           visitParamExtractString(request_json, 'phone_number') AS phone,
           visitParamExtractString(request_json, 'ip_address') AS ip
    FROM {db}.scores FINAL
    WHERE scored_at >= now() - INTERVAL 31 DAY
)
ARRAY JOIN arrayFilter(s -> s != '', [
    if(phone = '', '', concat('phone:', phone)),
    if(ip = '', '', concat('ip:', ip)),
    -- Guarded: current ClickHouse evaluates every branch, and refuses an IPv4 string as IPv6.
    multiIf(position(ip, ':') > 0, concat('net:', cutIPv6(toFixedString(IPv6StringToNum(if(position(ip, ':') > 0, ip, '::')), 16), 8, 0), '/64'),
            position(ip, '.') > 0, concat('net:', IPv4NumToString(bitAnd(IPv4StringToNum(if(position(ip, '.') > 0 AND position(ip, ':') = 0, ip, '0.0.0.0')), 4294967040)), '/24'),
            '')]) AS subject
GROUP BY subject, hour;

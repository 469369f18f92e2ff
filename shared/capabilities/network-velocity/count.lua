-- One score of one organisation about one velocity subject, counted atomically (counter.ts).
-- KEYS[1] the subject's hash: f -> first seen (epoch s); o:<org tag> -> the organisation's latest
--   counted score (epoch ms); m:<10-minute index>, h:<hour index>, d:<day index> -> scores.
-- ARGV[1] org tag   ARGV[2] the score's epoch ms   ARGV[3] now, epoch ms
-- ARGV[4] most organisations kept per subject   ARGV[5] the hash's lifetime after this score, ms
-- A score at the very millisecond of the organisation's latest one on this subject is that score
-- re-delivered, and is not counted again. Any other score counts, in whatever order the partitions
-- deliver them: an organisation's set membership is exact either way, and only a re-delivered
-- batch holding several scores of one organisation about one subject counts its older ones twice.
-- Returns the distinct organisations of the last 30 days after this score.
local key = KEYS[1]
local org = 'o:' .. ARGV[1]
local ms = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local maxOrgs = tonumber(ARGV[4])
local monthAgo = now - 30 * 86400000
local tenMin, hour, day = math.floor(now / 600000), math.floor(now / 3600000), math.floor(now / 86400000)
local fields = redis.call('HGETALL', key)
local orgs, last = 0, nil
-- Drops what no window reads any more, so a busy subject stays small.
for i = 1, #fields, 2 do
  local f, v = fields[i], fields[i + 1]
  local kind, n = string.sub(f, 1, 2), tonumber(string.sub(f, 3))
  if kind == 'o:' then
    if tonumber(v) < monthAgo then
      redis.call('HDEL', key, f)
    else
      orgs = orgs + 1
      if f == org then last = tonumber(v) end
    end
  elseif (kind == 'm:' and n < tenMin - 6) or (kind == 'h:' and n < hour - 24) or (kind == 'd:' and n < day - 30) then
    redis.call('HDEL', key, f)
  end
end
if ms < monthAgo then return orgs end
if last ~= nil and ms == last then return orgs end
if last == nil and orgs < maxOrgs then
  orgs = orgs + 1
  redis.call('HSET', key, org, ms)
elseif last ~= nil and ms > last then
  redis.call('HSET', key, org, ms)
end
redis.call('HINCRBY', key, 'm:' .. math.floor(ms / 600000), 1)
redis.call('HINCRBY', key, 'h:' .. math.floor(ms / 3600000), 1)
redis.call('HINCRBY', key, 'd:' .. math.floor(ms / 86400000), 1)
local s = math.floor(ms / 1000)
local first = tonumber(redis.call('HGET', key, 'f') or '0')
if first == 0 or s < first then redis.call('HSET', key, 'f', s) end
redis.call('PEXPIRE', key, ARGV[5])
return orgs

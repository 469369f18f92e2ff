-- One organisation's share of a sink batch on the Activity page, applied at most once however
-- often it is sent. A share whose reply did not come in time (a slow or paused Redis: the client's
-- command timeout only stops waiting, the script still runs when Redis gets to it) is sent again
-- only when its marker is absent, and a send that races a late first one finds the marker here.
--
-- KEYS[1] recent list    frs:portal:recent:{org}
-- KEYS[2] pushed count   frs:portal:recent:{org}:seq
-- KEYS[3] share marker   frs:portal:recent:{org}:batch:<digest of the share's score ids>
-- KEYS[4..] day counts   frs:portal:usage:{org}:<day>
-- ARGV[1] RECENT_MAX   ARGV[2] RECENT_TTL_S   ARGV[3] DAILY_TTL_S   ARGV[4] marker TTL (ms)
-- ARGV[5] n, then n summaries in offset order; then, for each day key in KEYS order, the number
-- of its counters m, then m pairs of field and increment.
--
-- Returns 1 when applied, 0 when the marker says it was already. The marker is set last: a script
-- stopped by an error keeps the writes made before it, and a marker set first would call a share
-- done that has none of its rows.
if redis.call('EXISTS', KEYS[3]) == 1 then
  return 0
end
local n = tonumber(ARGV[5])
-- In slices: unpack() of thousands of values overflows Lua's stack. Oldest first, so the newest
-- ends at the head, as one LPUSH of the whole share in offset order would leave it.
local slice = 1000
for first = 6, 5 + n, slice do
  redis.call('LPUSH', KEYS[1], unpack(ARGV, first, math.min(first + slice - 1, 5 + n)))
end
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[1]) - 1)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
redis.call('INCRBY', KEYS[2], n)
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[2]))
local at = 6 + n
for k = 4, #KEYS do
  local m = tonumber(ARGV[at])
  for i = 1, m do
    redis.call('HINCRBY', KEYS[k], ARGV[at + 2 * i - 1], tonumber(ARGV[at + 2 * i]))
  end
  redis.call('EXPIRE', KEYS[k], tonumber(ARGV[3]))
  at = at + 1 + 2 * m
end
redis.call('SET', KEYS[3], '1', 'PX', tonumber(ARGV[4]))
return 1

-- Credits a node billed while Redis was unreachable, added once however often they are sent.
-- A batch whose reply was lost (a timeout, a connection cut as the script ran) is sent again with
-- the same id: its marker says it is already counted, and the count is only read.
--
-- KEYS[1] credits          frs:credits:{org}:<YYYY-MM>
-- KEYS[2] batch marker     frs:credits:{org}:<YYYY-MM>:reconciled:<batch id>
-- ARGV[1] credits of the batch   ARGV[2] TTL of the credits key (s)   ARGV[3] TTL of the marker (s)
--
-- Returns the credits used this month after the batch.
-- The credits are written before the marker: a script stopped by an error keeps the writes made
-- before it, so a marker set first and an INCRBY refused after it (a key of the wrong type, a
-- server refusing writes) would count the batch as done with none of its credits added.
if redis.call('GET', KEYS[2]) then
  return tonumber(redis.call('GET', KEYS[1]) or '0')
end
local used = redis.call('INCRBY', KEYS[1], tonumber(ARGV[1]))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]), 'NX')
redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[3]))
return used

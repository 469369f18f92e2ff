-- Credits a node billed while Redis was unreachable, added once however often they are sent.
-- A batch whose reply was lost (a timeout, a connection cut as the script ran) is sent again with
-- the same id: its marker says it is already counted, and the count is only read.
--
-- KEYS[1] credits          frs:credits:{org}:<YYYY-MM>
-- KEYS[2] batch marker     frs:credits:{org}:<YYYY-MM>:reconciled:<batch id>
-- ARGV[1] credits of the batch   ARGV[2] TTL of the credits key (s)   ARGV[3] TTL of the marker (s)
--
-- Returns the credits used this month after the batch.
if redis.call('INCR', KEYS[2]) == 1 then
  redis.call('EXPIRE', KEYS[2], tonumber(ARGV[3]))
  local used = redis.call('INCRBY', KEYS[1], tonumber(ARGV[1]))
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]), 'NX')
  return used
end
return tonumber(redis.call('GET', KEYS[1]) or '0')

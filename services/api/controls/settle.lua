-- An idempotent request admitted by the node's local controls after its admission script got no
-- reply (a timeout, a connection cut, a failover): did the script run? It did if the idempotency
-- entry carries this request's token, and then Redis already billed it; otherwise the credit is
-- added now. Counted once however often it is sent (the marker), like reconcile.lua.
--
-- KEYS[1] credits             frs:credits:{org}:<YYYY-MM>
-- KEYS[2] idempotency entry   frs:idem:{org}:<sha256 of Idempotency-Key>
-- KEYS[3] marker              frs:credits:{org}:<YYYY-MM>:settled:<token>
-- ARGV[1] the request's token   ARGV[2] TTL of the credits key (s)   ARGV[3] TTL of the marker (s)
--
-- Returns the credits used this month.
if redis.call('INCR', KEYS[3]) ~= 1 then return tonumber(redis.call('GET', KEYS[1]) or '0') end
redis.call('EXPIRE', KEYS[3], tonumber(ARGV[3]))
if redis.call('HGET', KEYS[2], 'token') == ARGV[1] then
  return tonumber(redis.call('GET', KEYS[1]) or '0')
end
local used = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]), 'NX')
return used

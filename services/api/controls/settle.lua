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
-- The marker is set after the credit: a script stopped by an error keeps the writes made before it.
-- The entry names the request that billed it in `bt` (kept when a retry took a dead request's
-- claim over), and its owner in `token` (entries written before `bt`).
if redis.call('GET', KEYS[3]) then return tonumber(redis.call('GET', KEYS[1]) or '0') end
local e = redis.call('HMGET', KEYS[2], 'bt', 'token')
local used
if e[1] == ARGV[1] or e[2] == ARGV[1] then
  used = tonumber(redis.call('GET', KEYS[1]) or '0')
else
  used = redis.call('INCR', KEYS[1])
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]), 'NX')
end
redis.call('INCR', KEYS[3])
redis.call('EXPIRE', KEYS[3], tonumber(ARGV[3]))
return used

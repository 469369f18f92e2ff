-- An idempotent request admitted by a node's local controls (Redis slow or unreachable, or its
-- admission script got no reply): is it billed already? It is whenever the idempotency entry holds
-- this key with this body (fingerprint): every way such an entry comes to be bills once (admit.lua
-- creating it, or an earlier settlement), and a retry that takes a claim over or replays an answer
-- is not billed. So a local 200 whose own script ran late, a resend answered locally after a node
-- died with the key's answer, or the same request answered on two nodes, all count once. The
-- entry's `token`/`bt` are not enough: store-response.lua drops them once the answer is kept.
-- Otherwise the credit is added now, and an entry naming this request as the one that billed is
-- left where there was none, so a settlement of the same key from another node, or a later retry
-- through Redis, is not billed again. Counted once however often it is sent (the marker), like
-- reconcile.lua.
--
-- KEYS[1] credits             frs:credits:{org}:<YYYY-MM>
-- KEYS[2] idempotency entry   frs:idem:{org}:<sha256 of Idempotency-Key>
-- KEYS[3] marker              frs:credits:{org}:<YYYY-MM>:settled:<token>
-- ARGV[1] the request's token   ARGV[2] TTL of the credits key (s)   ARGV[3] TTL of the marker (s)
-- ARGV[4] the request's body fingerprint   ARGV[5] TTL of an idempotency entry (s)
--
-- Returns the credits used this month.
-- The marker is set after the credit: a script stopped by an error keeps the writes made before it.
-- The token checks cover entries written before fingerprints were compared here. An entry left
-- here has no body and a claim already past (`until` 0): a retry through Redis takes it over, is
-- scored again and is not billed again (admit.lua). A different body under the key (a caller's
-- mistake, refused with 422 through Redis) is billed and leaves the entry as it is.
if redis.call('GET', KEYS[3]) then return tonumber(redis.call('GET', KEYS[1]) or '0') end
local e = redis.call('HMGET', KEYS[2], 'bt', 'token', 'fp')
local used
if e[1] == ARGV[1] or e[2] == ARGV[1] or (ARGV[4] and e[3] == ARGV[4]) then
  used = tonumber(redis.call('GET', KEYS[1]) or '0')
else
  used = redis.call('INCR', KEYS[1])
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]), 'NX')
  if not e[3] and ARGV[4] then
    redis.call('HSET', KEYS[2], 'fp', ARGV[4], 'state', 'pending', 'bt', ARGV[1], 'until', '0')
    redis.call('EXPIRE', KEYS[2], tonumber(ARGV[5]))
  end
end
redis.call('INCR', KEYS[3])
redis.call('EXPIRE', KEYS[3], tonumber(ARGV[3]))
return used

-- Keeps the 200 of an idempotent request for replay, if this request still owns the entry. The
-- owner token and its claim are dropped once done: the entry is then fingerprint, state, score_id
-- and the compacted body (idempotency-entry.ts), and `bt` only when another request billed it (a
-- claim taken over from a dead node's request, which settle.lua may still ask about).
-- KEYS[1] idempotency entry   ARGV[1] owner token   ARGV[2] packed response body   ARGV[3] TTL (s)
-- ARGV[4] score_id
local e = redis.call('HMGET', KEYS[1], 'token', 'bt')
if e[1] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'done', 'body', ARGV[2], 'sid', ARGV[4])
redis.call('HDEL', KEYS[1], 'token', 'until')
if e[2] == ARGV[1] then redis.call('HDEL', KEYS[1], 'bt') end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1

-- Keeps the 200 of an idempotent request for replay, if this request still owns the entry.
-- KEYS[1] idempotency entry   ARGV[1] owner token   ARGV[2] response body   ARGV[3] TTL (s, 24 h)
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'done', 'body', ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1

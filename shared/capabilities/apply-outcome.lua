-- One organisation's outcome about one subject digest, applied atomically (see ledger-reports.ts).
-- KEYS[1] latest hash of the subject   KEYS[2] reporters set of the subject   KEYS[3] counts hash
-- ARGV[1] org_id   ARGV[2] outcome_id   ARGV[3] '1' when the outcome counts as a report   ARGV[4] digest
-- Returns the organisations now reporting the subject, or -1 when the org already has a later
-- (or this same) outcome for it: a re-delivered or out-of-order record changes nothing.
local prev = redis.call('HGET', KEYS[1], ARGV[1])
if prev and string.sub(prev, 1, #ARGV[2]) >= ARGV[2] then return -1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. ARGV[3])
if ARGV[3] == '1' then
  redis.call('SADD', KEYS[2], ARGV[1])
else
  redis.call('SREM', KEYS[2], ARGV[1])
end
local n = redis.call('SCARD', KEYS[2])
if n > 0 then
  redis.call('HSET', KEYS[3], ARGV[4], n)
else
  redis.call('HDEL', KEYS[3], ARGV[4])
end
return n

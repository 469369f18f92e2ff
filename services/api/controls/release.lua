-- A request failed after admission: give the credit back and, if this request owns the
-- idempotency entry, free the key so a retry is scored. Atomic so the two cannot drift apart.
-- KEYS[1] credits   KEYS[2] idempotency entry (only when the header was sent)   ARGV[1] owner token
-- ARGV[2] '0' when the request was not billed (nothing to refund)
if ARGV[2] ~= '0' then redis.call('DECR', KEYS[1]) end
if KEYS[2] and redis.call('HGET', KEYS[2], 'token') == ARGV[1] then
  redis.call('DEL', KEYS[2])
end
return 1

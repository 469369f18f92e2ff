-- One organisation's vote about one subject, applied atomically (see ledger-votes.ts).
-- KEYS[1] the subject's votes hash (field org_id -> "<outcome_id> <state>")
-- ARGV[1] org_id   ARGV[2] outcome_id   ARGV[3] state (t, o, w or x)   ARGV[4] mode
-- ARGV[5] expiry of the hash, epoch ms   ARGV[6] ids below this are past the report lifetime
-- mode 'report': write unless the org already has this or a later outcome for the subject.
-- mode 'lift': the same, but only over an existing vote (a not_fraud never creates state).
-- mode 'withdraw': an operator's withdrawal of this very outcome; also written before the outcome
--   itself arrives, so its late delivery changes nothing.
-- Returns 1 when the hash changed, 0 when nothing was written; a withdrawal that a later outcome
-- of the organisation superseded writes nothing and returns that later vote ("<outcome_id> <state>"),
-- so the operator learns which outcome still decides the organisation's vote.
local prev = redis.call('HGET', KEYS[1], ARGV[1])
local mode = ARGV[4]
if prev then
  local prevId = string.sub(prev, 1, #ARGV[2])
  if prevId > ARGV[2] then
    if mode == 'withdraw' then return prev end
    return 0
  end
  if prevId == ARGV[2] and mode ~= 'withdraw' then return 0 end
elseif mode == 'lift' then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. ARGV[3])
-- Votes past the report lifetime count for nobody: drop them so a busy subject stays small.
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if string.sub(all[i + 1], 1, #ARGV[6]) < ARGV[6] then redis.call('HDEL', KEYS[1], all[i]) end
end
-- The hash lives as long as its newest vote counts.
if redis.call('PTTL', KEYS[1]) == -1 then
  redis.call('PEXPIREAT', KEYS[1], ARGV[5])
else
  redis.call('PEXPIREAT', KEYS[1], ARGV[5], 'GT')
end
return 1

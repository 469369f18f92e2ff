-- Admission of one scoring request: rate limit, credits, idempotency, in the order docs/contract.md
-- fixes, as one atomic step. Why a script and not a pipeline: the check and the reservation must
-- be indivisible across every API node. With GET-then-INCR from two nodes, both could see the last
-- free slot or credit and both take it; inside a script no other command runs in between, and it
-- still costs one round trip.
--
-- KEYS[1] rate window   frs:rl:{org}:<epoch second>
-- KEYS[2] credits       frs:credits:{org}:<YYYY-MM>
-- KEYS[3] idempotency   frs:idem:{org}:<sha256 of Idempotency-Key>   (only when the header is sent)
-- KEYS[4] entries made  frs:idemn:{org}:<YYYY-MM-DD>                  (only when the header is sent)
-- ARGV[1] rate_rps   ARGV[2] monthly allowance   ARGV[3] overdraft grace
-- ARGV[4] TTL of the credits key (s)   ARGV[5] body fingerprint   ARGV[6] TTL while in progress (s)
-- ARGV[7] token of this request (only its owner may store or free the idempotency entry)
-- ARGV[8] most idempotency entries the organisation may create per day
-- ARGV[9] '1' when the request is billed (scoring), '0' when it is not (outcomes: no credit check)
-- ARGV[10] the node's clock (ms)   ARGV[11] TTL of an idempotency entry (s)
-- ARGV[12] how many requests this run admits, one after the other (default 1): a node sends the
--          requests of one event-loop turn that share the organisation's window and carry no
--          Idempotency-Key as one run (admit-batch.ts); with KEYS[3] it is always 1.
--
-- An entry in progress is claimed by its request's token until `until` (ARGV[6] seconds on). A
-- claim past that belongs to a request whose node died or hung after admitting and billing it:
-- the retry takes the claim over and is not billed again, so a caller that resends through a
-- crash pays once. The entry outlives its claim (ARGV[11]) so that the retry still finds it.
-- `bt` names the request that billed, for settle.lua.
--
-- Returns {outcome, requests in this window, credits used this month[, stored body]} for each
-- request, one after the other in one flat list.
-- Outcome `admitted_unretained`: admitted, but the day's entry cap is reached, so no entry.
-- Refused requests (429) do not take a slot; 402 and 409 passed the rate check and do.
local limit = tonumber(ARGV[1])
local cap = tonumber(ARGV[2]) + tonumber(ARGV[3])
local billed = ARGV[9] ~= '0'
local now = tonumber(ARGV[10])
local claimUntil = string.format('%d', now + 1000 * tonumber(ARGV[6]))

local function admitOne()
  local outcome = 'admitted'
  local n = tonumber(redis.call('GET', KEYS[1]) or '0')
  local used = tonumber(redis.call('GET', KEYS[2]) or '0')
  if n >= limit then return {'rate_limited', n, used} end
  n = redis.call('INCR', KEYS[1])
  if n == 1 then redis.call('EXPIRE', KEYS[1], 2) end

  if billed and used >= cap then return {'credits_exhausted', n, used} end

  if KEYS[3] then
    local e = redis.call('HMGET', KEYS[3], 'fp', 'state', 'body', 'until')
    if e[1] then
      if e[1] ~= ARGV[5] then return {'mismatch', n, used} end
      if e[2] == 'done' then return {'replay', n, used, e[3]} end
      -- An entry without `until` was written before claims had one: its key expires with the claim.
      local untilMs = tonumber(e[4])
      if untilMs == nil or untilMs > now then return {'in_progress', n, used} end
      redis.call('HSET', KEYS[3], 'token', ARGV[7], 'until', claimUntil)
      return {'admitted', n, used}
    end
    if tonumber(redis.call('GET', KEYS[4]) or '0') < tonumber(ARGV[8]) then
      if redis.call('INCR', KEYS[4]) == 1 then redis.call('EXPIRE', KEYS[4], 2 * 86400) end
      redis.call('HSET', KEYS[3], 'fp', ARGV[5], 'state', 'pending', 'token', ARGV[7], 'bt', ARGV[7],
        'until', claimUntil)
      redis.call('EXPIRE', KEYS[3], tonumber(ARGV[11]))
    else
      outcome = 'admitted_unretained'
    end
  end

  if billed then
    used = redis.call('INCR', KEYS[2])
    if used == 1 then redis.call('EXPIRE', KEYS[2], tonumber(ARGV[4])) end
  end
  return {outcome, n, used}
end

if KEYS[3] then return admitOne() end
local out = {}
for _ = 1, tonumber(ARGV[12] or '1') do
  local one = admitOne()
  out[#out + 1] = one[1]
  out[#out + 1] = one[2]
  out[#out + 1] = one[3]
end
return out

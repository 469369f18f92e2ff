-- Takes n units of an organisation's monthly ledger allowance (see ledger-votes.ts).
-- KEYS[1] the organisation's counter for the month   ARGV[1] n   ARGV[2] allowance   ARGV[3] expiry, epoch ms
-- Returns 1 when taken, 0 when the month's allowance is spent (the counter is not raised then).
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used + tonumber(ARGV[1]) > tonumber(ARGV[2]) then return 0 end
redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
return 1

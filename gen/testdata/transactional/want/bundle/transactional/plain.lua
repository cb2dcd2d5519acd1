-- include: ledger.lua
-- Included by move: its writes are journaled as the script's own.
local function debit(key, n)
  redis.call('HINCRBY', key, 'balance', -n)
  redis.call('RPUSH', key .. ':log', n)
end
--! name: plain
--! doc: The same debit without the flag: Redis keeps what ran before the error.
--! key: from
--! key: to
--! arg: n int
--! returns: int
--! include: ledger.lua
debit(KEYS[1], ARGV[1])
return redis.call('HINCRBY', KEYS[2], 'balance', ARGV[1])

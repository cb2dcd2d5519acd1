-- Included by move: its writes are journaled as the script's own.
local function debit(key, n)
  redis.call('HINCRBY', key, 'balance', -n)
  redis.call('RPUSH', key .. ':log', n)
end

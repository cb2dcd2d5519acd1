--! name: plain
--! doc: The same debit without the flag: Redis keeps what ran before the error.
--! key: from
--! key: to
--! arg: n int
--! returns: int
--! include: ledger.lua
debit(KEYS[1], ARGV[1])
return redis.call('HINCRBY', KEYS[2], 'balance', ARGV[1])

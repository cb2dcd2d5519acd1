--! name: move
--! doc: Moves n units from one account hash to another, all or nothing: the
--! doc: debit is written before the credit is checked.
--! key: from
--! key: to
--! arg: n int
--! returns: int
--! include: ledger.lua
--! flags: transactional
debit(KEYS[1], ARGV[1])
if redis.call('TYPE', KEYS[2]).ok ~= 'hash' and redis.call('EXISTS', KEYS[2]) == 1 then
  -- HINCRBY would fail with WRONGTYPE; everything before is undone.
  return redis.call('HINCRBY', KEYS[2], 'balance', ARGV[1])
end
if tonumber(ARGV[1]) > 1000 then
  error({err = 'LIMIT the amount is above 1000'})
end
return redis.call('HINCRBY', KEYS[2], 'balance', ARGV[1])

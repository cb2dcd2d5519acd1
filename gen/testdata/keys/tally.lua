--! name: tally
--! doc: Counts one event per item of a type, and the events of the type.
--! key: total = stats:{type}:total
--! key: items... = stats:{type}:item:<item>   one counter per item
--! returns: int
for i = 2, #KEYS do
  redis.call('INCR', KEYS[i])
end
return redis.call('INCRBY', KEYS[1], #KEYS - 1)

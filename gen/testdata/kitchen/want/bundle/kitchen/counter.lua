--! name: counter
--! doc: Adds n to two counters, which must share a hash slot.
--! key: a
--! key: b
--! arg: n int = 1
--! returns: a int, b int
return {redis.call('INCRBY', KEYS[1], ARGV[1]), redis.call('INCRBY', KEYS[2], ARGV[1])}

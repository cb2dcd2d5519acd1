--! name: move
--! doc: Moves n units between two accounts of one user.
--! key: from = acct:{user}:<from>   the account debited
--! key: to = acct:{user}:<to>       the account credited
--! arg: n int
--! returns: from int, to int
return {redis.call('DECRBY', KEYS[1], ARGV[1]), redis.call('INCRBY', KEYS[2], ARGV[1])}

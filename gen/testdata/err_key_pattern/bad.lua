--! name: bad
--! key: a = rl:{user}:a
--! key: b = rl:{acct}:b
--! key: c = rl:c
return 1

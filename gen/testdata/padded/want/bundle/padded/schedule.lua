--! doc: Adds a member to a sorted set at now + delay_ms.
--! key: zset          the schedule
--! arg: now_ms int?   absent: the server's TIME
--! arg: delay_ms int
--! arg: member string
--! returns: int
local now = ARGV[1]
if now == '' then
  local t = redis.call('TIME')
  now = t[1] * 1000 + math.floor(t[2] / 1000)
end
local at = tonumber(now) + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], at, ARGV[3])
return at

--! name: gcra
--! doc: Generic cell rate algorithm with go-redis/redis_rate's semantics: rate
--! doc: requests per period_ms, bursts of up to burst, a request of cost units
--! doc: passes whole or not at all. One number per key, the theoretical arrival
--! doc: time (TAT), which expires when it is no longer in the future.
--! key: tat = rl:{id}:gcra  string: the theoretical arrival time, in ms since the epoch
--! arg: rate int          requests per period (> 0)
--! arg: burst int         the most requests at once (>= 0; redis_rate's PerSecond(n) uses n)
--! arg: period_ms int     (> 0)
--! arg: cost int = 1      units this request takes (0 only looks)
--! arg: now_ms int?       omitted: the server's TIME, to the microsecond
--! returns: allowed bool, remaining int, retry_after_ms int, reset_after_ms int
--
-- redis_rate (lua.go, v10) works in float seconds since 2017 and returns its
-- waits as float strings. Here the unit is the millisecond, the clock may be
-- given, and waits are whole milliseconds rounded up, so that a caller who
-- sleeps retry_after_ms is never early. Everything else follows it step by
-- step: tat = max(tat, now), new_tat = tat + cost×T, allow when
-- now >= new_tat - burst×T, remaining = floor((now - allow_at) / T), with
-- T = period / rate. Where redis_rate answers Allowed = cost, this answers
-- allowed = 1; a look (cost 0) is allowed while the limiter is not overdrawn.
--
-- The TAT is stored with 17 significant digits: Lua's own tostring keeps 14,
-- which at today's epoch in milliseconds drops the fraction of T that a rate
-- like 3 per second needs.
local MAX = 9007199254740991

-- Each argument is checked where it is read rather than by a helper, and
-- the arithmetic below uses comparisons where math.max would do: a Lua
-- function call costs more than the check or the comparison it makes.
local rate, burst, period = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if not (rate and rate % 1 == 0 and rate >= 1 and rate <= MAX) then
  return redis.error_reply('ERR rate must be a positive integer')
end
if not (burst and burst % 1 == 0 and burst >= 0 and burst <= MAX) then
  return redis.error_reply('ERR burst must be a non-negative integer')
end
if not (period and period % 1 == 0 and period >= 1 and period <= MAX) then
  return redis.error_reply('ERR period_ms must be a positive integer')
end
local cost = tonumber(ARGV[4] or '1')
if not (cost and cost % 1 == 0 and cost >= 0 and cost <= MAX) then
  return redis.error_reply('ERR cost must be a non-negative integer')
end
local now = ARGV[5]
if now == nil or now == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
else
  now = tonumber(now)
  if not (now and now % 1 == 0 and now >= 0 and now <= MAX) then
    return redis.error_reply('ERR now_ms must be a non-negative integer')
  end
end

local interval = period / rate
local stored = redis.call('GET', KEYS[1])
local tat = stored and tonumber(stored) or now
if now > tat then
  tat = now
end
local new_tat = tat + interval * cost
local allow_at = new_tat - interval * burst
local diff = now - allow_at
local remaining = diff / interval

-- Waits are rounded up with a microsecond of slack, math.ceil(x - 0.001):
-- times near 1.7e12 ms carry about 0.0002 ms of rounding, which would
-- otherwise turn 100 ms into a 101 ms wait or 9 into 8 remaining.
if remaining < 0 then
  return {0, 0, math.ceil(-diff - 0.001), math.ceil(tat - now - 0.001)}
end

local reset = new_tat - now
if reset > 0 then
  redis.call('SET', KEYS[1], string.format('%.17g', new_tat), 'PX', math.ceil(reset))
end
return {1, math.floor(remaining + 1e-6), -1, math.ceil(reset - 0.001)}

--! name: token_bucket
--! doc: Token bucket (seed 001's "reservoir"): up to capacity tokens, refilled
--! doc: continuously at rate tokens per period_ms. A request takes cost tokens
--! doc: or none. The state is two numbers and the key expires when the bucket
--! doc: would be full again, since a full bucket and no key mean the same.
--! key: bucket = rl:{id}:tb  hash {l = level, t = time of that level}; absent when full
--! arg: capacity int      the most tokens the bucket holds (> 0)
--! arg: rate int          tokens added per period (> 0)
--! arg: period_ms int     the refill period in milliseconds (> 0)
--! arg: cost int = 1      tokens this request takes (0 only looks)
--! arg: now_ms int?       omitted: the server's TIME
--! returns: allowed bool, remaining int, retry_after_ms int, reset_after_ms int
--
-- The level is kept in token-milliseconds (tokens × period_ms), in which one
-- millisecond refills exactly `rate` units. Every quantity is then an integer
-- and exact, where fractional tokens stored as floats would round differently
-- on every client and drift over millions of refills.
--
-- A denied request writes nothing: the level it saw is a function of the
-- stored state and the time, so the next call recomputes it. A clock that goes
-- backwards refills nothing and never moves the stored time back, so a client
-- with a slow clock cannot mint tokens by replaying the past.
local MAX = 9007199254740991 -- 2^53 - 1: beyond it doubles stop being integers

-- Each argument is checked where it is read rather than by a helper: a Lua
-- function call costs more than the check itself, and math.min and math.max
-- are calls too, so the arithmetic below is written out with comparisons.
local capacity, rate, period = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if not (capacity and capacity % 1 == 0 and capacity >= 1 and capacity <= MAX) then
  return redis.error_reply('ERR capacity must be a positive integer')
end
if not (rate and rate % 1 == 0 and rate >= 1 and rate <= MAX) then
  return redis.error_reply('ERR rate must be a positive integer')
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
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(now)
  if not (now and now % 1 == 0 and now >= 0 and now <= MAX) then
    return redis.error_reply('ERR now_ms must be a non-negative integer')
  end
end
local full, need = capacity * period, cost * period
if full > MAX or need > MAX then
  return redis.error_reply('ERR capacity (and cost) times period_ms must stay below 2^53')
end

local level, last = full, now
local state = redis.call('HMGET', KEYS[1], 'l', 't')
local l, t = tonumber(state[1]), tonumber(state[2])
if l and t then
  level = l
  if now > t then
    level = l + (now - t) * rate
  else
    last = t -- a clock behind the stored time refills nothing
  end
  -- A lowered capacity caps what a larger bucket had saved; written so that
  -- it also takes a level that is not a number, as math.min would.
  if not (level < full) then
    level = full
  end
end

if level < need then
  local retry = -1 -- cost above capacity: no wait will do
  if cost <= capacity then
    retry = math.ceil((need - level) / rate)
  end
  return {0, math.floor(level / period), retry, math.ceil((full - level) / rate)}
end

level = level - need
local reset = math.ceil((full - level) / rate)
if reset > MAX then
  reset = MAX
end
if reset == 0 then
  if l then
    redis.call('DEL', KEYS[1]) -- full again: same as no key
  end
elseif cost > 0 and reset > 0 then -- a look (cost 0) changes nothing worth storing
  -- reset > 0 always holds here; said, it shows the PEXPIRE cannot fail,
  -- so that the HSET is the run's last possible failure (no journal).
  redis.call('HSET', KEYS[1], 'l', level, 't', last)
  redis.call('PEXPIRE', KEYS[1], reset)
end
return {1, math.floor(level / period), -1, reset}

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

local function int(v, min)
  local n = tonumber(v)
  if n and n % 1 == 0 and n >= min and n <= MAX then
    return n
  end
end

local capacity, rate, period = int(ARGV[1], 1), int(ARGV[2], 1), int(ARGV[3], 1)
if not capacity then
  return redis.error_reply('ERR capacity must be a positive integer')
end
if not rate then
  return redis.error_reply('ERR rate must be a positive integer')
end
if not period then
  return redis.error_reply('ERR period_ms must be a positive integer')
end
local cost = int(ARGV[4] or '1', 0)
if not cost then
  return redis.error_reply('ERR cost must be a non-negative integer')
end
local now
if ARGV[5] == nil or ARGV[5] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = int(ARGV[5], 0)
  if not now then
    return redis.error_reply('ERR now_ms must be a non-negative integer')
  end
end
local full = capacity * period
if full > MAX or cost * period > MAX then
  return redis.error_reply('ERR capacity (and cost) times period_ms must stay below 2^53')
end

local level, last = full, now
local state = redis.call('HMGET', KEYS[1], 'l', 't')
local l, t = tonumber(state[1]), tonumber(state[2])
if l and t then
  last = math.max(t, now)
  -- A lowered capacity caps what a larger bucket had saved.
  level = math.min(full, l + math.max(0, now - t) * rate)
end

local need = cost * period
if level < need then
  local retry = -1 -- cost above capacity: no wait will do
  if cost <= capacity then
    retry = math.ceil((need - level) / rate)
  end
  return {0, math.floor(level / period), retry, math.ceil((full - level) / rate)}
end

level = level - need
local reset = math.min(math.ceil((full - level) / rate), MAX)
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

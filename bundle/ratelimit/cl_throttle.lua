--! name: cl_throttle
--! doc: redis-cell's CL.THROTTLE as a script, for servers that cannot load
--! doc: modules: `CL.THROTTLE key max_burst count period [quantity]` with the
--! doc: module's exact reply. count requests per period seconds, bursts of up
--! doc: to max_burst + 1; quantity 0 only looks.
--! key: key = rl:{id}:cl  string: the theoretical arrival time, in µs since the epoch
--! arg: max_burst int     (>= 0); the limit is max_burst + 1
--! arg: count int         requests per period (> 0)
--! arg: period int        in seconds (> 0)
--! arg: quantity int = 1  units this request takes (>= 0)
--! arg: now_ms int?       omitted: the server's TIME, to the microsecond
--! returns: limited bool, limit int, remaining int, retry_after_s int, reset_after_s int
--
-- Follows redis-cell 0.4 (redis-cell-impl/src/lib.rs, RateLimiter::rate_limit,
-- and redis-cell/src/lib.rs for the reply) step by step, quirks included:
-- - the emission interval is period/count truncated to whole nanoseconds;
-- - remaining divides whole microseconds by whole microseconds and truncates;
-- - a refused request whose quantity can never fit reports retry_after -1;
-- - waits are whole seconds, plus one when the remainder holds a whole
--   millisecond (not a few microseconds: the module looks at milliseconds);
-- - a refused request on a key whose TAT is in the past reports a negative
--   reset_after and a remaining above the limit, as the module does.
-- The module keeps nanoseconds in an i64; doubles cannot hold today's epoch in
-- nanoseconds exactly, so time here is in microseconds, which they can, and
-- the TAT is stored with 17 significant digits to keep its fraction.
local MAX = 9007199254740991

-- math.modf's first result is the truncation toward zero the module's
-- integer casts make. Duration::whole_seconds, plus one for a partial second
-- (subsec_milliseconds > 0):
local function seconds(us)
  local s = math.modf(us / 1000000)
  if math.modf((us - s * 1000000) / 1000) > 0 then
    s = s + 1
  end
  return s
end

-- Each argument is checked where it is read rather than by a helper: a Lua
-- function call costs more than the check itself.
local max_burst, count, period = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if not (max_burst and max_burst % 1 == 0 and max_burst >= 0 and max_burst <= MAX) then
  return redis.error_reply('ERR max_burst must be a non-negative integer')
end
if not (count and count % 1 == 0 and count >= 1 and count <= MAX) then
  return redis.error_reply('ERR count must be a positive integer')
end
if not (period and period % 1 == 0 and period >= 1 and period <= MAX) then
  return redis.error_reply('ERR period must be a positive integer (seconds)')
end
local quantity = tonumber(ARGV[4] or '1')
if not (quantity and quantity % 1 == 0 and quantity >= 0 and quantity <= MAX) then
  return redis.error_reply('ERR quantity must be a non-negative integer')
end
local now = ARGV[5]
if now == nil or now == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(now)
  if not (now and now % 1 == 0 and now >= 0 and now <= MAX) then
    return redis.error_reply('ERR now_ms must be a non-negative integer')
  end
  now = now * 1000
end

local interval_ns = math.floor(period * 1000000000 / count)
-- Below a microsecond the module divides by zero when it counts remaining.
if interval_ns < 1000 then
  return redis.error_reply('ERR count per period too high: at most one request per microsecond')
end
local interval = interval_ns / 1000
local increment = interval_ns * quantity / 1000
local tolerance = interval_ns * (max_burst + 1) / 1000

local stored = redis.call('GET', KEYS[1])
local tat = stored and tonumber(stored) or now
local new_tat
if now > tat then
  new_tat = now + increment
else
  new_tat = tat + increment
end
local diff = now - (new_tat - tolerance)

local limited, retry, ttl = 0, -1000000, 0
if diff < 0 then
  if increment <= tolerance then
    retry = -diff
  end
  limited = 1
  ttl = tat - now
else
  ttl = new_tat - now
  local px = math.ceil(ttl / 1000)
  if px > 0 then
    redis.call('SET', KEYS[1], string.format('%.17g', new_tat), 'PX', px)
  elseif stored then
    redis.call('DEL', KEYS[1]) -- a look at a TAT in the past: nothing left to keep
  end
end

local remaining = 0
local room = tolerance - ttl
if room > -interval then
  remaining = math.modf(math.modf(room) / math.modf(interval))
end
return {limited, max_burst + 1, remaining, seconds(retry), seconds(ttl)}

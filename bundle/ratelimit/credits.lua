--! name: credits
--! doc: Credits of a shared resource (seed 004's strategy 2): credits units
--! doc: per timeframe of window_ms, whoever asks first gets them. A timeframe
--! doc: starts with the first request after the last one ended, and when the
--! doc: credits run out everyone waits for the next. One key per resource.
--! key: pool = rl:{resource}:credits  hash {s = timeframe start ms, u = credits used}
--! arg: credits int       credits per timeframe (> 0)
--! arg: window_ms int     the timeframe's length (> 0)
--! arg: cost int = 1      credits this request takes (0 only looks)
--! arg: now_ms int?       omitted: the server's TIME, which every client shares
--! returns: allowed bool, remaining int, retry_after_ms int, reset_after_ms int
--
-- Seed 004 keeps a sorted set of every request and reads TIME into a helper
-- key built inside the script (a second, undeclared key: unsafe on Cluster),
-- counts refused requests into nothing but compares with ==, so a pool that
-- somehow went over its limit admits again. Here the pool is two numbers:
-- when the timeframe started and how much of it is spent; only admitted
-- requests spend, and the comparison is <=.
--
-- The timeframe is kept in the hash rather than left to the key's TTL so that
-- a given now_ms and the server's clock cannot disagree on when it ended; the
-- TTL only removes idle pools. A clock behind the stored start counts as
-- inside the current timeframe.
local MAX = 9007199254740991

-- Each argument is checked where it is read rather than by a helper: a Lua
-- function call costs more than the check itself.
local credits, window = tonumber(ARGV[1]), tonumber(ARGV[2])
if not (credits and credits % 1 == 0 and credits >= 1 and credits <= MAX) then
  return redis.error_reply('ERR credits must be a positive integer')
end
if not (window and window % 1 == 0 and window >= 1 and window <= MAX) then
  return redis.error_reply('ERR window_ms must be a positive integer')
end
local cost = tonumber(ARGV[3] or '1')
if not (cost and cost % 1 == 0 and cost >= 0 and cost <= MAX) then
  return redis.error_reply('ERR cost must be a non-negative integer')
end
local now = ARGV[4]
if now == nil or now == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(now)
  if not (now and now % 1 == 0 and now >= 0 and now <= MAX) then
    return redis.error_reply('ERR now_ms must be a non-negative integer')
  end
end

local state = redis.call('HMGET', KEYS[1], 's', 'u')
local start, used = tonumber(state[1]), tonumber(state[2])
if not start or not used or now >= start + window then
  start, used = now, 0
end
local reset = start + window - now

if used + cost > credits then
  local retry = reset
  if cost > credits then
    retry = -1 -- no timeframe has that many credits
  end
  return {0, credits - used, retry, reset}
end
if cost > 0 then
  used = used + cost
  redis.call('HSET', KEYS[1], 's', start, 'u', used)
  -- reset is a positive integer here; the bounds said show the PEXPIRE
  -- cannot fail, so that the HSET is the run's last possible failure.
  local ttl = math.ceil(reset)
  if ttl > MAX then
    ttl = MAX
  end
  if ttl > 0 then
    redis.call('PEXPIRE', KEYS[1], ttl)
  end
end
return {1, credits - used, -1, reset}

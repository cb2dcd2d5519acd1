--! name: log
--! doc: Sliding log (seed 003, fixed): every admitted request is a sorted-set
--! doc: entry scored by its time, and a request passes when each key has fewer
--! doc: than its limit entries inside its window. Several keys, each with its
--! doc: own window and limit (a client and the resource it shares), are
--! doc: charged all or nothing: one refusal refuses the request everywhere.
--! key: logs... = rl:{tag}:log:<party>  one sorted set per limited party, all in one slot
--! arg: limits json       [[window_ms, limit], …]: one pair per key, in KEYS order
--! arg: cost int = 1      entries this request adds to each log (0 only looks)
--! arg: now_ms int?       omitted: the server's TIME
--! returns: allowed bool, remaining int, retry_after_ms int, reset_after_ms int
--
-- Seed 003 adds the request before knowing whether it passes, so refused
-- requests fill the log and a client that keeps retrying is locked out for
-- good; it uses the time as the member too, so two requests in the same
-- microsecond count once. Here a request is added only when every key admits
-- it, and members are "<ms>:<n>", n counting the entries of that millisecond
-- (ZCOUNT over one score: entries leave the log a whole millisecond at a time,
-- so the count is also the highest n).
--
-- An entry counts during [t, t + window). A clock behind a log's newest entry
-- is taken as that entry's time, so that n stays unique and windows do not
-- slide backwards. Memory is one entry per admitted unit, about 60 bytes each:
-- pick window or token_bucket for large limits.
local MAX = 9007199254740991
local BATCH = 500 -- score-member pairs per ZADD, well within Lua's stack

local function int(v, min)
  local n = tonumber(v)
  if n and n % 1 == 0 and n >= min and n <= MAX then
    return n
  end
end

if #KEYS == 0 then
  return redis.error_reply('ERR log needs at least one key')
end
local ok, limits = pcall(cjson.decode, ARGV[1] or '')
if not ok or type(limits) ~= 'table' or #limits ~= #KEYS then
  return redis.error_reply('ERR limits must be a JSON array with one [window_ms, limit] per key')
end
for i, l in ipairs(limits) do
  if type(l) ~= 'table' or #l ~= 2 or not int(l[1], 1) or not int(l[2], 1) then
    return redis.error_reply('ERR limits[' .. i .. '] must be [window_ms, limit], both positive integers')
  end
end
local cost = int(ARGV[2] or '1', 0)
if not cost then
  return redis.error_reply('ERR cost must be a non-negative integer')
end
local now
if ARGV[3] == nil or ARGV[3] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = int(ARGV[3], 0)
  if not now then
    return redis.error_reply('ERR now_ms must be a non-negative integer')
  end
end

local newest = {}
for i, key in ipairs(KEYS) do
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  newest[i] = tonumber(last[2])
  if newest[i] and newest[i] > now then
    now = newest[i]
  end
end

-- First pass: trim, count, decide. Nothing is added unless every key admits.
local counts, allowed, never, retry, remaining, reset = {}, true, false, 0, MAX, 0
for i, key in ipairs(KEYS) do
  local window, limit = limits[i][1], limits[i][2]
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local n = redis.call('ZCARD', key)
  counts[i] = n
  if n + cost > limit then
    allowed = false
    if cost > limit then
      never = true
    else
      -- The entry whose expiry leaves room for cost more.
      local rank = n + cost - limit - 1
      local e = redis.call('ZRANGE', key, rank, rank, 'WITHSCORES')
      retry = math.max(retry, tonumber(e[2]) + window - now)
    end
  end
  remaining = math.min(remaining, math.max(0, limit - n))
  if n > 0 and newest[i] then
    reset = math.max(reset, newest[i] + window - now)
  end
end

if not allowed then
  if never then
    retry = -1
  end
  return {0, remaining, retry, reset}
end
if cost == 0 then
  return {1, remaining, -1, reset}
end

-- Second pass: charge every key.
remaining = MAX
for i, key in ipairs(KEYS) do
  local window, limit = limits[i][1], limits[i][2]
  local seq = redis.call('ZCOUNT', key, now, now)
  local added = 0
  while added < cost do
    local args = {}
    for j = added + 1, math.min(cost, added + BATCH) do
      args[#args + 1] = now
      args[#args + 1] = string.format('%d:%d', now, seq + j)
    end
    redis.call('ZADD', key, unpack(args))
    added = added + #args / 2
  end
  redis.call('PEXPIRE', key, window)
  remaining = math.min(remaining, limit - counts[i] - cost)
  reset = math.max(reset, window)
end
return {1, remaining, -1, reset}

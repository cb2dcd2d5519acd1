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
--
-- Everything is read before anything is written: entries that left the window
-- are not counted (ZCOUNT from just past it) rather than removed first, and are
-- swept after the new entries are added, below their score, so a sweep never
-- empties a log. A refused request writes nothing at all, and a run that fails
-- has written nothing, so the script is all-or-nothing as it stands
-- (transactional bundles ship it unwrapped).
local MAX = 9007199254740991

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
-- One window and one limit per key, in KEYS order.
local windows, caps = {}, {}
for i in ipairs(KEYS) do
  local l, window, limit = limits[i]
  if type(l) == 'table' and #l == 2 then
    window, limit = int(l[1], 1), int(l[2], 1)
  end
  if not (window and limit) then
    return redis.error_reply('ERR limits[' .. i .. '] must be [window_ms, limit], both positive integers')
  end
  windows[i], caps[i] = window, limit
end
local cost = int(ARGV[2] or '1', 0)
if not cost then
  return redis.error_reply('ERR cost must be a non-negative integer')
end
local now = ARGV[3]
if now == nil or now == '' then
  local t = redis.call('TIME')
  now = t[1] * 1000 + math.floor(t[2] / 1000)
end
now = int(now, 0)
if not now then
  return redis.error_reply('ERR now_ms must be a non-negative integer')
end

local newest = {}
for i, key in ipairs(KEYS) do
  local top = tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
  newest[i] = top
  if top and top > now then
    now = math.min(top, MAX)
  end
end

-- Count and decide. remaining: what a refusal leaves; left: what an admission does.
local allowed, never, retry, remaining, left, reset, longest = true, false, 0, MAX, MAX, 0, 0
for i, key in ipairs(KEYS) do
  local window, limit = windows[i], caps[i]
  local since = string.format('(%d', now - window)
  local n = redis.call('ZCOUNT', key, since, '+inf')
  if n + cost > limit then
    allowed = false
    if cost > limit then
      never = true
    else
      -- The entry whose expiry leaves room for cost more.
      local e = redis.call('ZRANGEBYSCORE', key, since, '+inf', 'WITHSCORES', 'LIMIT', n + cost - limit - 1, 1)
      retry = math.max(retry, tonumber(e[2]) + window - now)
    end
  end
  remaining = math.min(remaining, math.max(0, limit - n))
  left = math.min(left, limit - n - cost)
  if n > 0 and newest[i] then
    reset = math.max(reset, newest[i] + window - now)
  end
  longest = math.max(longest, window)
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

-- Charge every key, then sweep what left its window.
for i, key in ipairs(KEYS) do
  local window = windows[i]
  local seq = redis.call('ZCOUNT', key, now, now)
  local last = seq + cost
  repeat
    seq = seq + 1
    redis.call('ZADD', key, now, string.format('%d:%d', now, seq))
  until seq >= last
  redis.call('PEXPIRE', key, window)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
end
return {1, left, -1, math.max(reset, longest)}

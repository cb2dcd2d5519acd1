--! name: window
--! doc: Sliding and fixed windows (seed 001, part 2): several limits at once,
--! doc: each [duration_ms, limit, precision_ms?]. A limit with a precision
--! doc: slides in steps of precision_ms, counted in sub-buckets; without one it
--! doc: is a fixed window aligned to the epoch. All limits of one identifier
--! doc: live in one hash. Several identifiers (user and IP) are checked and
--! doc: charged together: a request passes only if every limit of every
--! doc: identifier has room for its cost.
--! key: ids... = rl:{tag}:window:<id>  one hash per identifier, all in one slot ({tag})
--! arg: limits json       [[duration_ms, limit, precision_ms?], …], at least one
--! arg: cost int = 1      weight of this request (0 only looks)
--! arg: now_ms int?       omitted: the server's TIME
--! returns: allowed bool, remaining int, retry_after_ms int, reset_after_ms int
--
-- The hash holds, per limit, "<d>:<p>:" the window's count, "<d>:<p>:o" the
-- oldest sub-bucket still counted and "<d>:<p>:<n>" the count of sub-bucket n
-- (time / p), as in the seed; and "t", the time of the last admitted request.
--
-- Two passes, as the seed teaches: the first drops expired sub-buckets and
-- checks every limit of every identifier; only when all pass does the second
-- charge them, so refused requests are never counted. Where the seed goes
-- wrong, this differs:
-- - it compares the oldest sub-bucket's number with the time ("don't write in
--   the past") and refuses every request once they drift apart; here a clock
--   behind "t" is taken as "t", so sub-buckets are never written behind the
--   cleanup mark and a client with a slow clock is neither refused nor helped;
-- - it reads expired sub-buckets one HGET each, which for a fine precision
--   after a long idle spell is one call per sub-bucket of the window; here a
--   short range is one HMGET and a long one a single HGETALL;
-- - times are milliseconds everywhere, so EXPIRE's seconds cannot be mixed in.
-- A request counts until its sub-bucket leaves the window: for between
-- duration - precision and duration, the seed's trade of accuracy for memory;
-- a duration that is not a multiple of its precision is rounded up to whole
-- sub-buckets. Memory per identifier: three fields per limit plus one per
-- sub-bucket with admitted requests, at most ceil(duration / precision).
local MAX = 9007199254740991
local HMGET_MAX = 64 -- sub-buckets read by name; beyond, one HGETALL

local function int(v, min)
  local n = tonumber(v)
  if n and n % 1 == 0 and n >= min and n <= MAX then
    return n
  end
end

if #KEYS == 0 then
  return redis.error_reply('ERR window needs at least one identifier key')
end
local ok, spec = pcall(cjson.decode, ARGV[1] or '')
if not ok or type(spec) ~= 'table' or #spec == 0 then
  return redis.error_reply('ERR limits must be a JSON array of [duration_ms, limit, precision_ms?]')
end
local limits = {}
for i, l in ipairs(spec) do
  local d, n, p
  if type(l) == 'table' and (#l == 2 or #l == 3) then
    d, n, p = int(l[1], 1), int(l[2], 1), int(l[3] or l[1], 1)
  end
  if not (d and n and p) then
    return redis.error_reply('ERR limits[' .. i .. '] must be [duration_ms, limit, precision_ms?], all positive integers')
  end
  p = math.min(p, d)
  limits[i] = {duration = d, limit = n, precision = p, blocks = math.ceil(d / p), prefix = d .. ':' .. p .. ':', cur = {}}
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

local last = {}
for j, key in ipairs(KEYS) do
  last[j] = tonumber(redis.call('HGET', key, 't'))
  if last[j] and last[j] > now then
    now = last[j]
  end
end

-- The sub-buckets of one limit numbered from..to that hold counts, oldest first.
local everything = {}
local function buckets(j, l, from, to)
  local out = {}
  if to < from then
    return out
  end
  if to - from < HMGET_MAX then
    local names = {}
    for b = from, to do
      names[#names + 1] = l.prefix .. b
    end
    local vals = redis.call('HMGET', KEYS[j], unpack(names))
    for i = 1, #names do
      if vals[i] then
        out[#out + 1] = {from + i - 1, tonumber(vals[i])}
      end
    end
    return out
  end
  everything[j] = everything[j] or redis.call('HGETALL', KEYS[j])
  local all = everything[j]
  for i = 1, #all, 2 do
    local f = all[i]
    if f:sub(1, #l.prefix) == l.prefix then
      local b = tonumber(f:sub(#l.prefix + 1))
      if b and b >= from and b <= to then
        out[#out + 1] = {b, tonumber(all[i + 1])}
      end
    end
  end
  table.sort(out, function(x, y) return x[1] < y[1] end)
  return out
end

-- First pass: clean up and check.
local allowed, never, retry, remaining, reset = true, false, 0, MAX, 0
for _, l in ipairs(limits) do
  l.block = math.floor(now / l.precision)
  l.trim = l.block - l.blocks + 1
  for j, key in ipairs(KEYS) do
    local state = redis.call('HMGET', key, l.prefix .. 'o', l.prefix)
    local oldest = tonumber(state[1]) or l.trim
    local cur = tonumber(state[2]) or 0
    if oldest < l.trim then
      -- Sub-buckets only exist from the mark to one window past it.
      local stale = buckets(j, l, oldest, math.min(l.trim, oldest + l.blocks) - 1)
      if #stale > 0 then
        local names, sum = {}, 0
        for i, b in ipairs(stale) do
          names[i] = l.prefix .. b[1]
          sum = sum + b[2]
        end
        redis.call('HDEL', key, unpack(names))
        cur = redis.call('HINCRBY', key, l.prefix, -sum)
      end
      redis.call('HSET', key, l.prefix .. 'o', l.trim)
      everything[j] = nil
    end
    if cur + cost > l.limit then
      allowed = false
      if cost > l.limit then
        never = true
      else
        -- Wait until enough of the oldest sub-buckets leave the window.
        local freed = 0
        for _, b in ipairs(buckets(j, l, l.trim, l.block)) do
          freed = freed + b[2]
          if cur - freed + cost <= l.limit then
            retry = math.max(retry, (b[1] + l.blocks) * l.precision - now)
            break
          end
        end
      end
    end
    remaining = math.min(remaining, math.max(0, l.limit - cur))
    l.cur[j] = cur
    if cur > 0 and last[j] then
      reset = math.max(reset, (math.floor(last[j] / l.precision) + l.blocks) * l.precision - now)
    end
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

-- Second pass: charge every limit of every identifier.
remaining, reset = MAX, 0
for _, l in ipairs(limits) do
  reset = math.max(reset, (l.block + l.blocks) * l.precision - now)
  remaining = math.min(remaining, l.limit)
  for j, key in ipairs(KEYS) do
    redis.call('HINCRBY', key, l.prefix, cost)
    redis.call('HINCRBY', key, l.prefix .. l.block, cost)
    redis.call('HSET', key, l.prefix .. 'o', l.trim)
    remaining = math.min(remaining, l.limit - l.cur[j] - cost)
  end
end
for _, key in ipairs(KEYS) do
  redis.call('HSET', key, 't', now)
  redis.call('PEXPIRE', key, reset)
end
return {1, remaining, -1, reset}

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
-- The hash holds, per limit, "r<d>:<p>:" the window's count, "r<d>:<p>:o"
-- the oldest sub-bucket still counted, "r<d>:<p>:f" the oldest sub-bucket
-- holding a count at the last charge (none before it, from the mark on,
-- can hold one later: counts go to the current sub-bucket only), and a
-- ring of sub-buckets:
-- "r<d>:<p>:<s>" is "<n>:<count>" for sub-bucket n (time / p) in slot
-- s = n mod ceil(d / p); and "t", the time of the last admitted request.
--
-- Two passes, as the seed teaches: the first reads every limit of every
-- identifier and decides; only when all pass does the second charge them, so
-- refused requests are never counted. Where the seed goes wrong, this differs:
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
-- sub-buckets.
--
-- Sub-buckets that left the window are taken off the count when the mark
-- passes them (a slot still holding that sub-bucket's number), and their slot
-- is written over when the ring comes round, never deleted: memory per
-- identifier is four fields per limit (three for a fixed window) plus at
-- most ceil(duration / precision) slots. A refusal looks for the oldest
-- sub-buckets from "r<d>:<p>:f" on, so it reads the few that decide its
-- retry time, not the empty stretch a burst leaves before them. A request
-- that finds the field behind the window looks for the oldest sub-bucket
-- with a count again, and the next charge stores it; refusals in between
-- look again each time, as all of them did before the field.
-- Nothing is written before everything is read, a refusal
-- writes nothing, and what is written cannot fail (HSETs and a PEXPIRE on
-- hashes the reads found), so a run that fails has written nothing: the script
-- is all-or-nothing as it stands (transactional bundles ship it unwrapped).
-- Fields of the layout before the ring ("<d>:<p>:…", without the "r") are not
-- read: an identifier's count starts again once, and they leave with the key.
local MAX = 9007199254740991
local HMGET_MAX = 64 -- slots read by name; beyond, one HGETALL

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
local parsed = {}
for i, l in ipairs(spec) do
  local d, n, p
  if type(l) == 'table' and (#l == 2 or #l == 3) then
    d, n, p = int(l[1], 1), int(l[2], 1), int(l[3] or l[1], 1)
  end
  if not (d and n and p) then
    return redis.error_reply('ERR limits[' .. i .. '] must be [duration_ms, limit, precision_ms?], all positive integers')
  end
  parsed[i] = {d, n, math.min(p, d)}
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

local last = {}
for j, key in ipairs(KEYS) do
  local t = tonumber(redis.call('HGET', key, 't'))
  last[j] = t
  if t and t > now then
    now = math.min(t, MAX)
  end
end

local limits = {}
for i, l in ipairs(parsed) do
  local d, n, p = l[1], l[2], l[3]
  local blocks, block = math.ceil(d / p), math.floor(now / p)
  limits[i] = {limit = n, precision = p, blocks = blocks, block = block, trim = block - blocks + 1, prefix = 'r' .. d .. ':' .. p .. ':'}
end

-- The sub-bucket number and count a slot holds, if any.
local function slotted(v)
  local b, n = string.match(v or '', '^(%d+):(%d+)$')
  return tonumber(b), tonumber(n)
end

-- The sub-buckets numbered from..to of one limit (prefix, blocks) that hold
-- counts in identifier j's ring, as {number, count}, oldest first.
local everything = {}
local function buckets(j, prefix, blocks, from, to)
  local out = {}
  if to < from then
    return out
  end
  local function add(v, lo, hi)
    local b, n = slotted(v)
    if b and b >= lo and b <= hi then
      out[#out + 1] = {b, n}
    end
  end
  if to - from < HMGET_MAX then
    local names = {}
    for b = from, to do
      names[#names + 1] = prefix .. (b % blocks)
    end
    local vals = redis.call('HMGET', KEYS[j], unpack(names))
    for i = 1, #names do
      add(vals[i], from + i - 1, from + i - 1)
    end
    return out
  end
  everything[j] = everything[j] or redis.call('HGETALL', KEYS[j])
  local all = everything[j]
  for i = 1, #all, 2 do
    local f = all[i]
    if string.sub(f, 1, #prefix) == prefix and tonumber(string.sub(f, #prefix + 1)) then
      add(all[i + 1], from, to)
    end
  end
  table.sort(out, function(x, y) return x[1] < y[1] end)
  return out
end

-- The number of the oldest sub-bucket numbered from..to that holds a
-- count, if any, read in runs that double (8, 16, ...).
local function oldestHeld(j, prefix, blocks, from, to)
  local run = 8
  while from <= to do
    local upto = math.min(from + run - 1, to)
    local held = buckets(j, prefix, blocks, from, upto)
    if held[1] then
      return held[1][1]
    end
    from, run = upto + 1, run * 2
  end
  return nil
end

-- First pass: read and check everything; what to write goes to charges.
local allowed, never, retry, remaining, left, reset, horizon = true, false, 0, MAX, MAX, 0, 0
local charges = {}
for _, l in ipairs(limits) do
  horizon = math.max(horizon, (l.block + l.blocks) * l.precision - now)
  local slot = l.prefix .. (l.block % l.blocks)
  for j, key in ipairs(KEYS) do
    local state
    if l.blocks > 1 then
      state = redis.call('HMGET', key, l.prefix, l.prefix .. 'o', slot, l.prefix .. 'f')
    else -- a fixed window: its one sub-bucket is the oldest held
      state = redis.call('HMGET', key, l.prefix, l.prefix .. 'o', slot)
    end
    local cur = tonumber(state[1]) or 0
    local oldest = tonumber(state[2]) or l.trim
    local first = tonumber(state[4]) -- none held before it
    if oldest < l.trim then
      -- Sub-buckets only exist from the mark to one window past it.
      for _, b in ipairs(buckets(j, l.prefix, l.blocks, math.max(oldest, first or oldest), math.min(l.trim, oldest + l.blocks) - 1)) do
        cur = cur - b[2]
      end
    end
    local held, count = slotted(state[3])
    local here = held == l.block and count or 0 -- the current sub-bucket's count
    -- The oldest sub-bucket holding a count: the field, within the window;
    -- else the current sub-bucket when the window's count is all in it (a
    -- new or idle identifier reads nothing more); else found again,
    -- reading before any write. math.max changes nothing here; it shows
    -- the prelude's proof a number (it does not narrow through an if).
    local start = l.block
    if first and first >= l.trim then
      start = math.max(first, l.trim)
    elseif l.blocks > 1 and cur > here then
      local found = tonumber(oldestHeld(j, l.prefix, l.blocks, l.trim, l.block - 1))
      if found then
        start = math.max(found, l.trim)
      end
    end
    if cur + cost > l.limit then
      allowed = false
      if cost > l.limit then
        never = true
      else
        -- Wait until enough of the oldest sub-buckets leave the window.
        -- They are read oldest first, from the oldest held on, in runs
        -- that double (8, 16, ...): under load the answer is in the first
        -- few, and a refusal, the call a limiter gets most when hammered,
        -- then reads a handful of slots, not the whole ring.
        local freed, from, run, found = 0, start, 8, false
        while not found and from <= l.block do
          local to = math.min(from + run - 1, l.block)
          for _, b in ipairs(buckets(j, l.prefix, l.blocks, from, to)) do
            freed = freed + b[2]
            if cur - freed + cost <= l.limit then
              retry = math.max(retry, (b[1] + l.blocks) * l.precision - now)
              found = true
              break
            end
          end
          from, run = to + 1, run * 2
        end
      end
    end
    remaining = math.min(remaining, math.max(0, l.limit - cur))
    left = math.min(left, l.limit - cur - cost)
    if cur > 0 and last[j] then
      reset = math.max(reset, (math.floor(last[j] / l.precision) + l.blocks) * l.precision - now)
    end
    charges[#charges + 1] = {id = j, count = l.prefix, total = cur + cost, trim = l.trim, slot = slot,
      value = string.format('%d:%d', l.block, here + cost), sliding = l.blocks > 1, first = start}
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
local ttl = math.min(math.max(1, math.ceil(horizon)), MAX) -- an integer PEXPIRE takes
for j, key in ipairs(KEYS) do
  for _, c in ipairs(charges) do
    if c.id == j then
      if c.sliding then
        redis.call('HSET', key, c.count, c.total, c.count .. 'o', c.trim, c.slot, c.value, c.count .. 'f', c.first)
      else
        redis.call('HSET', key, c.count, c.total, c.count .. 'o', c.trim, c.slot, c.value)
      end
    end
  end
  redis.call('HSET', key, 't', now)
  redis.call('PEXPIRE', key, ttl)
end
return {1, left, -1, horizon}

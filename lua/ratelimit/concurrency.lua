--! name: concurrency
--! doc: Concurrent requests limiter (Stripe's): at most limit requests in
--! doc: flight at once. A request acquires a slot under its own id, releases
--! doc: it when done, and a slot whose holder died frees itself after ttl_ms.
--! key: slots = rl:{id}:concurrency  sorted set: request id → when its slot expires (ms)
--! arg: limit int         slots (> 0)
--! arg: request_id string unique per request; acquiring it again extends its slot
--! arg: ttl_ms int        how long a slot outlives a holder that never releases (> 0)
--! arg: release bool = false  1: give request_id's slot back instead of acquiring one
--! arg: now_ms int?       omitted: the server's TIME
--! returns: allowed bool, remaining int, retry_after_ms int, reset_after_ms int
--
-- Stripe's published limiter counts with ZCARD after dropping stale entries
-- by score; that is kept. Per-request expiry (the score) is what lets a
-- crashed worker's slot come back without any cleanup process.
--
-- A release answers allowed = 1 when the id held a slot and 0 when it did
-- not (already released or expired): a caller seeing 0 learns its work ran
-- past ttl_ms. A refused acquire's retry_after_ms is when the first slot
-- expires; a release can come sooner. reset_after_ms is when the last does.
-- Extending a slot never moves its expiry earlier (ZADD GT), so a retried
-- acquire from a client with a slow clock cannot cut another's time short.
local MAX = 9007199254740991

local function int(v, min)
  local n = tonumber(v)
  if n and n % 1 == 0 and n >= min and n <= MAX then
    return n
  end
end

local limit = int(ARGV[1], 1)
if not limit then
  return redis.error_reply('ERR limit must be a positive integer')
end
local id = ARGV[2]
if id == nil or id == '' then
  return redis.error_reply('ERR request_id must not be empty')
end
local ttl = int(ARGV[3], 1)
if not ttl then
  return redis.error_reply('ERR ttl_ms must be a positive integer')
end
local release = ARGV[4] or '0'
if release ~= '0' and release ~= '1' then
  return redis.error_reply('ERR release must be 0 or 1')
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

local key = KEYS[1]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)

-- Milliseconds until the last slot expires; 0 when none is held.
local function until_last()
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if last[2] then
    return tonumber(last[2]) - now
  end
  return 0
end

local allowed
if release == '1' then
  allowed = redis.call('ZREM', key, id)
elseif redis.call('ZSCORE', key, id) or redis.call('ZCARD', key) < limit then
  redis.call('ZADD', key, 'GT', now + ttl, id) -- GT still adds a new id
  allowed = 1
else
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return {0, 0, tonumber(first[2]) - now, until_last()}
end

local held = redis.call('ZCARD', key)
local reset = until_last()
if reset > 0 then
  redis.call('PEXPIRE', key, reset)
end
return {allowed, math.max(0, limit - held), -1, reset}

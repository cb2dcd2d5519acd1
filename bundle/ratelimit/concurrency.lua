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
-- Stripe's published limiter drops stale entries by score, then counts with
-- ZCARD; here the live slots are counted by score (ZCOUNT) and the stale
-- ones swept after, so that every read comes before every write. Per-request
-- expiry (the score) is what lets a crashed worker's slot come back without
-- any cleanup process.
--
-- A release answers allowed = 1 when the id held a slot and 0 when it did
-- not (already released or expired): a caller seeing 0 learns its work ran
-- past ttl_ms. A refused acquire's retry_after_ms is when the first slot
-- expires; a release can come sooner. reset_after_ms is when the last does.
-- Extending a slot never moves its expiry earlier (ZADD GT), so a retried
-- acquire from a client with a slow clock cannot cut another's time short.
local MAX = 9007199254740991

-- Each argument is checked where it is read rather than by a helper: a Lua
-- function call costs more than the check itself.
local limit = tonumber(ARGV[1])
if not (limit and limit % 1 == 0 and limit >= 1 and limit <= MAX) then
  return redis.error_reply('ERR limit must be a positive integer')
end
local id = ARGV[2]
if id == nil or id == '' then
  return redis.error_reply('ERR request_id must not be empty')
end
local ttl = tonumber(ARGV[3])
if not (ttl and ttl % 1 == 0 and ttl >= 1 and ttl <= MAX) then
  return redis.error_reply('ERR ttl_ms must be a positive integer')
end
local release = ARGV[4] or '0'
if release ~= '0' and release ~= '1' then
  return redis.error_reply('ERR release must be 0 or 1')
end
local now = ARGV[5]
if now == nil or now == '' then
  local t = redis.call('TIME')
  now = t[1] * 1000 + math.floor(t[2] / 1000)
end
now = tonumber(now)
if not (now and now % 1 == 0 and now >= 0 and now <= MAX) then
  return redis.error_reply('ERR now_ms must be a non-negative integer')
end

-- Everything is read before anything is written, and what is written
-- cannot fail (a sorted set the reads found, an integer TTL, a score that
-- is a number): a run that fails has written nothing, so the script is
-- all-or-nothing as it stands (transactional bundles ship it unwrapped).
-- Slots that expired (score <= now) are swept last.
local key = KEYS[1]
local mine = tonumber(redis.call('ZSCORE', key, id)) -- id's slot expiry, expired or not
local held = mine ~= nil and mine > now
local live = redis.call('ZCOUNT', key, string.format('(%d', now), '+inf')
local tail = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES') -- the slot expiring last
local last = tonumber(tail[2])

-- Milliseconds from now until expiry (an integer; 0 when past).
local function left(at)
  if not at or at <= now then
    return 0
  end
  return math.min(math.ceil(at - now), MAX)
end

if release == '1' then
  if tail[1] == id then -- the last slot apart from id's
    last = tonumber(redis.call('ZRANGE', key, -2, -2, 'WITHSCORES')[2])
  end
  local reset = left(last)
  -- A score of -inf marks id's slot for the sweep; XX adds nothing.
  redis.call('ZADD', key, 'XX', '-inf', id)
  if reset > 0 then
    redis.call('PEXPIRE', key, reset)
  end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if held then
    return {1, math.max(0, limit - live + 1), -1, reset}
  end
  return {0, math.max(0, limit - live), -1, reset}
end

if not held and live >= limit then
  local first = redis.call('ZRANGEBYSCORE', key, string.format('(%d', now), '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  local retry, reset = left(tonumber(first[2])), left(last)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  return {0, 0, retry, reset}
end

local score = now + ttl
if mine and mine > score then
  score = mine -- GT: an extension never moves the expiry earlier
end
-- Until the last slot expires: id's, or one that expires later.
local reset = math.min(math.ceil(math.max(score, last or 0) - now), MAX)
redis.call('ZADD', key, 'GT', now + ttl, id) -- GT still adds a new id
if reset > 0 then -- always (score > now); the test shows the TTL valid
  redis.call('PEXPIRE', key, reset)
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if held then
  return {1, math.max(0, limit - live), -1, reset}
end
return {1, math.max(0, limit - live - 1), -1, reset}

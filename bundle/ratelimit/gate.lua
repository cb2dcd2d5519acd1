--! name: gate
--! doc: Uniform rate limiter (a gate): each caller may pass once per interval.
--! doc: The first call creates the gate key with a TTL of one interval; while it
--! doc: lives every call is refused and told how long to wait. One key per
--! doc: caller and resource, e.g. "gate:{user42}:feeding".
--! key: gate = gate:{caller}:<resource>  the caller's gate; exists while the caller must wait
--! arg: interval_ms int   how long a pass closes the gate, in milliseconds (> 0)
--! returns: allowed bool, remaining int, retry_after_ms int, reset_after_ms int
--
-- The reply is the library's: allowed, remaining (0: a pass closes the
-- gate), retry_after_ms (-1 when allowed, else when the gate reopens) and
-- reset_after_ms (when the gate is open again either way).
--
-- Unlike the other limiters the gate takes no now_ms: its state is the key's
-- TTL, which only the server's clock runs down.
--
-- Seed 004's version checks TTL > 0 and then SETs with PX. TTL is rounded to
-- whole seconds, so in the last half second of a gate TTL reports 0 and a
-- second caller slips through early; and a gate key left without an expiry
-- (TTL -1) would admit everyone forever. SET NX PX decides in one command and
-- PTTL is exact; a gate found without expiry is given one instead of being
-- trusted or ignored.
local interval = tonumber(ARGV[1])
if not interval or interval <= 0 or interval % 1 ~= 0 then
  return redis.error_reply('ERR interval_ms must be a positive integer')
end

if redis.call('SET', KEYS[1], '1', 'NX', 'PX', interval) then
  return {1, 0, -1, interval}
end

local wait = redis.call('PTTL', KEYS[1])
if wait < 0 then
  redis.call('PEXPIRE', KEYS[1], interval)
  wait = interval
end
return {0, 0, wait, wait}

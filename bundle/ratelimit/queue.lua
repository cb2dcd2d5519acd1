--! name: queue
--! doc: Request-coupled leaky bucket (seed 004): a request is admitted by being
--! doc: appended to a bounded stream, and only while the stream holds fewer
--! doc: than limit entries. Consumers drain it at their own pace (XREADGROUP,
--! doc: then XACK and XDEL), so the rate is whatever they can process.
--! key: queue = rl:{id}:queue  the stream of admitted requests
--! arg: limit int         the most entries waiting or in work (> 0)
--! arg: fields string...  field value pairs of the request, stored in its entry
--! returns: allowed bool, remaining int, retry_after_ms int, reset_after_ms int, id string
--
-- The seed compares XLEN with == and would let a stream that grew past the
-- limit by other means accept again; here it is <. Its length counts what
-- consumers have not deleted, so a consumer deletes an entry once done (the
-- Go helper acknowledges and deletes together), and work claimed by a
-- consumer that died still holds its place until it is claimed again.
--
-- Time plays no part: how long to wait depends on the consumers, so a refused
-- request gets retry_after_ms 0 ("unknown, back off") and the queue reports no
-- reset. The fifth field is the admitted entry's stream ID, "" when refused.
local limit = tonumber(ARGV[1])
if not limit or limit % 1 ~= 0 or limit < 1 or limit > 9007199254740991 then
  return redis.error_reply('ERR limit must be a positive integer')
end
local n = #ARGV - 1
if n < 2 or n % 2 ~= 0 then
  return redis.error_reply('ERR fields must be one or more field value pairs')
end

local len = redis.call('XLEN', KEYS[1])
if len >= limit then
  return {0, 0, 0, 0, ''}
end
local id = redis.call('XADD', KEYS[1], '*', unpack(ARGV, 2))
return {1, limit - len - 1, -1, 0, id}

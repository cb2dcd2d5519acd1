--! name: half
--! doc: Admits a request in the first half of each second of the caller's
--! doc: clock: a limiter whose verdict shows which clock it was given.
--! key: k                 unused
--! arg: now_ms int?       the caller's clock
--! returns: allowed bool, now_ms int
local now = tonumber(ARGV[1])
return {now % 1000 < 500 and 1 or 0, now}

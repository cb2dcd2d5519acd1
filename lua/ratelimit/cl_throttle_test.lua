-- Tests for cl_throttle.lua against redis-cell's published behaviour:
-- - the README's example (github.com/brandur/redis-cell, "Usage");
-- - the module's own table test, it_rate_limits in redis-cell-impl/src/lib.rs,
--   replayed at the same instants, its durations turned into the command's
--   reply as redis-cell/src/lib.rs does (whole seconds, up for a partial one).

local cl = script('cl_throttle')
local key = 'user123'
local T = 1700000000000

function test_readme_example()
  -- CL.THROTTLE user123 15 30 60 → 0, 16, 15, -1, 2
  t.eq(cl.call({key}, {15, 30, 60, 1, T}), {0, 16, 15, -1, 2})
  t.eq(cl.call({key}, {15, 30, 60, 1, T}), {0, 16, 14, -1, 4})
end

-- The reply's rounding of a duration in milliseconds.
local function secs(ms)
  local s = ms >= 0 and math.floor(ms / 1000) or math.ceil(ms / 1000)
  if ms - s * 1000 > 0 then s = s + 1 end
  return s
end

function test_redis_cell_it_rate_limits()
  -- limit 5: max_burst 4, Rate::per_second(1)
  -- {case, now offset ms, volume, remaining, reset_after ms, retry_after ms, limited}
  local cases = {
    {0, 0, 6, 5, 0, -1000, true}, -- never larger than the maximum
    {1, 0, 1, 4, 1000, -1000, false},
    {2, 0, 1, 3, 2000, -1000, false},
    {3, 0, 1, 2, 3000, -1000, false},
    {4, 0, 1, 1, 4000, -1000, false},
    {5, 0, 1, 0, 5000, -1000, false},
    {6, 0, 1, 0, 5000, 1000, true},
    {7, 3000, 1, 2, 3000, -1000, false},
    {8, 3100, 1, 1, 3900, -1000, false},
    {9, 4000, 1, 1, 4000, -1000, false},
    {10, 8000, 1, 4, 1000, -1000, false},
    {11, 9500, 1, 4, 1000, -1000, false},
    {12, 9500, 0, 4, 1000, -1000, false}, -- zero volume peeks
    {13, 9500, 2, 2, 3000, -1000, false},
    {14, 9500, 5, 2, 3000, 3000, true}, -- large requests cannot exceed limits
  }
  for _, c in ipairs(cases) do
    local want = {c[7] and 1 or 0, 5, c[4], secs(c[6]), secs(c[5])}
    t.eq(cl.call({'foo'}, {4, 1, 1, c[3], T + c[2]}), want, 'case ' .. c[1])
  end
end

function test_reply_rounds_partial_seconds_up()
  -- 1 per 10 s, burst 0: refused 0.5 s later, the wait is 9.5 s → 10.
  cl.call({key}, {0, 1, 10, 1, T})
  t.eq(cl.call({key}, {0, 1, 10, 1, T + 500}), {1, 1, 0, 10, 10})
  -- 10.0 s after: allowed again.
  t.eq(cl.call({key}, {0, 1, 10, 1, T + 10000}), {0, 1, 0, -1, 10})
end

function test_interval_truncated_to_nanoseconds()
  -- 7 per 60 s: 8571428571.43 ns → 8571428571 ns, stored in µs.
  cl.call({key}, {0, 7, 60, 1, T})
  t.eq(tonumber(redis.call('GET', key)), T * 1000 + 8571428.571)
end

function test_key_expires_with_its_tat()
  cl.call({key}, {4, 1, 1, 3, T})
  local ttl = redis.call('PTTL', key)
  t.ok(ttl > 2900 and ttl <= 3000, 'PTTL is the TAT, got ' .. ttl)
end

function test_peek_at_missing_key_writes_nothing()
  t.eq(cl.call({key}, {4, 1, 1, 0, T}), {0, 5, 5, -1, 0})
  t.eq(redis.call('EXISTS', key), 0)
end

function test_refused_on_stale_key_reports_what_the_module_reports()
  -- TAT 1 s in the past, a quantity above the limit: ttl = tat - now < 0,
  -- so reset_after is negative and remaining above the limit, as in the module.
  cl.call({key}, {4, 1, 1, 1, T})
  t.eq(cl.call({key}, {4, 1, 1, 7, T + 2000}), {1, 5, 6, -1, -1})
end

function test_clock_going_backwards()
  cl.call({key}, {1, 1, 1, 2, T + 10000})
  t.eq(cl.call({key}, {1, 1, 1, 1, T}), {1, 2, 0, 11, 12})
end

function test_denied_request_writes_nothing()
  cl.call({key}, {0, 1, 60, 1, T})
  local before = redis.call('GET', key)
  t.eq(cl.call({key}, {0, 1, 60, 1, T + 1})[1], 1)
  t.eq(redis.call('GET', key), before)
end

function test_bad_arguments_are_errors_and_write_nothing()
  local cases = {
    {{-1, 30, 60}, 'ERR max_burst must be a non-negative integer'},
    {{'x', 30, 60}, 'ERR max_burst must be a non-negative integer'},
    {{15, 0, 60}, 'ERR count must be a positive integer'},
    {{15, 30, 0}, 'ERR period must be a positive integer (seconds)'},
    {{15, 30, 60, -1}, 'ERR quantity must be a non-negative integer'},
    {{15, 30, 60, 1, 1.5}, 'ERR now_ms must be a non-negative integer'},
    {{15, 2000000, 1}, 'ERR count per period too high: at most one request per microsecond'},
  }
  for _, c in ipairs(cases) do
    t.eq(cl.pcall({key}, c[1]), {err = c[2]}, table.concat(c[1], ' '))
  end
  t.eq(redis.call('EXISTS', key), 0)
end

function test_server_time_when_now_is_omitted()
  t.eq(cl.call({key}, {1, 10, 1}), {0, 2, 1, -1, 1})
  t.eq(cl.call({key}, {1, 10, 1})[1], 0)
  local r = cl.call({key}, {1, 10, 1})
  t.eq({r[1], r[4]}, {1, 1}, 'refused, 100 ms rounded up to 1 s')
  clock.advance(120)
  t.eq(cl.call({key}, {1, 10, 1})[1], 0)
end

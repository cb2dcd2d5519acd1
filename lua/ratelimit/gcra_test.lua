-- Tests for gcra.lua. The reference cases are go-redis/redis_rate v10.0.1's
-- own tests (rate_test.go: TestAllow, TestAllowN_IncrementZero,
-- TestRetryAfter), replayed at one fixed instant: redis_rate reads TIME, so its
-- expectations allow for the milliseconds its calls take (999 ms for 1000,
-- 99 s ± 1 s for 100 s); with now_ms given they are exact.

local gcra = script('gcra')
local key = 'rate:{project:123}'
local T = 1700000000000

-- redis_rate.PerSecond(10): Rate 10, Burst 10, Period 1 s.
local function per_second(n, cost, now)
  return gcra.call({key}, {n, n, 1000, cost, now})
end

function test_redis_rate_TestAllow()
  t.eq(per_second(10, 1, T), {1, 9, -1, 100})
  redis.call('DEL', key) -- l.Reset
  t.eq(per_second(10, 1, T), {1, 9, -1, 100})
  t.eq(per_second(10, 2, T), {1, 7, -1, 300})
  t.eq(per_second(10, 7, T), {1, 0, -1, 1000})
  t.eq(per_second(10, 1000, T), {0, 0, 100000, 1000})
end

function test_redis_rate_TestAllowN_IncrementZero()
  t.eq(per_second(10, 0, T), {1, 10, -1, 0}, 'a look at a missing key')
  t.eq(redis.call('EXISTS', key), 0)
  t.eq(per_second(10, 1, T), {1, 9, -1, 100})
  t.eq(per_second(10, 0, T), {1, 9, -1, 100}, 'a look again')
end

function test_redis_rate_TestRetryAfter()
  -- Rate 1 per millisecond, burst 1: a refused call never waits more than 1 ms.
  local refused = 0
  for i = 0, 999 do
    local r = gcra.call({key}, {1, 1, 1, 1, T + math.floor(i / 3)})
    if r[1] == 0 then
      refused = refused + 1
      t.ok(r[3] <= 1, 'retry_after_ms ' .. r[3] .. ' > 1 at call ' .. i)
    end
  end
  t.ok(refused > 0, 'three calls a millisecond must be refused sometimes')
end

function test_readme_example()
  -- redis_rate's ExampleNewLimiter: Allow(PerSecond(10)) on a fresh key.
  local r = per_second(10, 1, T)
  t.eq({r[1], r[2]}, {1, 9})
end

function test_refills_one_request_per_interval()
  per_second(2, 2, T)
  t.eq(per_second(2, 1, T + 499), {0, 0, 1, 1000 - 499})
  t.eq(per_second(2, 1, T + 500), {1, 0, -1, 1000})
end

function test_burst_larger_than_rate()
  -- 1 request a second with bursts of 5.
  for i = 4, 0, -1 do
    t.eq(gcra.call({key}, {1, 5, 1000, 1, T})[2], i)
  end
  t.eq(gcra.call({key}, {1, 5, 1000, 1, T}), {0, 0, 1000, 5000})
end

function test_burst_zero_admits_nothing()
  t.eq(gcra.call({key}, {10, 0, 1000, 1, T}), {0, 0, 100, 0})
  t.eq(redis.call('EXISTS', key), 0)
end

function test_fractional_interval_waits_round_up()
  -- 3 a second: 333.33 ms apart. After a burst of 3 the wait is 333.33 ms,
  -- reported as 334 so that a caller sleeping it is never early.
  for _ = 1, 3 do gcra.call({key}, {3, 3, 1000, 1, T}) end
  local r = gcra.call({key}, {3, 3, 1000, 1, T})
  t.eq(r, {0, 0, 334, 1000})
  t.eq(gcra.call({key}, {3, 3, 1000, 1, T + 333})[1], 0)
  t.eq(gcra.call({key}, {3, 3, 1000, 1, T + 334})[1], 1)
end

function test_tat_is_stored_exactly()
  gcra.call({key}, {3, 3, 1000, 1, T})
  t.eq(tonumber(redis.call('GET', key)), T + 1000 / 3)
end

function test_key_expires_at_the_tat()
  per_second(10, 5, T)
  local ttl = redis.call('PTTL', key)
  t.ok(ttl > 400 and ttl <= 500, 'PTTL is new_tat - now, got ' .. ttl)
end

function test_denied_request_writes_nothing()
  per_second(1, 1, T)
  local before = redis.call('GET', key)
  t.eq(per_second(1, 1, T + 10)[1], 0)
  t.eq(redis.call('GET', key), before)
end

function test_clock_going_backwards_does_not_refill()
  per_second(2, 2, T + 10000)
  t.eq(per_second(2, 1, T), {0, 0, 10500, 11000}, 'the TAT is in the caller\'s future')
  t.eq(per_second(2, 1, T + 10500), {1, 0, -1, 1000})
end

function test_garbage_state_counts_as_none()
  redis.call('SET', key, 'not a time')
  t.eq(per_second(10, 1, T), {1, 9, -1, 100})
end

function test_bad_arguments_are_errors_and_write_nothing()
  local cases = {
    {{0, 1, 1000}, 'ERR rate must be a positive integer'},
    {{'ten', 1, 1000}, 'ERR rate must be a positive integer'},
    {{1, -1, 1000}, 'ERR burst must be a non-negative integer'},
    {{1, 1, 0}, 'ERR period_ms must be a positive integer'},
    {{1, 1, 2.5}, 'ERR period_ms must be a positive integer'},
    {{1, 1, 1000, -2}, 'ERR cost must be a non-negative integer'},
    {{1, 1, 1000, 1, 'x'}, 'ERR now_ms must be a non-negative integer'},
  }
  for _, c in ipairs(cases) do
    t.eq(gcra.pcall({key}, c[1]), {err = c[2]}, table.concat(c[1], ' '))
  end
  t.eq(redis.call('EXISTS', key), 0)
end

function test_server_time_when_now_is_omitted()
  t.eq(gcra.call({key}, {10, 2, 1000}), {1, 1, -1, 100})
  t.eq(gcra.call({key}, {10, 2, 1000})[1], 1)
  local r = gcra.call({key}, {10, 2, 1000})
  t.eq(r[1], 0)
  t.ok(r[3] > 0 and r[3] <= 100, 'retry_after_ms within one interval, got ' .. r[3])
  clock.advance(r[3] + 5)
  t.eq(gcra.call({key}, {10, 2, 1000})[1], 1)
end

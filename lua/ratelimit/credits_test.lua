-- Tests for credits.lua. Explicit now_ms except in the last tests, which use
-- the server's clock with short timeframes.

local credits = script('credits')
local key = 'credits:{tigerfeeding}'
local T = 1700000000000

function test_spends_credits_then_refuses_until_the_next_timeframe()
  for i = 2, 0, -1 do
    t.eq(credits.call({key}, {3, 10000, 1, T + (2 - i) * 1000}), {1, i, -1, 10000 - (2 - i) * 1000})
  end
  t.eq(credits.call({key}, {3, 10000, 1, T + 4000}), {0, 0, 6000, 6000})
  t.eq(credits.call({key}, {3, 10000, 1, T + 9999}), {0, 0, 1, 1}, 'last millisecond of the timeframe')
  t.eq(credits.call({key}, {3, 10000, 1, T + 10000}), {1, 2, -1, 10000}, 'a new timeframe starts at this request')
end

function test_timeframe_starts_with_the_first_request_after_an_idle_gap()
  credits.call({key}, {1, 1000, 1, T})
  t.eq(credits.call({key}, {1, 1000, 1, T + 5500}), {1, 0, -1, 1000})
  t.eq(credits.call({key}, {1, 1000, 1, T + 6400}), {0, 0, 100, 100})
end

function test_refused_requests_spend_nothing()
  credits.call({key}, {2, 1000, 2, T})
  for _ = 1, 5 do credits.call({key}, {2, 1000, 1, T + 1}) end
  t.eq(redis.call('HGET', key, 'u'), '2')
end

function test_weighted_requests()
  t.eq(credits.call({key}, {10, 1000, 7, T}), {1, 3, -1, 1000})
  t.eq(credits.call({key}, {10, 1000, 4, T}), {0, 3, 1000, 1000})
  t.eq(credits.call({key}, {10, 1000, 3, T}), {1, 0, -1, 1000})
end

function test_cost_above_credits_never_passes()
  t.eq(credits.call({key}, {10, 1000, 11, T}), {0, 10, -1, 1000})
  t.eq(redis.call('EXISTS', key), 0)
end

function test_cost_zero_looks()
  t.eq(credits.call({key}, {10, 1000, 0, T}), {1, 10, -1, 1000})
  t.eq(redis.call('EXISTS', key), 0)
end

function test_idle_pool_expires_with_its_timeframe()
  credits.call({key}, {10, 1000, 1, T})
  credits.call({key}, {10, 1000, 1, T + 400})
  local ttl = redis.call('PTTL', key)
  t.ok(ttl > 500 and ttl <= 600, 'PTTL is the rest of the timeframe, got ' .. ttl)
end

function test_clock_going_backwards_stays_in_the_timeframe()
  credits.call({key}, {2, 1000, 1, T + 5000})
  t.eq(credits.call({key}, {2, 1000, 1, T}), {1, 0, -1, 6000})
  t.eq(credits.call({key}, {2, 1000, 1, T}), {0, 0, 6000, 6000})
  t.eq(redis.call('HGET', key, 's'), tostring(T + 5000), 'the start never moves back')
end

function test_bad_arguments_are_errors_and_write_nothing()
  local cases = {
    {{0, 1000}, 'ERR credits must be a positive integer'},
    {{'many', 1000}, 'ERR credits must be a positive integer'},
    {{3, 0}, 'ERR window_ms must be a positive integer'},
    {{3, 1000, 0.5}, 'ERR cost must be a non-negative integer'},
    {{3, 1000, 1, -1}, 'ERR now_ms must be a non-negative integer'},
  }
  for _, c in ipairs(cases) do
    t.eq(credits.pcall({key}, c[1]), {err = c[2]}, table.concat(c[1], ' '))
  end
  t.eq(redis.call('EXISTS', key), 0)
end

function test_server_time_when_now_is_omitted()
  t.eq(credits.call({key}, {2, 300})[1], 1)
  t.eq(credits.call({key}, {2, 300})[1], 1)
  local r = credits.call({key}, {2, 300})
  t.eq(r[1], 0)
  t.ok(r[3] > 0 and r[3] <= 300, 'retry_after_ms within the timeframe, got ' .. r[3])
  clock.advance(r[3] + 5)
  t.eq(credits.call({key}, {2, 300})[1], 1)
end

-- Tests for token_bucket.lua. Most pass now_ms, so they mean the same on the
-- embedded engine and on a real Redis; the last ones use the server's clock.

local tb = script('token_bucket')
local key = 'tb:{alice}'
local T = 1700000000000

function test_starts_full_and_empties_one_token_at_a_time()
  for i = 4, 0, -1 do
    t.eq(tb.call({key}, {5, 1, 1000, 1, T}), {1, i, -1, (5 - i) * 1000}, 'token ' .. (5 - i))
  end
  t.eq(tb.call({key}, {5, 1, 1000, 1, T}), {0, 0, 1000, 5000}, 'empty bucket')
end

function test_refills_continuously()
  tb.call({key}, {2, 1, 1000, 2, T})
  t.eq(tb.call({key}, {2, 1, 1000, 1, T + 999}), {0, 0, 1, 1001}, 'one ms short')
  t.eq(tb.call({key}, {2, 1, 1000, 1, T + 1000}), {1, 0, -1, 2000})
  -- 3 tokens a second: one token takes 333.33 ms, so 334 ms are needed.
  local k2 = 'tb:{bob}'
  tb.call({k2}, {3, 3, 1000, 3, T})
  t.eq(tb.call({k2}, {3, 3, 1000, 1, T + 333})[1], 0)
  t.eq(tb.call({k2}, {3, 3, 1000, 1, T + 334})[1], 1)
end

function test_refill_stops_at_capacity()
  tb.call({key}, {3, 1, 100, 1, T})
  t.eq(tb.call({key}, {3, 1, 100, 0, T + 1000000}), {1, 3, -1, 0}, 'long idle: full, not more')
end

function test_weighted_requests()
  t.eq(tb.call({key}, {5, 1, 1000, 3, T}), {1, 2, -1, 3000})
  t.eq(tb.call({key}, {5, 1, 1000, 3, T}), {0, 2, 1000, 3000}, 'needs one more token')
  t.eq(tb.call({key}, {5, 1, 1000, 2, T}), {1, 0, -1, 5000})
end

function test_cost_above_capacity_never_passes_and_writes_nothing()
  t.eq(tb.call({key}, {5, 1, 1000, 6, T}), {0, 5, -1, 0})
  t.eq(redis.call('EXISTS', key), 0)
end

function test_cost_zero_looks_without_writing()
  t.eq(tb.call({key}, {5, 1, 1000, 0, T}), {1, 5, -1, 0})
  t.eq(redis.call('EXISTS', key), 0, 'a full bucket is no key')
  tb.call({key}, {5, 1, 1000, 2, T})
  t.eq(tb.call({key}, {5, 1, 1000, 0, T + 500}), {1, 3, -1, 1500})
  t.eq(redis.call('HGET', key, 't'), tostring(T), 'a look does not move the state')
end

function test_denied_request_writes_nothing()
  tb.call({key}, {1, 1, 1000, 1, T})
  local before = redis.call('HGETALL', key)
  t.eq(tb.call({key}, {1, 1, 1000, 1, T + 10})[1], 0)
  t.eq(redis.call('HGETALL', key), before)
end

function test_key_expires_when_the_bucket_is_full_again()
  t.eq(tb.call({key}, {4, 2, 1000, 3, T}), {1, 1, -1, 1500})
  local ttl = redis.call('PTTL', key)
  t.ok(ttl > 1400 and ttl <= 1500, 'PTTL is the time to full, got ' .. ttl)
  -- Whoever finds the bucket full again removes the key.
  t.eq(tb.call({key}, {4, 2, 1000, 0, T + 1500}), {1, 4, -1, 0})
  t.eq(redis.call('EXISTS', key), 0)
end

function test_refill_to_full_then_admit_rewrites_state()
  tb.call({key}, {2, 1, 1000, 1, T})
  t.eq(tb.call({key}, {2, 1, 1000, 1, T + 5000}), {1, 1, -1, 1000})
  t.eq(redis.call('HMGET', key, 'l', 't'), {'1000', tostring(T + 5000)})
end

function test_clock_going_backwards_refills_nothing()
  tb.call({key}, {3, 1, 1000, 3, T + 10000})
  t.eq(tb.call({key}, {3, 1, 1000, 1, T}), {0, 0, 1000, 3000}, 'earlier than the stored time')
  t.eq(tb.call({key}, {3, 1, 1000, 1, T + 11000}), {1, 0, -1, 3000})
  -- The stored time never moves back.
  tb.call({key}, {3, 1, 1000, 0, T + 5000})
  t.eq(redis.call('HGET', key, 't'), tostring(T + 11000))
end

function test_lowered_capacity_caps_the_saved_level()
  tb.call({key}, {10, 1, 1000, 1, T})
  t.eq(tb.call({key}, {3, 1, 1000, 1, T}), {1, 2, -1, 1000})
end

function test_a_stored_level_that_is_not_a_number_reads_as_full()
  -- Only a hand-written key holds one; the cap takes it as math.min would.
  redis.call('HSET', key, 'l', 'nan', 't', T)
  t.eq(tb.call({key}, {3, 1, 1000, 1, T + 10}), {1, 2, -1, 1000})
  t.eq(redis.call('HMGET', key, 'l', 't'), {'2000', tostring(T + 10)})
end

function test_large_values_stay_exact()
  local cap, period = 1000000, 3600000 -- a million tokens an hour
  t.eq(tb.call({key}, {cap, cap, period, 1, T}), {1, cap - 1, -1, 4})
  t.eq(tb.call({key}, {cap, cap, period, 1, T + 4}), {1, cap - 1, -1, 4})
end

function test_bad_arguments_are_errors_and_write_nothing()
  local cases = {
    {{0, 1, 1000}, 'ERR capacity must be a positive integer'},
    {{'x', 1, 1000}, 'ERR capacity must be a positive integer'},
    {{1.5, 1, 1000}, 'ERR capacity must be a positive integer'},
    {{5, 0, 1000}, 'ERR rate must be a positive integer'},
    {{5, 1, -1}, 'ERR period_ms must be a positive integer'},
    {{5, 1, 1000, -1}, 'ERR cost must be a non-negative integer'},
    {{5, 1, 1000, 'two'}, 'ERR cost must be a non-negative integer'},
    {{5, 1, 1000, 1, -5}, 'ERR now_ms must be a non-negative integer'},
    {{5, 1, 1000, 1, 'now'}, 'ERR now_ms must be a non-negative integer'},
    {{1000000000, 1, 10000000}, 'ERR capacity (and cost) times period_ms must stay below 2^53'},
    {{'9007199254740993', 1, 1}, 'ERR capacity must be a positive integer'},
    {{'nan', 1, 1}, 'ERR capacity must be a positive integer'},
    {{'inf', 1, 1}, 'ERR capacity must be a positive integer'},
  }
  for _, c in ipairs(cases) do
    t.eq(tb.pcall({key}, c[1]), {err = c[2]}, table.concat(c[1], ' '))
  end
  t.eq(redis.call('EXISTS', key), 0)
end

function test_exponent_notation_is_read_as_redis_reads_it()
  -- Redis's Lua (5.1, strtod) reads '1e15' and 'inf' as numbers: the first
  -- is then too large for the level, the second not an integer.
  t.eq(tb.pcall({key}, {'1e15', 1, 1000}), {err = 'ERR capacity (and cost) times period_ms must stay below 2^53'})
  t.eq(tb.pcall({key}, {'2e0', 1, 1000, 1, T}), {1, 1, -1, 1000})
end

function test_wrong_type_key_is_an_error()
  redis.call('SET', key, 'x')
  local r = tb.pcall({key}, {5, 1, 1000})
  t.ok(r.err and r.err:find('WRONGTYPE'), 'want WRONGTYPE, got ' .. tostring(r.err))
end

function test_server_time_when_now_is_omitted()
  -- Two tokens, one more every 100 ms.
  t.eq(tb.call({key}, {2, 1, 100}), {1, 1, -1, 100})
  t.eq(tb.call({key}, {2, 1, 100})[1], 1)
  local r = tb.call({key}, {2, 1, 100})
  t.eq(r[1], 0)
  t.ok(r[3] > 0 and r[3] <= 100, 'retry_after_ms within one refill, got ' .. r[3])
  clock.advance(120)
  t.eq(tb.call({key}, {2, 1, 100})[1], 1)
end

function test_empty_now_means_server_time()
  t.eq(tb.call({key}, {2, 1, 100, 1, ''}), {1, 1, -1, 100})
end

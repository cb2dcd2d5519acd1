-- Tests for window.lua, with explicit now_ms except the last one. T is a
-- whole number of seconds, so fixed windows start at T.

local window = script('window')
local user, ip = 'rl:{acct7}:user', 'rl:{acct7}:ip'
local T = 1700000000000

local function call(limits, cost, now, keys)
  return window.call(keys or {user}, {limits, cost, now})
end

function test_fixed_window_resets_at_its_boundary()
  for i = 2, 0, -1 do
    t.eq(call('[[1000,3]]', 1, T + 100), {1, i, -1, 900})
  end
  t.eq(call('[[1000,3]]', 1, T + 500), {0, 0, 500, 500})
  t.eq(call('[[1000,3]]', 1, T + 999), {0, 0, 1, 1})
  t.eq(call('[[1000,3]]', 1, T + 1000), {1, 2, -1, 1000})
end

function test_sliding_window_frees_oldest_sub_bucket_first()
  local l = '[[1000,4,250]]'
  call(l, 2, T)
  call(l, 1, T + 250)
  t.eq(call(l, 1, T + 500), {1, 0, -1, 1000})
  t.eq(call(l, 1, T + 750), {0, 0, 250, 750}, 'the two at T leave at T+1000')
  t.eq(call(l, 3, T + 1000), {0, 2, 250, 500}, 'two left with T; the third frees at T+1250')
  t.eq(call(l, 2, T + 1000), {1, 0, -1, 1000})
end

function test_several_limits_at_once()
  local l = '[[1000,2],[10000,3,1000]]'
  t.eq(call(l, 1, T), {1, 1, -1, 10000})
  t.eq(call(l, 1, T), {1, 0, -1, 10000})
  t.eq(call(l, 1, T + 500), {0, 0, 500, 9500}, 'the per-second limit')
  t.eq(call(l, 1, T + 1000), {1, 0, -1, 10000})
  t.eq(call(l, 1, T + 2000), {0, 0, 8000, 9000}, 'the ten-second limit: the two at T leave at T+10000')
  t.eq(redis.call('HGET', user, 'r1000:1000:'), '1', 'the refused request charged no limit (a refusal writes nothing)')
end

function test_only_admitted_requests_count()
  -- The lesson of "Introduction to rate limiting with Redis [Part 2]":
  -- 1 a second and 3 per 10 s, asked every 100 ms for 3 s, admits 3.
  -- Counting refusals would fill the 10 s limit at once.
  local l = '[[10000,3,1000],[1000,1]]'
  local admitted = 0
  for i = 0, 29 do
    admitted = admitted + call(l, 1, T + i * 100)[1]
  end
  t.eq(admitted, 3)
end

function test_weighted_requests()
  t.eq(call('[[1000,10]]', 7, T), {1, 3, -1, 1000})
  t.eq(call('[[1000,10]]', 4, T), {0, 3, 1000, 1000})
  t.eq(call('[[1000,10]]', 3, T), {1, 0, -1, 1000})
end

function test_cost_above_a_limit_never_passes()
  t.eq(call('[[1000,10],[60000,5,1000]]', 6, T), {0, 5, -1, 0})
  t.eq(redis.call('EXISTS', user), 0)
end

function test_cost_zero_looks()
  call('[[1000,10]]', 4, T)
  t.eq(call('[[1000,10]]', 0, T + 200), {1, 6, -1, 800})
  t.eq(redis.call('HGET', user, 'r1000:1000:'), '4')
end

function test_identifiers_are_charged_together()
  local l = '[[1000,2]]'
  t.eq(call(l, 1, T, {user, ip}), {1, 1, -1, 1000})
  t.eq(call(l, 1, T, {'rl:{acct7}:user2', ip}), {1, 0, -1, 1000})
  -- The IP is full: the user is refused and not charged.
  t.eq(call(l, 1, T, {user, ip}), {0, 0, 1000, 1000})
  t.eq(redis.call('HGET', user, 'r1000:1000:'), '1')
  t.eq(redis.call('HGET', ip, 'r1000:1000:'), '2')
end

function test_precision_above_duration_is_a_fixed_window()
  t.eq(call('[[1000,1,5000]]', 1, T + 300), {1, 0, -1, 700})
  t.eq(redis.call('HEXISTS', user, 'r1000:1000:'), 1)
end

function test_precision_not_dividing_duration_rounds_up()
  -- 1000 ms in 300 ms steps: four sub-buckets, 1200 ms. T is 200 ms into
  -- its sub-bucket, so its request counts until that sub-bucket's end + 900.
  t.eq(T % 300, 200)
  t.eq(call('[[1000,1,300]]', 1, T), {1, 0, -1, 1000})
  t.eq(call('[[1000,1,300]]', 1, T + 999), {0, 0, 1, 1})
  t.eq(call('[[1000,1,300]]', 1, T + 1000)[1], 1)
end

function test_fine_precision_after_a_long_idle_spell()
  local l = '[[1000,200,1]]'
  for i = 0, 99 do call(l, 1, T + i) end
  t.eq(redis.call('HLEN', user), 100 + 3 + 1, 'sub-buckets, count, mark, oldest held, t')
  t.eq(redis.call('HGET', user, 'r1000:1:f'), tostring(T), 'the oldest held: the first')
  t.eq(call(l, 1, T + 5000), {1, 199, -1, 1000})
  t.eq(redis.call('HGET', user, 'r1000:1:f'), tostring(T + 5000), 'found again once behind the window')
  t.eq(redis.call('HGET', user, 'r1000:1:'), '1', 'every stale sub-bucket taken off the count')
  t.eq(redis.call('HGET', user, 'r1000:1:0'), (T + 5000) .. ':1', 'slot 0 written over')
  t.eq(redis.call('HLEN', user), 100 + 3 + 1, 'stale slots stay until the ring comes round')
  for i = 1, 1200 do t.eq(call('[[1000,100000,1]]', 1, T + i, {ip})[1], 1) end
  t.eq(redis.call('HLEN', ip), 1000 + 3 + 1, 'never more slots than the window has sub-buckets')
  t.eq(redis.call('HGET', ip, 'r1000:1:'), '1000', 'the 200 oldest taken off')
end

function test_sub_buckets_roll_off_one_by_one()
  local l = '[[1000,100,10]]'
  for i = 0, 9 do call(l, 1, T + i * 10) end
  -- At T+1050 the window holds sub-buckets from T+60 on: six left.
  t.eq(call(l, 0, T + 1050), {1, 96, -1, 40})
  t.eq(redis.call('HGET', user, 'r1000:10:'), '10', 'a look writes nothing')
  t.eq(call(l, 1, T + 1050), {1, 95, -1, 1000})
  t.eq(redis.call('HGET', user, 'r1000:10:'), '5', 'the charge took the four that left off')
end

function test_idle_identifiers_expire()
  call('[[1000,3],[5000,10,500]]', 1, T + 200)
  local ttl = redis.call('PTTL', user)
  -- The 5 s window's current sub-bucket started at T: it ends at T+5000.
  t.ok(ttl > 4700 and ttl <= 4800, 'PTTL is the end of the longest window, got ' .. ttl)
end

function test_clock_going_backwards_counts_at_the_last_time()
  call('[[1000,5]]', 1, T + 5100)
  t.eq(call('[[1000,5]]', 1, T), {1, 3, -1, 900})
  t.eq(redis.call('HGET', user, 't'), tostring(T + 5100))
  t.eq(redis.call('HGET', user, 'r1000:1000:0'), ((T + 5000) / 1000) .. ':2')
end

function test_bad_arguments_are_errors_and_write_nothing()
  local shape = 'ERR limits must be a JSON array of [duration_ms, limit, precision_ms?]'
  local item = 'ERR limits[1] must be [duration_ms, limit, precision_ms?], all positive integers'
  local cases = {
    {{'nope'}, shape},
    {{'[]'}, shape},
    {{'{"a":1}'}, shape},
    {{'[[1000]]'}, item},
    {{'[[1000,5,10,1]]'}, item},
    {{'[[0,5]]'}, item},
    {{'[[1000,0]]'}, item},
    {{'[[1000,5,0]]'}, item},
    {{'[[1000,5.5]]'}, item},
    {{'["x"]'}, item},
    {{'[[1000,5]]', -1}, 'ERR cost must be a non-negative integer'},
    {{'[[1000,5]]', 1, 'later'}, 'ERR now_ms must be a non-negative integer'},
  }
  for _, c in ipairs(cases) do
    t.eq(window.pcall({user}, c[1]), {err = c[2]}, table.concat(c[1], ' '))
  end
  t.eq(window.pcall({user}, {'[[1000,5],[1000,-1]]'}), {err = 'ERR limits[2] must be [duration_ms, limit, precision_ms?], all positive integers'})
  t.eq(window.pcall({}, {'[[1000,5]]'}), {err = 'ERR window needs at least one identifier key'})
  t.eq(redis.call('EXISTS', user), 0)
end

function test_server_time_when_now_is_omitted()
  local l = '[[300,2,100]]'
  t.eq(window.call({user}, {l})[1], 1)
  t.eq(window.call({user}, {l})[1], 1)
  local r = window.call({user}, {l})
  t.eq(r[1], 0)
  t.ok(r[3] > 0 and r[3] <= 300, 'retry_after_ms within the window, got ' .. r[3])
  clock.advance(r[3] + 5)
  t.eq(window.call({user}, {l})[1], 1)
end

function test_an_identifier_named_twice_is_charged_once()
  -- Each name is checked against the same count, so the request is charged
  -- once: it was checked once.
  t.eq(call('[[1000,2]]', 1, T, {user, user}), {1, 1, -1, 1000})
  t.eq(redis.call('HGET', user, 'r1000:1000:'), '1')
  t.eq(call('[[1000,2]]', 1, T, {user, user}), {1, 0, -1, 1000})
  t.eq(call('[[1000,2]]', 1, T, {user, user})[1], 0)
end

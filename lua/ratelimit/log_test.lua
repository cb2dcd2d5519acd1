-- Tests for log.lua, with explicit now_ms except the last one.

local log = script('log')
local client, resource = 'log:{zoo}:bob', 'log:{zoo}:tigerfeeding'
local T = 1700000000000

-- The harness has no cjson: limits are written out as JSON here.
local function json(pairs)
  local parts = {}
  for i, p in ipairs(pairs) do parts[i] = '[' .. p[1] .. ',' .. p[2] .. ']' end
  return '[' .. table.concat(parts, ',') .. ']'
end

local function one(limit, cost, now, window)
  return log.call({client}, {json({{window or 1000, limit}}), cost, now})
end

function test_admits_up_to_the_limit_in_any_window()
  t.eq(one(3, 1, T), {1, 2, -1, 1000})
  t.eq(one(3, 1, T + 100), {1, 1, -1, 1000})
  t.eq(one(3, 1, T + 200), {1, 0, -1, 1000})
  t.eq(one(3, 1, T + 300), {0, 0, 700, 900}, 'the first entry leaves at T+1000')
  t.eq(one(3, 1, T + 999)[1], 0, 'still inside the window')
  t.eq(one(3, 1, T + 1000), {1, 0, -1, 1000}, 'the first entry left')
end

function test_refused_requests_are_not_logged()
  one(1, 1, T)
  for i = 1, 10 do t.eq(one(1, 1, T + i)[1], 0) end
  t.eq(redis.call('ZCARD', client), 1)
  t.eq(one(1, 1, T + 1000)[1], 1, 'a client retrying all along is admitted once the window slides')
end

function test_members_are_unique_within_a_millisecond()
  for _ = 1, 5 do t.eq(one(10, 1, T)[1], 1) end
  t.eq(redis.call('ZCARD', client), 5)
  t.eq(redis.call('ZRANGE', client, 0, -1), {T .. ':1', T .. ':2', T .. ':3', T .. ':4', T .. ':5'})
end

function test_weighted_requests()
  t.eq(one(10, 4, T), {1, 6, -1, 1000})
  t.eq(one(10, 7, T + 10), {0, 6, 990, 990}, 'must wait for the first 4')
  t.eq(one(10, 6, T + 10), {1, 0, -1, 1000})
  t.eq(redis.call('ZCARD', client), 10)
end

function test_large_weight_is_added_in_batches()
  t.eq(one(2000, 1234, T), {1, 766, -1, 1000})
  t.eq(redis.call('ZCARD', client), 1234)
end

function test_cost_above_limit_never_passes()
  t.eq(one(3, 4, T), {0, 3, -1, 0})
  t.eq(redis.call('EXISTS', client), 0)
end

function test_cost_zero_looks()
  one(3, 2, T)
  t.eq(one(3, 0, T + 500), {1, 1, -1, 500})
  t.eq(redis.call('ZCARD', client), 2)
end

function test_client_and_resource_all_or_nothing()
  local limits = json({{1000, 5}, {1000, 2}})
  t.eq(log.call({client, resource}, {limits, 1, T}), {1, 1, -1, 1000})
  t.eq(log.call({'log:{zoo}:alice', resource}, {json({{1000, 5}, {1000, 2}}), 1, T}), {1, 0, -1, 1000})
  -- The resource is full: bob is refused and his own log is not charged.
  t.eq(log.call({client, resource}, {limits, 1, T + 1}), {0, 0, 999, 999})
  t.eq(redis.call('ZCARD', client), 1)
  t.eq(redis.call('ZCARD', resource), 2)
end

function test_each_key_has_its_own_window()
  local limits = json({{100, 1}, {10000, 5}})
  t.eq(log.call({client, resource}, {limits, 1, T}), {1, 0, -1, 10000})
  t.eq(log.call({client, resource}, {limits, 1, T + 50}), {0, 0, 50, 9950})
  t.eq(log.call({client, resource}, {limits, 1, T + 100}), {1, 0, -1, 10000})
  t.eq(redis.call('ZCARD', resource), 2)
end

function test_idle_logs_expire_after_their_window()
  one(3, 1, T, 500)
  local ttl = redis.call('PTTL', client)
  t.ok(ttl > 400 and ttl <= 500, 'PTTL is the window, got ' .. ttl)
end

function test_clock_going_backwards_counts_at_the_newest_entry()
  one(3, 1, T + 5000)
  t.eq(one(3, 1, T), {1, 1, -1, 1000})
  t.eq(redis.call('ZRANGE', client, 0, -1, 'WITHSCORES'), {(T + 5000) .. ':1', tostring(T + 5000), (T + 5000) .. ':2', tostring(T + 5000)})
end

function test_bad_arguments_are_errors_and_write_nothing()
  local shape = 'ERR limits must be a JSON array with one [window_ms, limit] per key'
  local cases = {
    {{'not json'}, shape},
    {{'{}'}, shape},
    {{'[]'}, shape},
    {{'[[1000, 5], [1000, 5]]'}, shape},
    {{'[[1000]]'}, 'ERR limits[1] must be [window_ms, limit], both positive integers'},
    {{'[[0, 5]]'}, 'ERR limits[1] must be [window_ms, limit], both positive integers'},
    {{'[[1000, 1.5]]'}, 'ERR limits[1] must be [window_ms, limit], both positive integers'},
    {{'[5]'}, 'ERR limits[1] must be [window_ms, limit], both positive integers'},
    {{'[[1000, 5]]', -1}, 'ERR cost must be a non-negative integer'},
    {{'[[1000, 5]]', 1, 'x'}, 'ERR now_ms must be a non-negative integer'},
  }
  for _, c in ipairs(cases) do
    t.eq(log.pcall({client}, c[1]), {err = c[2]}, table.concat(c[1], ' '))
  end
  t.eq(log.pcall({}, {'[]'}), {err = 'ERR log needs at least one key'})
  t.eq(redis.call('EXISTS', client), 0)
end

function test_server_time_when_now_is_omitted()
  local limits = json({{200, 2}})
  t.eq(log.call({client}, {limits})[1], 1)
  t.eq(log.call({client}, {limits})[1], 1)
  local r = log.call({client}, {limits})
  t.eq(r[1], 0)
  t.ok(r[3] > 0 and r[3] <= 200, 'retry_after_ms within the window, got ' .. r[3])
  clock.advance(r[3] + 5)
  t.eq(log.call({client}, {limits})[1], 1)
end

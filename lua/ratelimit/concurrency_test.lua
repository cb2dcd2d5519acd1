-- Tests for concurrency.lua, with explicit now_ms except the last one.

local conc = script('concurrency')
local key = 'inflight:{api}'
local T = 1700000000000

local function acquire(id, now, limit, ttl)
  return conc.call({key}, {limit or 2, id, ttl or 1000, 0, now or T})
end

local function release(id, now)
  return conc.call({key}, {2, id, 1000, 1, now or T})
end

function test_admits_up_to_limit_in_flight()
  t.eq(acquire('a'), {1, 1, -1, 1000})
  t.eq(acquire('b', T + 100), {1, 0, -1, 1000})
  t.eq(acquire('c', T + 200), {0, 0, 800, 900}, 'full: first slot frees in 800 ms')
  t.eq(redis.call('ZCARD', key), 2, 'a refused request takes no slot')
end

function test_release_frees_a_slot()
  acquire('a'); acquire('b')
  t.eq(release('a', T + 10), {1, 1, -1, 990})
  t.eq(acquire('c', T + 20), {1, 0, -1, 1000})
end

function test_release_of_the_slot_expiring_last()
  acquire('a'); acquire('b', T + 100)
  t.eq(release('b', T + 10), {1, 1, -1, 990}, 'reset: until a expires')
  t.eq(redis.call('ZRANGE', key, 0, -1), {'a'})
  local ttl = redis.call('PTTL', key)
  t.ok(ttl > 900 and ttl <= 990, 'the key lives until a expires, got ' .. ttl)
  t.eq(release('a', T + 20), {1, 2, -1, 0})
  t.eq(redis.call('EXISTS', key), 0, 'no slot left, no key')
end

function test_release_of_an_unknown_or_expired_id_answers_0()
  t.eq(release('nobody'), {0, 2, -1, 0})
  acquire('a')
  t.eq(release('a', T + 1000), {0, 2, -1, 0}, 'expired at its ttl')
  t.eq(redis.call('EXISTS', key), 0)
end

function test_dead_holders_slots_expire()
  acquire('a'); acquire('b')
  t.eq(acquire('c', T + 999)[1], 0)
  t.eq(acquire('c', T + 1000), {1, 1, -1, 1000}, 'both expired at T+1000')
end

function test_acquiring_again_extends_without_taking_a_second_slot()
  acquire('a')
  t.eq(acquire('a', T + 500), {1, 1, -1, 1000})
  t.eq(redis.call('ZSCORE', key, 'a'), tostring(T + 1500))
  -- A limit of 1 held by a: a may still extend.
  t.eq(acquire('a', T + 600, 1), {1, 0, -1, 1000})
end

function test_extension_never_moves_expiry_earlier()
  acquire('a', T + 5000)
  acquire('a', T)
  t.eq(redis.call('ZSCORE', key, 'a'), tostring(T + 6000))
end

function test_per_request_ttl()
  acquire('short', T, 2, 100)
  acquire('long', T, 2, 5000)
  t.eq(acquire('c', T + 100), {1, 0, -1, 4900})
  local ttl = redis.call('PTTL', key)
  t.ok(ttl > 4800 and ttl <= 4900, 'key lives until the last slot expires, got ' .. ttl)
end

function test_lowered_limit_reports_no_room()
  acquire('a', T, 3); acquire('b', T, 3); acquire('c', T, 3)
  t.eq(acquire('d', T, 2), {0, 0, 1000, 1000})
end

function test_bad_arguments_are_errors_and_write_nothing()
  local cases = {
    {{0, 'a', 1000}, 'ERR limit must be a positive integer'},
    {{2, '', 1000}, 'ERR request_id must not be empty'},
    {{2, 'a', 0}, 'ERR ttl_ms must be a positive integer'},
    {{2, 'a', 1000, 'yes'}, 'ERR release must be 0 or 1'},
    {{2, 'a', 1000, 0, 'x'}, 'ERR now_ms must be a non-negative integer'},
  }
  for _, c in ipairs(cases) do
    t.eq(conc.pcall({key}, c[1]), {err = c[2]}, table.concat(c[1], ' '))
  end
  t.eq(conc.pcall({key}, {2}), {err = 'ERR request_id must not be empty'})
  t.eq(redis.call('EXISTS', key), 0)
end

function test_server_time_when_now_is_omitted()
  t.eq(conc.call({key}, {1, 'a', 150})[1], 1)
  local r = conc.call({key}, {1, 'b', 150})
  t.eq(r[1], 0)
  t.ok(r[3] > 0 and r[3] <= 150, 'retry_after_ms within the ttl, got ' .. r[3])
  clock.advance(r[3] + 5)
  t.eq(conc.call({key}, {1, 'b', 150})[1], 1)
end

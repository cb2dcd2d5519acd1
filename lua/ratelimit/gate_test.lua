-- Tests for gate.lua. Intervals are short so that the same tests run on a
-- real Redis (`scriptgen test --redis URL`), where clock.advance sleeps.

local gate = script('gate')
local key = 'gate:{bob}:feeding'

function test_first_call_passes_and_closes_the_gate()
  t.eq(gate.call({key}, {200}), {1, 0, -1, 200})
  local ttl = redis.call('PTTL', key)
  t.ok(ttl > 0 and ttl <= 200, 'gate TTL is the interval, got ' .. ttl)
end

function test_refused_while_the_gate_lives()
  gate.call({key}, {200})
  local r = gate.call({key}, {200})
  t.eq(r[1], 0)
  t.eq(r[2], 0)
  t.ok(r[3] > 0 and r[3] <= 200, 'retry_after_ms within the interval, got ' .. r[3])
  t.eq(r[4], r[3], 'the gate resets when it reopens')
end

function test_passes_again_after_the_interval()
  gate.call({key}, {250})
  clock.advance(100)
  t.eq(gate.call({key}, {250})[1], 0)
  clock.advance(160)
  t.eq(gate.call({key}, {250}), {1, 0, -1, 250})
end

function test_callers_are_independent()
  t.eq(gate.call({'gate:{alice}'}, {200})[1], 1)
  t.eq(gate.call({'gate:{bob}'}, {200})[1], 1)
  t.eq(gate.call({'gate:{alice}'}, {200})[1], 0)
end

function test_gate_without_expiry_is_repaired()
  -- A gate key written without a TTL must not admit (or refuse) forever.
  redis.call('SET', key, '1')
  t.eq(gate.call({key}, {200}), {0, 0, 200, 200})
  local ttl = redis.call('PTTL', key)
  t.ok(ttl > 0 and ttl <= 200, 'expiry restored, got ' .. ttl)
end

function test_bad_interval_is_an_error()
  for _, bad in ipairs({'0', '-5', '1.5', 'soon'}) do
    local r = gate.pcall({key}, {bad})
    t.eq(r, {err = 'ERR interval_ms must be a positive integer'}, 'interval ' .. bad)
  end
  t.eq(redis.call('EXISTS', key), 0, 'no gate created by a bad call')
end

function test_any_existing_key_is_a_closed_gate()
  -- SET NX looks at existence, not type: a key of another type under the
  -- gate's name closes the gate (and is given an expiry) rather than erroring.
  redis.call('HSET', key, 'f', 'v')
  t.eq(gate.call({key}, {200}), {0, 0, 200, 200})
  t.eq(redis.call('TYPE', key), {ok = 'hash'})
end

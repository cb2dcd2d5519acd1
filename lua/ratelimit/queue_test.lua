-- Tests for queue.lua.

local queue = script('queue')
local key = 'queue:{tigerfeeding}'

function test_admits_while_shorter_than_the_limit()
  for i = 2, 0, -1 do
    local r = queue.call({key}, {3, 'who', 'bob'})
    t.eq({r[1], r[2], r[3], r[4]}, {1, i, -1, 0})
    t.ok(r[5]:match('^%d+%-%d+$'), 'a stream ID, got ' .. r[5])
  end
  t.eq(queue.call({key}, {3, 'who', 'eve'}), {0, 0, 0, 0, ''})
  t.eq(redis.call('XLEN', key), 3, 'a refused request is not queued')
end

function test_entry_holds_the_fields()
  local id = queue.call({key}, {10, 'who', 'bob', 'what', 'tickets'})[5]
  t.eq(redis.call('XRANGE', key, '-', '+'), {{id, {'who', 'bob', 'what', 'tickets'}}})
end

function test_deleting_processed_entries_makes_room()
  local first = queue.call({key}, {2, 'n', '1'})[5]
  queue.call({key}, {2, 'n', '2'})
  t.eq(queue.call({key}, {2, 'n', '3'})[1], 0)
  -- A consumer reads with a group, acknowledges and deletes.
  redis.call('XGROUP', 'CREATE', key, 'workers', '0')
  local got = redis.call('XREADGROUP', 'GROUP', 'workers', 'w1', 'COUNT', 1, 'STREAMS', key, '>')
  t.eq(got[1][2][1][1], first)
  t.eq(queue.call({key}, {2, 'n', '3'})[1], 0, 'read but not deleted still counts')
  redis.call('XACK', key, 'workers', first)
  redis.call('XDEL', key, first)
  t.eq(queue.call({key}, {2, 'n', '3'})[1], 1)
end

function test_overfull_stream_refuses()
  for i = 1, 5 do redis.call('XADD', key, '*', 'n', i) end
  t.eq(queue.call({key}, {3, 'n', 'x'}), {0, 0, 0, 0, ''})
end

function test_bad_arguments_are_errors_and_write_nothing()
  local cases = {
    {{0, 'a', 'b'}, 'ERR limit must be a positive integer'},
    {{'ten', 'a', 'b'}, 'ERR limit must be a positive integer'},
    {{1.5, 'a', 'b'}, 'ERR limit must be a positive integer'},
    {{3}, 'ERR fields must be one or more field value pairs'},
    {{3, 'a'}, 'ERR fields must be one or more field value pairs'},
    {{3, 'a', 'b', 'c'}, 'ERR fields must be one or more field value pairs'},
  }
  for _, c in ipairs(cases) do
    t.eq(queue.pcall({key}, c[1]), {err = c[2]}, table.concat(c[1], ' '))
  end
  t.eq(redis.call('EXISTS', key), 0)
end

function test_wrong_type_key_is_an_error()
  redis.call('SET', key, 'x')
  local r = queue.pcall({key}, {3, 'a', 'b'})
  t.ok(r.err and r.err:find('WRONGTYPE'), 'want WRONGTYPE, got ' .. tostring(r.err))
end

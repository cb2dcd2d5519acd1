#!lua flags=no-writes
--! name: peek
--! doc: Reads the queue through a helper that sits next to it: a file that
--! doc: another @includes is not a script of its own.
--! key: wait
--! returns: []string
--! flags: no-writes
--- @include "peek_helper"
local function peekAll(key)
  return redis.call('LRANGE', key, 0, -1)
end
return peekAll(KEYS[1])

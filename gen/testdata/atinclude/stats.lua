--! name: stats
--! doc: Both include forms: the header's helper includes util, so the
--! doc: body's own @include of it pastes nothing.
--! key: wait
--! returns: first string, n int
--! include: common.lua
--- @include "includes/util"
return {tagged(redis.call('LINDEX', KEYS[1], 0) or ''), lengthOf(KEYS[1])}

-- A cycle back to push, which is being pasted: nothing.
--- @include "push.lua"
local function countJob(key)
  return rcall('INCR', key)
end

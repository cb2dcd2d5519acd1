--- @include "includes/util"
local function lengthOf(key)
  return redis.call('LLEN', key)
end

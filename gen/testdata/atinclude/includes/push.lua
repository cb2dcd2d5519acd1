--- @include "util"
--- @include "count"
local function pushJob(key, id)
  return rcall('RPUSH', key, tagged(id))
end

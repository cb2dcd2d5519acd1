--! name: a
local rcall = redis.call
  --- @include "includes/nope"
return 1

-- include: scalar_body.lua
-- Shared by the as_* scripts: each declares its own reply type for the same values.
local function scalar(k)
  if k == 'true' then return true end
  if k == 'false' then return false end
  if k == 'int' then return 42 end
  if k == 'float' then return '2.5' end
  if k == 'status' then return redis.status_reply('FINE') end
  if k == 'list' then return {1, 2, 3} end
  if k == 'json' then return '{"a":[1,2]}' end
  if k == 'string' then return 'hello' end
  return nil
end
--! name: as_duration
--! arg: kind string
--! returns: duration
--! include: scalar_body.lua
return scalar(ARGV[1])

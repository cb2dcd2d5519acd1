--! name: as_duration
--! arg: kind string
--! returns: duration
--! include: scalar_body.lua
return scalar(ARGV[1])

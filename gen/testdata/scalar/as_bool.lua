--! name: as_bool
--! arg: kind string
--! returns: bool
--! include: scalar_body.lua
return scalar(ARGV[1])

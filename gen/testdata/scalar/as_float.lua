--! name: as_float
--! arg: kind string
--! returns: float
--! include: scalar_body.lua
return scalar(ARGV[1])

--! name: as_int
--! arg: kind string
--! returns: int
--! include: scalar_body.lua
return scalar(ARGV[1])

--! name: as_string
--! arg: kind string
--! returns: string
--! include: scalar_body.lua
return scalar(ARGV[1])

--! name: as_status
--! arg: kind string
--! returns: status
--! include: scalar_body.lua
return scalar(ARGV[1])

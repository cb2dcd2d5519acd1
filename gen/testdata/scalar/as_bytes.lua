--! name: as_bytes
--! arg: kind string
--! returns: bytes
--! include: scalar_body.lua
return scalar(ARGV[1])

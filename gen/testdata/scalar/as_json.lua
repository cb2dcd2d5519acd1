--! name: as_json
--! arg: kind string
--! returns: json
--! include: scalar_body.lua
return scalar(ARGV[1])

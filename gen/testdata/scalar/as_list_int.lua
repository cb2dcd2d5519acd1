--! name: as_list_int
--! arg: kind string
--! returns: []int
--! include: scalar_body.lua
return scalar(ARGV[1])

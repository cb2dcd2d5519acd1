--! name: bye
--! arg: name string
--! returns: string
--! include: helpers.lua
return greet('bye', ARGV[1])

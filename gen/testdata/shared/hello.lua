--! name: hello
--! arg: name string
--! returns: string
--! include: helpers.lua
--! flags: no-writes
return greet('hello', ARGV[1])

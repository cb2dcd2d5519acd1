#!lua flags=no-writes
-- include: helpers.lua
-- Included by hello and bye: in a library it is defined once.
local function greet(word, name)
  return word .. ', ' .. name
end
--! name: hello
--! arg: name string
--! returns: string
--! include: helpers.lua
--! flags: no-writes
return greet('hello', ARGV[1])

-- include: helpers.lua
-- Included by hello and bye: in a library it is defined once.
local function greet(word, name)
  return word .. ', ' .. name
end
--! name: bye
--! arg: name string
--! returns: string
--! include: helpers.lua
return greet('bye', ARGV[1])

-- Included by hello and bye: in a library it is defined once.
local function greet(word, name)
  return word .. ', ' .. name
end

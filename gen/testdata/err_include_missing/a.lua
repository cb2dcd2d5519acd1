--! include: nope.lua
return 1

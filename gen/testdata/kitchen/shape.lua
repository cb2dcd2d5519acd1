--! name: shape
--! doc: Replies in the shape asked for, to exercise the reply checks.
--! arg: mode string   ok, short, type or bool
--! returns: n int, ok bool
local mode = ARGV[1]
if mode == 'short' then return {1} end
if mode == 'type' then return {'x', 1} end
if mode == 'bool' then return {1, 2} end
return {1, false}

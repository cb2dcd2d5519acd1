--! name: enqueue
--! doc: Pushes a job id onto a queue and counts it, through BullMQ-style
--! doc: helpers: included where the line is, so they can use rcall.
--! key: wait
--! key: count
--! arg: id string
--! returns: length int, total int
local rcall = redis.call
--- @include "includes/push"
--- @include "includes/count"
-- @include "includes/util" (pasted by push already: nothing)
return {pushJob(KEYS[1], ARGV[1]), countJob(KEYS[2])}

--! name: cross_slot
--! returns: int
return 1

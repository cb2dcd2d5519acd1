--! name: load
--! returns: int
return 1

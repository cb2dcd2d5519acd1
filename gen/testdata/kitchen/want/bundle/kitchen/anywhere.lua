#!lua flags=allow-cross-slot-keys
--! name: anywhere
--! doc: Counts its keys; it is allowed to take keys of any slot.
--! key: keys...
--! returns: int
return #KEYS

#!lua flags=allow-cross-slot-keys
--! name: mirror
--! doc: Copies a value to a region's replica key, wherever its slot is.
--! key: src = {name}
--! key: dst = copy:{region}:<name>
--! returns: status
return redis.call('SET', KEYS[2], redis.call('GET', KEYS[1]))

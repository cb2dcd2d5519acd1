--! name: plain
--! doc: A key without a pattern, and braces in its doc {like these}: no helpers.
--! key: k   any {key}
--! returns: int
return redis.call('EXISTS', KEYS[1])

--! name: tail
--! doc: A defaulted arg, then optional ones: the common shape of a limiter
--! doc: (cost = 1, now_ms?).
--! arg: cost int = 1
--! arg: label string?
--! arg: now_ms int?
--! returns: []string
return ARGV

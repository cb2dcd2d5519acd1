--! name: peek
--! doc: Reads the queue through a helper that sits next to it: a file that
--! doc: another @includes is not a script of its own.
--! key: wait
--! returns: []string
--! flags: no-writes
--- @include "peek_helper"
return peekAll(KEYS[1])

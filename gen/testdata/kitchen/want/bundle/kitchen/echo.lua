#!lua flags=no-writes
--! name: echo
--! doc: Returns its KEYS and ARGV as received, so that a test can check the
--! doc: wire encoding of every arg type.
--! key: first          any key
--! key: rest...        more keys, in the same slot
--! arg: i int
--! arg: f float
--! arg: s string
--! arg: b bool
--! arg: by bytes
--! arg: d duration
--! arg: j json
--! arg: opt int?       sent only when set
--! arg: def duration = 1500ms
--! arg: tail string...
--! returns: keys []string, argv []string
--! flags: no-writes
return {KEYS, ARGV}

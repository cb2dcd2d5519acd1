package integration

// Redis 7 refuses most blocking commands in a script (BLPOP, BZPOPMIN:
// "not allowed from script"), but serves BZMPOP (and BLMPOP), which then
// answers at once, as if its timeout had passed. miniredis's own tests
// held BZMPOP to this through its EVAL, which the copy does not serve (see
// internal/third_party/miniredis/README.md, "Upstream tests"); these hold
// the engine's nested calls to it.
func init() {
	cases = append(cases,
		simple("call/bzmpop-empty", "return redis.call('BZMPOP', '0', '1', 'z', 'MIN')"),
		tcase{name: "call/bzmpop-member", setup: [][]string{{"ZADD", "z", "1", "one", "2", "two"}}, cmds: [][]string{
			ev("return redis.call('BZMPOP', '0', '1', KEYS[1], 'MAX', 'COUNT', '5')", 1, "z"),
		}},
		tcase{name: "call/bzpopmin-refused", setup: [][]string{{"ZADD", "z", "1", "one"}}, cmds: [][]string{
			ev("return redis.call('BZPOPMIN', KEYS[1], '0')", 1, "z"),
		}},
	)
}

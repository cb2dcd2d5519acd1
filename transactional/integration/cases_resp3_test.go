package integration

// Replies a script builds from tables (Redis's luaReplyToRedisReply): a
// big number's line breaks become spaces, and a verbatim_string without a
// string format and text is read on as a map, a set or an array.
func init() {
	cases = append(cases, resp3Cases...)
}

var resp3Cases = []tcase{
	{name: "suite/big-number-line-breaks", cmds: [][]string{ev("return {big_number='123\\r\\n123'}", 0)}},
	{name: "suite/big-number-line-breaks-resp3", resp3: true, cmds: [][]string{ev("return {big_number='123\\r\\n123'}", 0)}},
	{name: "suite/verbatim-incomplete", resp3: true, cmds: [][]string{
		ev("return {verbatim_string={format='txt'}, 'a'}", 0),
		ev("return {verbatim_string={format=1, string='x'}, map={a=1}}", 0),
		ev("return {verbatim_string={format='txt', string='a\\r\\nb'}}", 0),
	}},
}

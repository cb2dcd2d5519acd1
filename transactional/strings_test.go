package transactional

import (
	"flag"
	"math/rand"
	"testing"
)

var (
	stringsRuns = flag.Int("strings.runs", 3000, "random calls TestStringsMatchRedis evaluates")
	stringsSeed = flag.Int64("strings.seed", 1, "seed of TestStringsMatchRedis")
)

// stringsGen writes random calls of Lua 5.1's string library, patterns
// above all (find, match, gmatch, gsub with every kind of replacement),
// and of the table library on arrays, with the arguments where
// implementations part: positions before, at and past the ends,
// malformed patterns, captures and back-references, %b and %f, embedded
// zeros and bytes above 127.
type stringsGen struct{ picker }

func (g *stringsGen) subject() string {
	return g.pick("''", "'hello world'", "'a.b.c'", "'  x  '", "'key:123:value'", "'aaa'", "'ab\\0cd'", "'%d+'",
		"'\\255\\128x'", "'abc123def456'", "'(x(y)z)'", "'[a]'", "'a,b,,c'", "'\\n\\tq'", "'THE (quick) fox'",
		"string.rep('ab', 3)", "'x=1, y=22'", "'1700000000000:3'")
}

func (g *stringsGen) pattern() string {
	return g.pick("'a'", "'%a+'", "'%d+'", "'(%w+)'", "'^a'", "'c$'", "'.-'", "'.*'", "'a*'", "'a-'", "'a?b'",
		"'[%w_]+'", "'[^,]+'", "'^%s*(.-)%s*$'", "'(%d+):(%d+)'", "'%.'", "'[a-c]+'", "'[]]'", "'%b()'",
		"'%f[%w]%w+'", "'()'", "'(a)(b)'", "'(.)%1'", "'('", "'[a'", "'%'", "'%z'", "'%x+'", "'%p'", "'%c'",
		"'%u%l*'", "'[^%s]+'", "''", "'(%a+)=(%d+)'", "'%1'", "'[%a-]'", "'a(b'", "'%w+$'", "'^$'", "'\\0'")
}

func (g *stringsGen) pos() string {
	return g.pick("1", "2", "-1", "-3", "0", "5", "100", "-100", "'2'")
}

func (g *stringsGen) call() string {
	s, p := g.subject(), g.pattern()
	switch g.r.Intn(14) {
	case 0, 1:
		return "string.find(" + s + ", " + p + g.pick("", ", "+g.pos(), ", "+g.pos()+", true") + ")"
	case 2, 3:
		return "string.match(" + s + ", " + p + g.pick("", ", "+g.pos()) + ")"
	case 4:
		return "(function() local t = {} for a, b in string.gmatch(" + s + ", " + p + ") do t[#t + 1] = tostring(a) .. '|' .. tostring(b) if #t > 20 then break end end return table.concat(t, ';') end)()"
	case 5, 6, 7:
		repl := g.pick("'%1'", "'%0%0'", "'x'", "'%%'", "'%2'", "'<%0>'", "{a = 'A', hello = 1, x = false}",
			"function(c) return c:upper() end", "function() return nil end", "function() return false end", "'%'", "'%9'", "function(a, b) return b end")
		return "string.gsub(" + s + ", " + p + ", " + repl + g.pick("", ", 0", ", 1", ", 2", ", -1", ", 'x'") + ")"
	case 8:
		return "string.sub(" + s + ", " + g.pos() + g.pick("", ", "+g.pos()) + ")"
	case 9:
		return "string.byte(" + s + g.pick("", ", "+g.pos(), ", "+g.pos()+", "+g.pos()) + ")"
	case 10:
		return "string.format(" + g.pick("'%q'", "'%s'", "'%5.2s'", "'%-5s|'", "'%.3s'", "'%10s'") + ", " + s + ")"
	case 11:
		return "string." + g.pick("len", "lower", "upper", "reverse") + "(" + s + ")"
	case 12:
		return g.pick("string.rep("+s+", "+g.pick("0", "1", "3", "-1")+")", "string.char("+g.pick("65, 66", "0, 255", "256", "-1", "'65'")+")",
			"("+s+"):"+g.pick("upper()", "len()", "sub(2)", "rep(2)", "find('a')", "gsub('a', 'b')"))
	}
	// No holes: the border of a table with holes (#t, and so insert,
	// remove, sort and concat) is left to the implementation by Lua, and
	// Lua's follows where its table keeps the values.
	t := g.pick("{}", "{1, 2, 3}", "{'b', 'a', 'c'}", "{5, 'x'}")
	return g.pick("table.concat("+t+", ',')", "table.concat("+t+", ',', 2)", "table.concat("+t+", ',', 2, 1)",
		"(function() local t = "+t+" table.insert(t, 9) return table.concat(t, ',') end)()",
		"(function() local t = "+t+" table.insert(t, 1, 9) return table.concat(t, ',') end)()",
		"(function() local t = "+t+" return table.remove(t, "+g.pick("1", "2", "5", "0")+"), table.concat(t, ',') end)()",
		"(function() local t = "+t+" table.sort(t) return table.concat(t, ',') end)()",
		"(function() local t = "+t+" table.sort(t, function(a, b) return a > b end) return table.concat(t, ',') end)()",
		"table.maxn("+t+")", "#"+t, "table.getn("+t+")", "unpack("+t+")", "select('#', unpack("+t+"))")
}

// TestStringsMatchRedis evaluates random string- and table-library calls
// on redis-server and on the engine and wants the same values, or the same
// error, from each: the runner must match and replace as Redis's Lua 5.1
// does, or a script that parses a member or a key locally parses it
// otherwise in production.
func TestStringsMatchRedis(t *testing.T) {
	g := &stringsGen{picker{rand.New(rand.NewSource(*stringsSeed))}}
	if differ, _ := matchRedis(t, *stringsRuns, g.call, false); differ > 0 {
		t.Errorf("%d of %d calls differ", differ, *stringsRuns)
	}
}

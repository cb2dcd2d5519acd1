package transactional

import (
	"flag"
	"math/rand"
	"strings"
	"testing"
)

var (
	codecsRuns = flag.Int("codecs.runs", 2000, "random calls TestCodecsMatchRedis evaluates")
	codecsSeed = flag.Int64("codecs.seed", 1, "seed of TestCodecsMatchRedis")
)

// codecsGen writes random calls of the libraries Redis adds to Lua: cjson
// (encode and decode, numbers, escapes, sparse arrays, invalid text),
// cmsgpack (pack and unpack, shown in hex), struct (formats of every size
// and byte order) and bit (shifts and masks of negative and large
// numbers).
type codecsGen struct{ picker }

func (g *codecsGen) value(depth int) string {
	if depth == 0 || g.r.Intn(3) == 0 {
		return g.pick("0", "1", "-1", "0.1", "1e300", "-0.5", "123456789012345", "2^53", "2^63", "1/3", "'x'", "''",
			"'a\"b\\\\c/d'", "'\\n\\t\\1\\31'", "'\\195\\169'", "'\\255'", "true", "false", "cjson.null")
	}
	a, b := g.value(depth-1), g.value(depth-1)
	return g.pick("{"+a+", "+b+"}", "{x = "+a+", y = "+b+"}", "{"+a+", k = "+b+"}", "{[1] = "+a+", [3] = "+b+"}",
		"{[1] = "+a+", [20] = "+b+"}", "{}", "{{}}", "{[2.5] = "+a+"}", "{['1'] = "+a+"}",
		"{status = "+a+", count = "+b+", reason = 'r', id = 7}", "(function() local t = {} t.alpha = "+a+" t.beta = "+b+" t.gamma = 3 return t end)()")
}

func (g *codecsGen) call() string {
	switch g.r.Intn(8) {
	case 0, 1:
		return "cjson.encode(" + g.value(2) + ")"
	case 2, 3:
		return "ser(cjson.decode(" + g.pick("'1'", "'-0'", "'1e2'", "'0.1'", "'1E400'", "'\"a\\\\u00e9b\"'",
			"'\"\\\\ud83d\\\\ude00\"'", "'\"\\\\ud83d\"'", "'[1, 2, [3]]'", "'{\"a\": {\"b\": null}}'", "'null'", "'true'",
			"' [ ] '", "'{}'", "'[1,]'", "'{\"a\" 1}'", "'\"\\\\x\"'", "'01'", "'1.'", "'.5'", "'-'", "''", "'[1'",
			"'\"abc'", "'[\"\\\\/\\\\b\\\\f\"]'", "'123456789012345678901234567890'", "'{\"1\": 1, \"2\": 2}'", "'nul'") + "))"
	case 4:
		return "ser(cjson.decode(cjson.encode(" + g.value(2) + ")))"
	case 5:
		return "hex(cmsgpack.pack(" + g.value(2) + g.pick("", ", "+g.value(1)) + "))"
	case 6:
		v := g.value(2)
		return "ser(cmsgpack.unpack(cmsgpack.pack(" + v + ")))"
	}
	switch g.r.Intn(3) {
	case 0:
		f := g.pick("'>I2'", "'<i4'", "'b'", "'B'", "'h'", "'>d'", "'<f'", "'>i8'", "'I3'", "'>L'", "'c3'", "'s'", "'>bhi'")
		return "hex(struct.pack(" + f + ", " + g.pick("1", "-1", "255", "65536", "0.5", "'7'", "2^40", "'abc'") + g.pick("", ", 2, 3") + "))"
	case 1:
		return "ser({struct.unpack(" + g.pick("'>I2'", "'<i4'", "'b'", "'B'", "'>h'", "'c2'", "'s'", "'>I2I2'") + ", " +
			g.pick("'\\1\\2\\3\\4'", "'\\255\\254'", "'ab\\0cd'", "'x'", "''") + g.pick("", ", 2") + ")})"
	}
	return "bit." + g.pick("band", "bor", "bxor") + "(" + g.pick("-1", "0xff", "2^32", "2^31", "1.5", "'3'") + ", " + g.pick("7", "-2", "2^33") + ")" +
		g.pick("", " .. ' ' .. bit."+g.pick("lshift", "rshift", "arshift")+"("+g.pick("1", "-1", "2^31")+", "+g.pick("0", "31", "32", "33", "-1")+")",
			" .. ' ' .. bit.tohex("+g.pick("-1", "255", "2^32")+g.pick("", ", 4", ", -3")+")", " .. ' ' .. bit.bnot("+g.pick("0", "-1", "2^40")+")")
}

// codecsHead adds ser, which writes a value deterministically (a table's
// keys sorted), and hex.
const codecsHead = `local function ser(v, depth)
  depth = depth or 0
  if type(v) ~= 'table' or depth > 4 then
    if type(v) == 'userdata' then return 'userdata:' .. tostring(v == cjson.null) end
    return type(v) .. ':' .. tostring(v)
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return type(a) .. tostring(a) < type(b) .. tostring(b) end)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts + 1] = ser(k, depth + 1) .. '=' .. ser(v[k], depth + 1) end
  return '{' .. table.concat(parts, ',') .. '}'
end
local function hex(s)
  return (string.gsub(s, '.', function(c) return string.format('%02x', string.byte(c)) end))
end
`

// TestCodecsMatchRedis evaluates random calls of cjson, cmsgpack, struct
// and bit on redis-server and on the engine and wants the same values, or
// the same error, from each.
//
// Objects with several string keys are encoded in Lua's hash order, which
// the VM emulates (luaorder.go); tables that mix other keys in, or lost
// one, are walked in the order their keys came, which can differ.
func TestCodecsMatchRedis(t *testing.T) {
	g := &codecsGen{picker{rand.New(rand.NewSource(*codecsSeed))}}
	head := strings.Replace(numbersHead, "local out = {}\n", "local out = {}\n"+codecsHead, 1)
	if differ, _ := matchRedisHead(t, head, *codecsRuns, g.call, false); differ > 0 {
		t.Errorf("%d of %d calls differ", differ, *codecsRuns)
	}
}

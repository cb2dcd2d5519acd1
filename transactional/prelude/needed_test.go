package prelude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNeededLimiters(t *testing.T) {
	// The limiters whose every write is the last thing that can fail, and
	// those with a write something can fail after.
	want := map[string]bool{
		"gcra": false, "gate": false, "queue": false, "cl_throttle": false,
		"token_bucket": true, "credits": true, "concurrency": true, "window": true, "log": true,
	}
	for name, needed := range want {
		src, err := os.ReadFile(filepath.Join("..", "..", "lua", "ratelimit", name+".lua"))
		if err != nil {
			t.Fatal(err)
		}
		if got := Needed(string(src)); got != needed {
			t.Errorf("%s: Needed = %v, want %v", name, got, needed)
		}
	}
}

func TestNeeded(t *testing.T) {
	for _, c := range []struct {
		name   string
		needed bool
		src    string
	}{
		{"no write", false, "return redis.call('GET', KEYS[1])"},
		{"one write, then a constant", false, "redis.call('SET', KEYS[1], 'x') return 1"},
		{"a reply returned", false, "return redis.call('INCR', KEYS[1])"},
		{"pcall", false, "redis.pcall('SET', KEYS[1], 1) return 'ok'"},
		{"two writes", true, "redis.call('SET', KEYS[1], 'x') redis.call('SET', KEYS[2], 'y')"},
		{"a read after", true, "redis.call('SET', KEYS[1], 'x') return redis.call('GET', KEYS[2])"},
		{"error after", true, "redis.call('SET', KEYS[1], 'x') error('no')"},
		{"assert after", true, "redis.call('SET', KEYS[1], 'x') assert(false)"},
		{"argument arithmetic", true, "redis.call('SET', KEYS[1], 'x') return ARGV[1] + 1"},
		{"tonumber may be nil", true, "local n = tonumber(ARGV[1]) redis.call('SET', KEYS[1], 'x') return n + 1"},
		{"nil ruled out", false, "local n = tonumber(ARGV[1]) if not n then return 0 end redis.call('SET', KEYS[1], n) return n + 1"},
		{"nil ruled out by and", false, "local n = tonumber(ARGV[1]) if n and n > 0 then redis.call('SET', KEYS[1], n) return {n * 2, -n} end return 0"},
		{"or default", false, "local n = tonumber(ARGV[1]) or 0 redis.call('SET', KEYS[1], n) return n - 1"},
		{"arithmetic before proves a number", false, "local n = ARGV[1] local m = n + 0 redis.call('SET', KEYS[1], m) return n * 2"},
		{"comparison proves a number", false, "local r = redis.call('GET', KEYS[2]) if r == nil or r == false then return 0 end local n = tonumber(r) if not n then return 1 end local x = redis.call('STRLEN', KEYS[2]) if x > 3 then return 2 end redis.call('DEL', KEYS[1]) return x + n"},
		{"comparison with a string", true, "local n = ARGV[1] if n == '' then return end redis.call('SET', KEYS[1], n) return n < 3"},
		{"concatenation of maybe nil", true, "redis.call('SET', KEYS[1], 1) return 'a' .. ARGV[2]"},
		{"length of a reply", true, "local r = redis.call('LRANGE', KEYS[2], 0, -1) redis.call('DEL', KEYS[1]) return #r"},
		{"index of a reply", true, "local r = redis.call('GET', KEYS[2]) redis.call('DEL', KEYS[1]) return r.x"},
		{"nil table key", true, "redis.call('SET', KEYS[1], 1) local t = {} t[ARGV[1]] = 1 return 1"},
		{"literal table key", false, "redis.call('SET', KEYS[1], 1) local t = {} t[1] = 1 t.x = 2 return t"},
		{"integer reply", false, "local n = redis.call('ZCARD', KEYS[2]) redis.call('DEL', KEYS[1]) return n + 1"},
		{"integer reply through pcall", true, "local n = redis.pcall('ZCARD', KEYS[2]) redis.call('DEL', KEYS[1]) return n + 1"},
		{"write in a function", true, "local function w() redis.call('SET', KEYS[1], 1) end w() return 1"},
		{"write in a loop", true, "for i = 1, 2 do redis.call('SET', KEYS[i], 1) end"},
		{"write before a loop that may fail", true, "redis.call('SET', KEYS[1], 1) for i = 1, #ARGV do local x = ARGV[i] + 1 end return 1"},
		{"write before a loop that cannot", false, "redis.call('SET', KEYS[1], 1) local s = 0 for i = 1, 10 do s = s + i end return s"},
		{"safe local function", false, "local function up(x) return math.ceil(x - 0.001) end local n = tonumber(ARGV[1]) or 1 redis.call('SET', KEYS[1], n) return up(n)"},
		{"unsafe local function", true, "local function up(x) return math.ceil(x - 0.001) end redis.call('SET', KEYS[1], 1) return up(ARGV[1])"},
		{"function sees its own upvalue", false, "local x = 1 local function f() return x + 1 end local x = 'a' redis.call('SET', KEYS[1], 1) return f()"},
		{"function sees a string", true, "local x = 'a' local function f() return x + 1 end redis.call('SET', KEYS[1], 1) return f()"},
		{"upvalue changed by a function", true, "local x = 1 local function bump() x = 'a' end bump() redis.call('SET', KEYS[1], 1) return x + 1"},
		{"multiple values", true, "local function none() end redis.call('SET', KEYS[1], 1) return math.floor(none())"},
		{"SET NX tested", false, "if redis.call('SET', KEYS[1], 1, 'NX') then return 1 end redis.call('DEL', KEYS[2]) return 0"},
		{"SET NX GET tested", true, "if redis.call('SET', KEYS[1], 1, 'NX', 'GET') then return 1 end redis.call('DEL', KEYS[2]) return 0"},
		{"SET tested", true, "if redis.call('SET', KEYS[1], 1) then return 1 end redis.call('DEL', KEYS[2]) return 0"},
		{"SET NX kept", true, "local ok = redis.call('SET', KEYS[1], 1, 'NX') redis.call('DEL', KEYS[2]) return ok"},
		{"a branch that fails", true, "redis.call('SET', KEYS[1], 1) if ARGV[1] == 'x' then error('no') end return 1"},
		{"a branch that returns first", false, "if ARGV[1] == 'x' then redis.call('SET', KEYS[1], 1) return 1 end return redis.call('GET', KEYS[2])"},
		{"error reply after", false, "redis.call('SET', KEYS[1], 1) return redis.error_reply('ERR done')"},
		{"dynamic command", false, "return redis.call(ARGV[1], KEYS[1])"},
		{"dynamic command then more", true, "redis.call(ARGV[1], KEYS[1]) return redis.call('GET', KEYS[1])"},
		{"redis as a value", true, "local r = redis r.call('SET', KEYS[1], 1) error('x')"},
		{"redis.call as a value", true, "local c = redis.call c('SET', KEYS[1], 1) error('x')"},
		{"pcall of redis.call", true, "pcall(redis.call, 'SET', KEYS[1], 1) return 1"},
		{"unknown global", true, "redis.call('SET', KEYS[1], 1) return helper()"},
		{"shadowed math", true, "local math = {floor = error} redis.call('SET', KEYS[1], 1) return math.floor(1)"},
		{"refused command", true, "return redis.call('FLUSHDB')"},
		{"method call after", true, "redis.call('SET', KEYS[1], 1) return ('x'):rep(ARGV[1])"},
		{"syntax error", true, "redis.call('SET', KEYS[1], 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Needed(c.src); got != c.needed {
				t.Errorf("Needed(%q) = %v, want %v", c.src, got, c.needed)
			}
		})
	}
}

func TestNeededUnderscoreNames(t *testing.T) {
	// The prelude's own text needs the runtime: nothing in Needed may take
	// a wrapped script for a plain one.
	src := "redis.call('SET', KEYS[1], 1) redis.call('SET', KEYS[2], 2)"
	if !Needed(Wrap(src)) || !strings.Contains(Wrap(src), runName) {
		t.Fatal("a wrapped script with two writes must need the runtime")
	}
}

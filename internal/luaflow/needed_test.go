package luaflow

import (
	"os"
	"path/filepath"
	"testing"
)

func TestNeededLimiters(t *testing.T) {
	// Every limiter's every write is the last thing of its run that can
	// fail: all of them ship as they stand.
	want := map[string]bool{
		"gcra": false, "gate": false, "queue": false, "cl_throttle": false,
		"concurrency": false, "token_bucket": false, "credits": false, "log": false, "window": false,
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
		// Commands that cannot fail (sure.go).
		{"zset read, then writes that cannot fail", false, "local k = KEYS[1] redis.call('ZCARD', k) redis.call('ZADD', k, 1, 'a') redis.call('ZREMRANGEBYSCORE', k, '-inf', 0) return 1"},
		{"a ZADD shows the key a sorted set", false, "redis.call('ZADD', KEYS[1], 1, 'a') redis.call('ZREM', KEYS[1], 'b') return 1"},
		{"key of unknown type", true, "redis.call('SET', KEYS[2], 1) redis.call('ZREM', KEYS[1], 'b') return 1"},
		{"deleted, then touched", true, "redis.call('ZCARD', KEYS[1]) redis.call('ZREM', KEYS[1], 'a') redis.call('ZADD', KEYS[1], 1, 'b') return 1"},
		{"another name for the key deleted it", true, "redis.call('ZCARD', KEYS[1]) redis.call('ZCARD', KEYS[2]) redis.call('ZADD', KEYS[1], 1, 'a') redis.call('ZREM', KEYS[2], 'a') redis.call('ZCARD', KEYS[1]) return 1"},
		{"another name may hold another type", true, "redis.call('ZCARD', KEYS[1]) redis.call('ZADD', KEYS[1], 1, 'a') redis.call('SET', KEYS[2], 'x') redis.call('ZCARD', KEYS[1]) return 1"},
		{"KEYS changed", true, "redis.call('ZCARD', KEYS[1]) redis.call('ZADD', KEYS[1], 1, 'a') KEYS[1] = 'other' redis.call('ZREM', KEYS[1], 'a') return 1"},
		{"alias reassigned", true, "local k = KEYS[1] redis.call('ZCARD', k) redis.call('ZADD', k, 1, 'a') k = ARGV[1] redis.call('ZREM', k, 'a') return 1"},
		{"score may be NaN", true, "redis.call('ZADD', KEYS[1], 1, 'a') redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) or 0, 'b') return 1"},
		{"score checked", false, "local s = tonumber(ARGV[1]) if not (s and s >= 0) then return 0 end redis.call('ZADD', KEYS[1], 1, 'a') redis.call('ZADD', KEYS[1], s, 'b') return 1"},
		{"score from arithmetic on checked numbers", false, "local s = tonumber(ARGV[1]) if not (s and s >= 0 and s <= 10) then return 0 end redis.call('ZADD', KEYS[1], 1, 'a') redis.call('ZADD', KEYS[1], s * 2 - 1, 'b') return 1"},
		{"inf - inf is NaN", true, "local s = tonumber(ARGV[1]) if not (s and s >= 0) then return 0 end redis.call('ZADD', KEYS[1], 1, 'a') redis.call('ZADD', KEYS[1], s - s, 'b') return 1"},
		{"options that clash", true, "redis.call('ZADD', KEYS[1], 1, 'a') redis.call('ZADD', KEYS[1], 'NX', 'GT', 1, 'b') return 1"},
		{"literal bound", false, "redis.call('ZADD', KEYS[1], 1, 'a') redis.call('ZREMRANGEBYSCORE', KEYS[1], '(1.5', '+inf') return 1"},
		{"bad literal bound", true, "redis.call('ZADD', KEYS[1], 1, 'a') redis.call('ZREMRANGEBYSCORE', KEYS[1], 'x', '+inf') return 1"},
		{"PEXPIRE of a positive integer", false, "redis.call('ZADD', KEYS[1], 1, 'a') redis.call('PEXPIRE', KEYS[1], 100) redis.call('ZREM', KEYS[1], 'a') return 1"},
		{"PEXPIRE 0 deletes", true, "redis.call('ZADD', KEYS[1], 1, 'a') redis.call('PEXPIRE', KEYS[1], 0) redis.call('ZREM', KEYS[1], 'a') return 1"},
		{"PEXPIRE of a fraction", true, "redis.call('ZADD', KEYS[1], 1, 'a') redis.call('PEXPIRE', KEYS[1], 1.5) return 1"},
		{"PEXPIRE of an integer checked positive", false, "local n = tonumber(ARGV[1]) if not n or n % 1 ~= 0 then return 0 end n = math.min(n, 1000) " +
			"redis.call('ZADD', KEYS[1], 1, 'a') if n > 0 then redis.call('PEXPIRE', KEYS[1], n) end return 1"},
		{"PEXPIRE of an integer capped by a comparison", false, "local n = tonumber(ARGV[1]) if not n or n % 1 ~= 0 then return 0 end if n > 1000 then n = 1000 end " +
			"redis.call('ZADD', KEYS[1], 1, 'a') if n > 0 then redis.call('PEXPIRE', KEYS[1], n) end return 1"},
		{"the same capped the other way round", false, "local n = tonumber(ARGV[1]) if not n or n % 1 ~= 0 then return 0 end if not (n <= 1000) then n = 1000 end " +
			"redis.call('ZADD', KEYS[1], 1, 'a') if n > 0 then redis.call('PEXPIRE', KEYS[1], n) end return 1"},
		{"capped by a bound that may be NaN", true, "local n, m = tonumber(ARGV[1]), math.min(tonumber(ARGV[2]) or 0, 1000) if not n or n % 1 ~= 0 then return 0 end if n > m then n = 1000 end " +
			"redis.call('ZADD', KEYS[1], 1, 'a') if n > 0 then redis.call('PEXPIRE', KEYS[1], n) end return 1"},
		{"a floor from a bound that may be NaN", true, "local n, m = tonumber(ARGV[1]), math.max(tonumber(ARGV[2]) or 0, 1) if not n or n % 1 ~= 0 or n > 1000 then return 0 end if n < m then return 0 end " +
			"redis.call('ZADD', KEYS[1], 1, 'a') redis.call('PEXPIRE', KEYS[1], n) return 1"},
		{"the same from a bound that is a number", false, "local n, m = tonumber(ARGV[1]), 1 if not n or n % 1 ~= 0 or n > 1000 then return 0 end if n < m then return 0 end " +
			"redis.call('ZADD', KEYS[1], 1, 'a') redis.call('PEXPIRE', KEYS[1], n) return 1"},
		{"a cap that is not a comparison's failed side", true, "local n = tonumber(ARGV[1]) if not n or n % 1 ~= 0 then return 0 end if n < 1000 then n = 1000 end " +
			"redis.call('ZADD', KEYS[1], 1, 'a') if n > 0 then redis.call('PEXPIRE', KEYS[1], n) end return 1"},
		{"PEXPIRE of math.modf of a bounded number", false, "local n = tonumber(ARGV[1]) if not (n and n >= 1.5 and n <= 1000.5) then return 0 end local m = math.modf(n) " +
			"redis.call('ZADD', KEYS[1], 1, 'a') redis.call('PEXPIRE', KEYS[1], m) return 1"},
		{"the same where it may be 0", true, "local n = tonumber(ARGV[1]) if not (n and n >= 0.5 and n <= 1000.5) then return 0 end local m = math.modf(n) " +
			"redis.call('ZADD', KEYS[1], 1, 'a') redis.call('PEXPIRE', KEYS[1], m) return 1"},
		{"math.modf last among the arguments gives two", true, "redis.call('ZADD', KEYS[1], 1, 'a') redis.call('PEXPIRE', KEYS[1], math.modf(5)) return 1"},
		{"the same in parentheses gives one", false, "redis.call('ZADD', KEYS[1], 1, 'a') redis.call('PEXPIRE', KEYS[1], (math.modf(5))) return 1"},
		{"PEXPIRE of an integer not bounded", true, "local n = tonumber(ARGV[1]) if not n or n % 1 ~= 0 then return 0 end " +
			"redis.call('ZADD', KEYS[1], 1, 'a') if n > 0 then redis.call('PEXPIRE', KEYS[1], n) end return 1"},
		{"index", false, "redis.call('ZADD', KEYS[1], 1, 'a') local r = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES') return 1"},
		{"pcall shows nothing", true, "redis.pcall('ZCARD', KEYS[1]) redis.call('SET', KEYS[2], 1) redis.call('ZCARD', KEYS[1]) return 1"},
		{"a loop's write, a later iteration's failure", true, "for i = 1, 3 do if i == tonumber(ARGV[1]) then error('late') end redis.call('SET', KEYS[1], i) end return 0"},
		{"the same after a write that may not have run", true, "if redis.call('SET', KEYS[1], 'x', 'NX') then return 1 end " +
			"for i = 1, 3 do if i == tonumber(ARGV[1]) then error('late') end redis.call('SET', KEYS[1], i) end return 0"},
		{"the same in a loop with a break", true, "for i = 1, 3 do if i == tonumber(ARGV[1]) then error('late') end redis.call('SET', KEYS[1], i) if i == 5 then break end end return 0"},
		{"a loop's write, a failure after the loop", true, "redis.call('GET', KEYS[1]) for i = 1, 3 do redis.call('SET', KEYS[1], i) end return redis.call('GET', KEYS[2])"},
		{"a loop's writes that cannot fail", false, "redis.call('GET', KEYS[1]) for i = 1, 3 do redis.call('SET', KEYS[1], i) end return 1"},
		{"KEYS read, then written, in loops", false, "for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end for _, k in ipairs(KEYS) do redis.call('ZADD', k, 1, 'm') redis.call('PEXPIRE', k, 100) end return 1"},
		{"KEYS written in a loop, not read first", true, "for _, k in ipairs(KEYS) do redis.call('ZADD', k, 1, 'm') end return 1"},
		{"KEYS read in the writing loop", true, "for _, k in ipairs(KEYS) do redis.call('ZCARD', k) redis.call('ZADD', k, 1, 'm') end return 1"},
		{"a KEYS element's removal, then another's write", true, "for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end for _, k in ipairs(KEYS) do redis.call('ZREM', k, 'm') redis.call('ZADD', k, 1, 'n') end return 1"},
		{"a reading loop that writes shows nothing", true, "for _, k in ipairs(KEYS) do redis.call('ZCARD', k) redis.call('SET', KEYS[1], 1) end for _, k in ipairs(KEYS) do redis.call('ZADD', k, 1, 'm') end return 1"},
		{"a reading loop that breaks shows nothing", true, "for i, k in ipairs(KEYS) do redis.call('ZCARD', k) if i == 2 then break end end for _, k in ipairs(KEYS) do redis.call('ZADD', k, 1, 'm') end return 1"},
		{"the loop's key reassigned", true, "for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end for _, k in ipairs(KEYS) do k = ARGV[1] redis.call('ZADD', k, 1, 'm') end return 1"},
		{"KEYS changed", true, "table.insert(KEYS, 'x') for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end for _, k in ipairs(KEYS) do redis.call('ZADD', k, 1, 'm') end return 1"},
		{"a KEYS element's type changed by another's write", true, "for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end redis.call('SET', KEYS[1], 1) for _, k in ipairs(KEYS) do redis.call('ZADD', k, 1, 'm') end return 1"},
		{"string.format of numbers after the write", false, "local n = tonumber(ARGV[1]) if not n then return 0 end redis.call('SET', KEYS[1], 1) return string.format('%d:%05.1f %s%%', n, n, 'x')"},
		{"string.format of what may be nil", true, "redis.call('SET', KEYS[1], 1) return string.format('%d', tonumber(ARGV[1]))"},
		{"string.format short of arguments", true, "redis.call('SET', KEYS[1], 1) return string.format('%d %d', 1)"},
		{"string.format with a bad option", true, "redis.call('SET', KEYS[1], 1) return string.format('%y', 1)"},
		{"string.format of a string as a number", true, "redis.call('SET', KEYS[1], 1) return string.format('%d', 'x')"},
		{"string.sub", false, "redis.call('SET', KEYS[1], 1) return string.sub(ARGV[1] or '', 2, -1)"},
		{"type() narrows", false, "local t = cjson.decode(ARGV[1]) if type(t) ~= 'table' then return 0 end redis.call('SET', KEYS[1], 1) return t[1]"},
		{"type() of another name", true, "local t, u = cjson.decode(ARGV[1]), ARGV[2] if type(u) ~= 'table' then return 0 end redis.call('SET', KEYS[1], 1) return t[1]"},
		{"an array built after the write", false, "local out = {} redis.call('SET', KEYS[1], 1) out[#out + 1] = 'a' out[#out + 1] = 'b' return out"},
		{"a key that may be NaN", true, "local t, n = {}, tonumber(ARGV[1]) or 0 redis.call('SET', KEYS[1], 1) t[n] = 1 return 1"},
		{"string commands", false, "redis.call('GET', KEYS[1]) redis.call('SET', KEYS[1], 'x') redis.call('SET', KEYS[1], 'y', 'PX', 100) redis.call('DEL', KEYS[1]) return 1"},
		{"SET with EX is not known", true, "redis.call('GET', KEYS[1]) redis.call('SET', KEYS[1], 'x') redis.call('SET', KEYS[1], 'y', 'EX', 100) return 1"},
		{"a key never shown", true, "redis.call('SET', KEYS[1], 'x') redis.call('SET', KEYS[2], 'y') return 1"},
		{"GET of a sorted set", true, "redis.call('ZADD', KEYS[1], 1, 'a') redis.call('GET', KEYS[1]) return 1"},
		{"DEL of another name, then SET", true, "redis.call('GET', KEYS[1]) redis.call('GET', KEYS[2]) redis.call('SET', KEYS[1], 1) redis.call('DEL', KEYS[2]) redis.call('SET', KEYS[1], 2) return 1"},
		{"SET of another name makes a string", true, "redis.call('HLEN', KEYS[1]) redis.call('GET', KEYS[2]) redis.call('HSET', KEYS[1], 'f', 1) redis.call('SET', KEYS[2], 2) redis.call('HLEN', KEYS[1]) return 1"},
		{"a function handed to pcall may write", true, "redis.call('ZADD', KEYS[1], 1, 'a') pcall(function() end) redis.call('ZCARD', KEYS[1]) return 1"},
		{"a table filled at every KEYS index", false, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local w = {} for i in ipairs(KEYS) do local n = int(ARGV[i]) if not n then return 0 end w[i] = n end for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end for i, k in ipairs(KEYS) do redis.call('PEXPIRE', k, w[i]) end return 1"},
		{"a table filled on some paths only", true, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local w = {} for i in ipairs(KEYS) do local n = int(ARGV[i]) if n then w[i] = n end end for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end for i, k in ipairs(KEYS) do redis.call('PEXPIRE', k, w[i]) end return 1"},
		{"a filled table read at another index", true, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local w = {} for i in ipairs(KEYS) do local n = int(ARGV[i]) if not n then return 0 end w[i] = n end for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end for i, k in ipairs(KEYS) do redis.call('PEXPIRE', k, w[i + 1]) end return 1"},
		{"a filled table given a nil", true, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local w = {} for i in ipairs(KEYS) do local n = int(ARGV[i]) if not n then return 0 end w[i] = n end for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end w[1] = nil for i, k in ipairs(KEYS) do redis.call('PEXPIRE', k, w[i]) end return 1"},
		{"a filled table handed to a function", true, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local w = {} for i in ipairs(KEYS) do local n = int(ARGV[i]) if not n then return 0 end w[i] = n end for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end local function f(t) t[1] = 'x' end f(w) for i, k in ipairs(KEYS) do redis.call('PEXPIRE', k, w[i]) end return 1"},
		{"a filled table aliased by and", true, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local w = {} for i in ipairs(KEYS) do local n = int(ARGV[i]) if not n then return 0 end w[i] = n end for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end local v = ARGV[9] and w if v then v[1] = 'x' end for i, k in ipairs(KEYS) do redis.call('PEXPIRE', k, w[i]) end return 1"},
		{"a filled table changed by a function", true, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local w = {} for i in ipairs(KEYS) do local n = int(ARGV[i]) if not n then return 0 end w[i] = n end for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end local function f() w[1] = 'x' end f() for i, k in ipairs(KEYS) do redis.call('PEXPIRE', k, w[i]) end return 1"},
		{"a table's values looped over", false, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local w = {} for i = 1, 3 do local n = int(ARGV[i]) if not n then return 0 end w[#w + 1] = n end redis.call('ZCARD', KEYS[1]) for _, n in ipairs(w) do redis.call('PEXPIRE', KEYS[1], n) end return 1"},
		{"a table holding a string looped over", true, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local w = {'x'} for i = 1, 3 do local n = int(ARGV[i]) if not n then return 0 end w[#w + 1] = n end redis.call('ZCARD', KEYS[1]) for _, n in ipairs(w) do redis.call('PEXPIRE', KEYS[1], n) end return 1"},
		{"a sweep below a score just added", false, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local w = {} for i in ipairs(KEYS) do local n = int(ARGV[i]) if not n then return 0 end w[i] = n end for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end local now = int(ARGV[9]) if not now then return 0 end for i, k in ipairs(KEYS) do redis.call('ZADD', k, now, 'm') redis.call('ZREMRANGEBYSCORE', k, '-inf', now - w[i]) end return 1"},
		{"a sweep up to the score just added", true, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local w = {} for i in ipairs(KEYS) do local n = int(ARGV[i]) if not n then return 0 end w[i] = n end for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end local now = int(ARGV[9]) if not now then return 0 end for i, k in ipairs(KEYS) do redis.call('ZADD', k, now, 'm') redis.call('ZREMRANGEBYSCORE', k, '-inf', now - w[i] + 1) end return 1"},
		{"a sweep below a score that changed", true, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local w = {} for i in ipairs(KEYS) do local n = int(ARGV[i]) if not n then return 0 end w[i] = n end for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end local now = int(ARGV[9]) if not now then return 0 end for i, k in ipairs(KEYS) do redis.call('ZADD', k, now, 'm') now = now + 5 redis.call('ZREMRANGEBYSCORE', k, '-inf', now - w[i]) end return 1"},
		{"a sweep below a score ZADD NX may not have set", true, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local w = {} for i in ipairs(KEYS) do local n = int(ARGV[i]) if not n then return 0 end w[i] = n end for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end local now = int(ARGV[9]) if not now then return 0 end for i, k in ipairs(KEYS) do redis.call('ZADD', k, 'NX', now, 'm') redis.call('ZREMRANGEBYSCORE', k, '-inf', now - w[i]) end return 1"},
		{"a sweep below a score moved by a later ZADD", true, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local w = {} for i in ipairs(KEYS) do local n = int(ARGV[i]) if not n then return 0 end w[i] = n end for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end local now = int(ARGV[9]) if not now then return 0 end for i, k in ipairs(KEYS) do redis.call('ZADD', k, now, 'm') redis.call('ZADD', k, 1, 'm') redis.call('ZREMRANGEBYSCORE', k, '-inf', now - w[i]) end return 1"},
		{"a sweep below a score after a SET of another name", true, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local w = {} for i in ipairs(KEYS) do local n = int(ARGV[i]) if not n then return 0 end w[i] = n end for _, k in ipairs(KEYS) do redis.call('ZCARD', k) end local now = int(ARGV[9]) if not now then return 0 end redis.call('ZADD', KEYS[1], now, 'm') redis.call('SET', KEYS[2], 'x') redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 1) redis.call('ZCARD', KEYS[1]) return 1"},
		{"ZADDs in a repeat loop, then a sweep", false, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local now = int(ARGV[1]) if not now then return 0 end redis.call('ZCARD', KEYS[1]) local n = tonumber(ARGV[2]) or 0 repeat n = n + 1 redis.call('ZADD', KEYS[1], now, n) until n >= 3 redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 1) redis.call('ZCARD', KEYS[1]) return 1"},
		{"ZADDs in a while loop, then a sweep", true, "local function int(v) local n = tonumber(v) if n and n % 1 == 0 and n >= 1 and n <= 1000 then return n end end local now = int(ARGV[1]) if not now then return 0 end redis.call('ZCARD', KEYS[1]) local n = tonumber(ARGV[2]) or 0 while n < 3 do n = n + 1 redis.call('ZADD', KEYS[1], now, n) end redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 1) redis.call('ZCARD', KEYS[1]) return 1"},
		{"pcall of a codec calls nothing back", false, "local ok, v = pcall(cjson.decode, ARGV[1]) redis.call('ZCARD', KEYS[1]) redis.call('ZADD', KEYS[1], 1, 'a') redis.call('ZCARD', KEYS[1]) return 1"},
		{"a member made by string.format", false, "local n = tonumber(ARGV[1]) if not n then return 0 end redis.call('ZADD', KEYS[1], 1, 'a') redis.call('ZADD', KEYS[1], 1, string.format('%d', n)) return 1"},
		{"a member made by a call of many values", true, "local n = tonumber(ARGV[1]) if not n then return 0 end redis.call('ZADD', KEYS[1], 1, 'a') redis.call('ZADD', KEYS[1], 1, string.gsub('a', 'a', 'b')) return 1"},
		{"records written in a loop over KEYS", false, "for _, k in ipairs(KEYS) do redis.call('HLEN', k) end local cs = {} local s = (ARGV[1] or '') .. 'x' for j in ipairs(KEYS) do cs[#cs + 1] = {id = j, name = s, v = 1} end for j, k in ipairs(KEYS) do for _, c in ipairs(cs) do if c.id == j then redis.call('HSET', k, c.name, c.v) end end redis.call('PEXPIRE', k, 100) end return 1"},
		{"a record lacking a field", true, "for _, k in ipairs(KEYS) do redis.call('HLEN', k) end local cs = {} local s = (ARGV[1] or '') .. 'x' for j in ipairs(KEYS) do cs[#cs + 1] = {id = j, name = s, v = 1} cs[#cs + 1] = {id = j, v = 2} end for j, k in ipairs(KEYS) do for _, c in ipairs(cs) do if c.id == j then redis.call('HSET', k, c.name, c.v) end end redis.call('PEXPIRE', k, 100) end return 1"},
		{"a record field that may be nil", true, "for _, k in ipairs(KEYS) do redis.call('HLEN', k) end local cs = {} local s = (ARGV[1] or '') .. 'x' for j in ipairs(KEYS) do cs[#cs + 1] = {id = j, name = s, v = tonumber(ARGV[2])} end for j, k in ipairs(KEYS) do for _, c in ipairs(cs) do if c.id == j then redis.call('HSET', k, c.name, c.v) end end redis.call('PEXPIRE', k, 100) end return 1"},
		{"a record changed through a loop's element", true, "for _, k in ipairs(KEYS) do redis.call('HLEN', k) end local cs = {} local s = (ARGV[1] or '') .. 'x' for j in ipairs(KEYS) do cs[#cs + 1] = {id = j, name = s, v = 1} end for _, c in ipairs(cs) do c.name = nil end for j, k in ipairs(KEYS) do for _, c in ipairs(cs) do if c.id == j then redis.call('HSET', k, c.name, c.v) end end redis.call('PEXPIRE', k, 100) end return 1"},
		{"a record read as t[k]", true, "for _, k in ipairs(KEYS) do redis.call('HLEN', k) end local cs = {} local s = (ARGV[1] or '') .. 'x' for j in ipairs(KEYS) do cs[#cs + 1] = {id = j, name = s, v = 1} end local first = cs[1] if first then first.name = nil end for j, k in ipairs(KEYS) do for _, c in ipairs(cs) do if c.id == j then redis.call('HSET', k, c.name, c.v) end end redis.call('PEXPIRE', k, 100) end return 1"},
		{"records handed to unpack", true, "for _, k in ipairs(KEYS) do redis.call('HLEN', k) end local cs = {} local s = (ARGV[1] or '') .. 'x' for j in ipairs(KEYS) do cs[#cs + 1] = {id = j, name = s, v = 1} end local first = unpack(cs) if first then first.name = nil end for j, k in ipairs(KEYS) do for _, c in ipairs(cs) do if c.id == j then redis.call('HSET', k, c.name, c.v) end end redis.call('PEXPIRE', k, 100) end return 1"},
		{"a positional table among records", true, "for _, k in ipairs(KEYS) do redis.call('HLEN', k) end local cs = {} local s = (ARGV[1] or '') .. 'x' for j in ipairs(KEYS) do cs[#cs + 1] = {id = j, name = s, v = 1} end cs[#cs + 1] = {1, 2} for j, k in ipairs(KEYS) do for _, c in ipairs(cs) do if c.id == j then redis.call('HSET', k, c.name, c.v) end end redis.call('PEXPIRE', k, 100) end return 1"},
		{"a comparator that calls nothing", false, "local t = {3, 1} table.sort(t, function(x, y) return x < y end) redis.call('ZCARD', KEYS[1]) redis.call('ZADD', KEYS[1], 1, 'a') redis.call('ZCARD', KEYS[1]) return 1"},
		{"a comparator that calls", true, "local t = {3, 1} redis.call('ZCARD', KEYS[1]) table.sort(t, function(x, y) redis.call('DEL', KEYS[1]) return x < y end) redis.call('ZADD', KEYS[1], 1, 'a') redis.call('ZCARD', KEYS[1]) return 1"},
		{"a search that breaks keeps what the keys hold", false, "redis.call('ZCARD', KEYS[1]) local n = tonumber(ARGV[1]) or 0 for i = 1, 10 do n = n + i if n > 5 then break end end redis.call('ZADD', KEYS[1], 1, 'a') redis.call('ZCARD', KEYS[1]) return n"},
		{"a loop that breaks after a write", true, "redis.call('ZCARD', KEYS[1]) local n = tonumber(ARGV[1]) or 0 for i = 1, 10 do n = n + i redis.call('ZREM', KEYS[1], 'b') if n > 5 then break end end redis.call('ZADD', KEYS[1], 1, 'a') redis.call('ZCARD', KEYS[1]) return n"},
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

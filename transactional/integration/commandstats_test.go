package integration

import (
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestCommandStats holds INFO commandstats and errorstats to redis-server:
// the same commands on both, counts compared (calls, rejected_calls,
// failed_calls and the error counts; usec is time, not compared). The
// commands are those whose counting Redis's own suite checks ("Consistent
// eval error reporting") and the paths by which a command is counted: a
// call, a refusal before the call (arity, a script's read-only or OOM
// refusal), an error reply, a subcommand, a command inside a script, one
// caught by redis.pcall.
func TestCommandStats(t *testing.T) {
	real, tcp, _ := differentialTargets(t)
	steps := [][]string{
		{"SET", "k", "v"},
		{"GET", "k"},
		{"GET"},
		{"INCR", "k"},
		{"NOSUCHCOMMAND"},
		{"CONFIG", "GET", "maxmemory"},
		{"CONFIG", "NOSUCH"},
		{"CLIENT", "ID"},
		{"EVAL", "return redis.call('select', 99)", "0"},
		{"EVAL", "return redis.pcall('select', 99)", "0"},
		{"EVAL", "local t = redis.pcall('select', 99) return 1", "0"},
		{"EVAL_RO", "return redis.call('set', 'x', 'y')", "1", "x"},
		{"EVAL_RO", "local t = redis.pcall('set', 'x', 'y') return 1", "1", "x"},
		{"EVAL", "return redis.call('geoadd', KEYS[1], '13.361389', '38.115556', 'Palermo')", "1", "k"},
		{"EVAL", "return redis.call('get')", "0"},
		{"EVAL", "return redis.error_reply('MY_ERR custom')", "0"},
		{"EVAL", "return redis.call('config', 'get', 'maxmemory')", "0"},
		{"FUNCTION", "LOAD", "#!lua name=statlib\n" +
			"redis.register_function('fails', function() return redis.call('select', 99) end)\n" +
			"redis.register_function('caught', function() return redis.pcall('incr', 'k') end)\n" +
			"redis.register_function{function_name='ro', callback=function() return redis.call('set', 'x', 'y') end, flags={'no-writes'}}"},
		{"FUNCTION", "LOAD", "#!lua name=statlib\nredis.register_function('fails', function() end)"},
		{"FUNCTION", "LOAD", "#!lua name=broken\nnot lua"},
		{"FCALL", "fails", "0"},
		{"FCALL", "caught", "0"},
		{"FCALL", "ro", "0"},
		{"FCALL_RO", "ro", "0"},
		{"FCALL", "nosuch", "0"},
		{"FUNCTION", "DELETE", "nosuch"},
		{"SINTERSTORE", "dst", "k", "nokey"},
		{"SINTERSTORE", "dst", "nokey1", "nokey2"},
		{"MULTI"},
		{"INCR", "k"},
		{"SET", "k2", "v"},
		{"SINTERSTORE", "dst", "k", "nokey"},
		{"EVAL", "return redis.call('select', 99)", "0"},
		{"GET"},
		{"EXEC"},
		{"MULTI"},
		{"INCR", "k"},
		{"EVAL", "return 1", "0"},
		{"EXEC"},
		{"CONFIG", "SET", "maxmemory", "1"},
		{"EVAL", "return redis.call('set', 'x', 'y')", "1", "x"},
		{"SET", "x", "y"},
		{"CONFIG", "SET", "maxmemory", "0"},
	}
	stat := regexp.MustCompile(`(?m)^((?:cmdstat|errorstat)_[^:]+):(?:calls=(\d+),usec=\d+,usec_per_call=[\d.]+,)?(.*)\r$`)
	got := map[string]string{}
	for _, tg := range []target{real, tcp} {
		tg.reset(t)
		c := tg.open(t, false)
		c("CONFIG", "RESETSTAT")
		for _, s := range steps {
			c(s...)
		}
		var lines []string
		for _, sec := range []string{"commandstats", "errorstats"} {
			for _, m := range stat.FindAllStringSubmatch(string(c("INFO", sec)), -1) {
				lines = append(lines, m[1]+" calls="+m[2]+" "+m[3])
			}
		}
		// Redis lists commands in its dict's order.
		sort.Strings(lines)
		got[tg.name] = strings.Join(lines, "\n")
	}
	if got["redis"] == "" {
		t.Fatal("redis-server listed no commandstats")
	}
	if got["redis"] != got["engine-tcp"] {
		t.Errorf("INFO commandstats and errorstats differ\nredis:\n%s\nengine:\n%s", got["redis"], got["engine-tcp"])
	}
}

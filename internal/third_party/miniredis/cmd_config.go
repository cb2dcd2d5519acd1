// scriptgen: CONFIG, which upstream does not serve. Redis's clients and its
// own test suite read and set parameters; those that change how the engine
// behaves (busy-reply-threshold, maxmemory, the encoding thresholds OBJECT
// ENCODING reports) are read by their users through ConfigInt and
// ConfigString, and the engine learns of a change through OnConfigSet.

package miniredis

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/size"
)

type configKind int

const (
	cfgInt configKind = iota
	cfgMemory
	cfgBool
	cfgEnum
	cfgString
)

// configParam is one parameter of Redis 7.0's config table (config.c):
// its name, its old name, its default, and how a value is checked.
type configParam struct {
	name, alias string
	kind        configKind
	def         string
	min, max    int64
	enum        []string
	immutable   bool
}

var maxmemoryPolicies = []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
	"allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"}

// configTable holds the parameters clients and Redis's test suite read,
// with redis-server 7.0.15's defaults and bounds.
var configTable = []configParam{
	{name: "maxmemory", kind: cfgMemory, def: "0", max: math.MaxInt64},
	{name: "maxmemory-policy", kind: cfgEnum, def: "noeviction", enum: maxmemoryPolicies},
	{name: "maxmemory-samples", kind: cfgInt, def: "5", min: 1, max: math.MaxInt32},
	{name: "busy-reply-threshold", alias: "lua-time-limit", kind: cfgInt, def: "5000", max: math.MaxInt64},
	{name: "hash-max-listpack-entries", alias: "hash-max-ziplist-entries", kind: cfgInt, def: "128", max: math.MaxInt64},
	{name: "hash-max-listpack-value", alias: "hash-max-ziplist-value", kind: cfgInt, def: "64", max: math.MaxInt64},
	{name: "zset-max-listpack-entries", alias: "zset-max-ziplist-entries", kind: cfgInt, def: "128", max: math.MaxInt64},
	{name: "zset-max-listpack-value", alias: "zset-max-ziplist-value", kind: cfgInt, def: "64", max: math.MaxInt64},
	{name: "list-max-listpack-size", alias: "list-max-ziplist-size", kind: cfgInt, def: "-2", min: math.MinInt32, max: math.MaxInt32},
	{name: "list-compress-depth", kind: cfgInt, def: "0", max: math.MaxInt32},
	{name: "set-max-intset-entries", kind: cfgInt, def: "512", max: math.MaxInt64},
	{name: "stream-node-max-bytes", kind: cfgMemory, def: "4096", max: math.MaxInt64},
	{name: "stream-node-max-entries", kind: cfgInt, def: "100", max: math.MaxInt64},
	{name: "min-replicas-to-write", alias: "min-slaves-to-write", kind: cfgInt, def: "0", max: math.MaxInt32},
	{name: "min-replicas-max-lag", alias: "min-slaves-max-lag", kind: cfgInt, def: "10", max: math.MaxInt32},
	{name: "repl-ping-replica-period", alias: "repl-ping-slave-period", kind: cfgInt, def: "10", min: 1, max: math.MaxInt32},
	{name: "replica-serve-stale-data", alias: "slave-serve-stale-data", kind: cfgBool, def: "yes"},
	{name: "replica-read-only", alias: "slave-read-only", kind: cfgBool, def: "yes"},
	{name: "appendonly", kind: cfgBool, def: "no"},
	{name: "aof-use-rdb-preamble", kind: cfgBool, def: "yes"},
	{name: "appendfsync", kind: cfgEnum, def: "everysec", enum: []string{"always", "everysec", "no"}},
	{name: "save", kind: cfgString, def: ""},
	{name: "sanitize-dump-payload", kind: cfgEnum, def: "no", enum: []string{"no", "yes", "clients"}},
	{name: "notify-keyspace-events", kind: cfgString, def: ""},
	{name: "lazyfree-lazy-eviction", kind: cfgBool, def: "no"},
	{name: "lazyfree-lazy-expire", kind: cfgBool, def: "no"},
	{name: "lazyfree-lazy-server-del", kind: cfgBool, def: "no"},
	{name: "lazyfree-lazy-user-del", kind: cfgBool, def: "no"},
	{name: "lazyfree-lazy-user-flush", kind: cfgBool, def: "no"},
	{name: "lfu-log-factor", kind: cfgInt, def: "10", max: math.MaxInt32},
	{name: "lfu-decay-time", kind: cfgInt, def: "1", max: math.MaxInt32},
	{name: "active-expire-effort", kind: cfgInt, def: "1", min: 1, max: 10},
	{name: "hz", kind: cfgInt, def: "10", max: math.MaxInt32},
	{name: "slowlog-log-slower-than", kind: cfgInt, def: "10000", min: -1, max: math.MaxInt64},
	{name: "slowlog-max-len", kind: cfgInt, def: "128", max: math.MaxInt64},
	{name: "latency-tracking", kind: cfgBool, def: "yes"},
	{name: "loglevel", kind: cfgEnum, def: "notice", enum: []string{"debug", "verbose", "notice", "warning"}},
	{name: "proto-max-bulk-len", kind: cfgMemory, def: "536870912", min: 1024 * 1024, max: math.MaxInt64},
	{name: "client-query-buffer-limit", kind: cfgMemory, def: "1073741824", min: 1024 * 1024, max: math.MaxInt64},
	{name: "maxclients", kind: cfgInt, def: "10000", min: 1, max: math.MaxUint32},
	{name: "timeout", kind: cfgInt, def: "0", max: math.MaxInt32},
	{name: "databases", kind: cfgInt, def: "16", immutable: true},
	{name: "cluster-enabled", kind: cfgBool, def: "no", immutable: true},
	{name: "io-threads", kind: cfgInt, def: "1", immutable: true},
	{name: "dbfilename", kind: cfgString, def: "dump.rdb"},
	{name: "appendfilename", kind: cfgString, def: "appendonly.aof", immutable: true},
}

// config is the parameters' current values, under the Miniredis lock.
type config struct {
	byName map[string]*configParam // names and aliases
	value  map[string]string       // by name
	onSet  func(name, value string)
	// hashLimits caches two of the values for hashSet (hashorder.go);
	// every change of a value resets it.
	hashLimits listpackLimits
}

func newConfig() *config {
	c := &config{byName: map[string]*configParam{}, value: map[string]string{}}
	for i := range configTable {
		p := &configTable[i]
		c.byName[p.name] = p
		if p.alias != "" {
			c.byName[p.alias] = p
		}
		c.value[p.name] = p.def
	}
	return c
}

// OnConfigSet makes f learn each parameter CONFIG SET changes, by its
// name (not its alias), under the Miniredis lock.
func (m *Miniredis) OnConfigSet(f func(name, value string)) {
	m.Lock()
	defer m.Unlock()
	m.cfg().onSet = f
}

// ConfigString returns a parameter's value; the caller holds the lock.
func (m *Miniredis) ConfigString(name string) string {
	c := m.cfg()
	if p, ok := c.byName[name]; ok {
		return c.value[p.name]
	}
	return ""
}

// ConfigInt returns an integer or memory parameter's value; the caller
// holds the lock.
func (m *Miniredis) ConfigInt(name string) int64 {
	n, _ := strconv.ParseInt(m.ConfigString(name), 10, 64)
	return n
}

// SetConfig sets a parameter as CONFIG SET would, for the engine's own
// settings (serve's flags); the caller holds the lock.
func (m *Miniredis) SetConfig(name, value string) error {
	c := m.cfg()
	p, ok := c.byName[strings.ToLower(name)]
	if !ok {
		return fmt.Errorf("unknown parameter %q", name)
	}
	v, msg := p.parse(value)
	if msg != "" {
		return fmt.Errorf("%s: %s", name, msg)
	}
	c.value[p.name] = v
	c.hashLimits = listpackLimits{}
	return nil
}

// usedMemoryBase is what redis-server 7.0.15 reports as used_memory when
// it has just started with no keys (INFO memory, jemalloc, x86-64): the
// server's own structures, which an estimate of ours must count too for
// maxmemory to deny at the same sizes.
const usedMemoryBase = 870_000

// keyOverhead is Redis's cost of a key beside its value: the dict entry,
// the robj and the key's sds header, rounded to jemalloc's size classes.
const keyOverhead = 72

// UsedMemory estimates what Redis would report as used_memory for this
// keyspace: the base, and per key its name, value (MEMORY USAGE's measure)
// and overhead. It walks every key: the engine calls it only when
// maxmemory is set. The caller holds the lock.
func (m *Miniredis) UsedMemory() int64 {
	used := int64(usedMemoryBase)
	for _, db := range m.dbs {
		if db == nil {
			continue
		}
		for k := range db.keys {
			v, _ := db.value(k)
			used += int64(len(k)+keyOverhead) + int64(size.Of(v))
		}
	}
	return used
}

func (m *Miniredis) cfg() *config {
	if m.config == nil {
		m.config = newConfig()
	}
	return m.config
}

func commandsConfig(m *Miniredis) {
	m.srv.Register("CONFIG", m.cmdConfig)
}

// CONFIG
func (m *Miniredis) cmdConfig(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(1)) {
		return
	}
	sub, given := strings.ToLower(args[0]), args[0]
	wrong := func() {
		setDirty(c)
		c.WriteError(fmt.Sprintf(MsgUnknownSubcommand, given, "CONFIG"))
	}
	args = args[1:]
	arity := func(min int) bool {
		if len(args) < min {
			setDirty(c)
			c.WriteError(errWrongNumber("config|" + sub))
			return false
		}
		return true
	}
	switch sub {
	case "get":
		if !arity(1) {
			return
		}
		withTx(m, c, func(c *server.Peer, ctx *connCtx) { m.configGet(c, args) })
	case "set":
		if !arity(2) {
			return
		}
		if len(args)%2 != 0 {
			setDirty(c)
			c.WriteError(msgSyntaxError)
			return
		}
		withTx(m, c, func(c *server.Peer, ctx *connCtx) { m.configSet(c, args) })
	case "resetstat":
		if len(args) != 0 {
			wrong()
			return
		}
		withTx(m, c, func(c *server.Peer, ctx *connCtx) {
			m.srv.ErrorStats().Reset() // scriptgen: INFO errorstats
			m.srv.ResetCommandStats()  // and commandstats
			m.expiredKeys = 0          // and stats' expired_keys
			c.WriteOK()
		})
	case "rewrite":
		if len(args) != 0 {
			wrong()
			return
		}
		withTx(m, c, func(c *server.Peer, ctx *connCtx) { c.WriteError(msgConfigNoFile) })
	case "help":
		if len(args) != 0 {
			wrong()
			return
		}
		withTx(m, c, func(c *server.Peer, ctx *connCtx) { writeHelp(c, "CONFIG", configHelp) })
	default:
		wrong()
	}
}

var configHelp = []string{
	"GET <pattern>",
	"    Return parameters matching the glob-like <pattern> and their values.",
	"SET <directive> <value>",
	"    Set the configuration <directive> to <value>.",
	"RESETSTAT",
	"    Reset statistics reported by the INFO command.",
	"REWRITE",
	"    Rewrite the configuration file.",
}

// writeHelp writes a HELP reply as Redis's addReplyHelp does.
func writeHelp(c *server.Peer, cmd string, lines []string) {
	c.WriteLen(len(lines) + 3)
	c.WriteInline(cmd + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		c.WriteInline(l)
	}
	c.WriteInline("HELP")
	c.WriteInline("    Prints this help.")
}

func (m *Miniredis) configGet(c *server.Peer, patterns []string) {
	cf := m.cfg()
	keys := make([]string, 0, len(cf.byName))
	for k := range cf.byName {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	seen := map[string]bool{}
	var out []string
	for _, pat := range patterns {
		pat = strings.ToLower(pat)
		if p, ok := cf.byName[pat]; ok {
			if !seen[p.name] {
				seen[p.name] = true
				out = append(out, pat, cf.value[p.name])
			}
			continue
		}
		re := patternRE(pat)
		for _, k := range keys {
			p := cf.byName[k]
			if !seen[p.name] && re != nil && re.MatchString(k) {
				seen[p.name] = true
				out = append(out, k, cf.value[p.name])
			}
		}
	}
	c.WriteMapLen(len(out) / 2)
	for _, s := range out {
		c.WriteBulk(s)
	}
}

// configSet checks every pair before it sets any, as Redis does.
func (m *Miniredis) configSet(c *server.Peer, args []string) {
	cf := m.cfg()
	type change struct {
		p     *configParam
		value string
	}
	var changes []change
	seen := map[string]bool{}
	for i := 0; i < len(args); i += 2 {
		name := strings.ToLower(args[i])
		p, ok := cf.byName[name]
		if !ok {
			c.WriteError(fmt.Sprintf(msgConfigUnknown, args[i]))
			return
		}
		fail := func(msg string) { c.WriteError(fmt.Sprintf(msgConfigSetFailed, args[i], msg)) }
		if seen[p.name] {
			fail("duplicate parameter")
			return
		}
		seen[p.name] = true
		if p.immutable {
			fail("can't set immutable config")
			return
		}
		v, msg := p.parse(args[i+1])
		if msg != "" {
			fail(msg)
			return
		}
		changes = append(changes, change{p, v})
	}
	for _, ch := range changes {
		cf.value[ch.p.name] = ch.value
		cf.hashLimits = listpackLimits{}
		if cf.onSet != nil {
			cf.onSet(ch.p.name, ch.value)
		}
	}
	c.WriteOK()
}

// parse checks a value as config.c's setters do and returns it as CONFIG
// GET shows it, or the error's text.
func (p *configParam) parse(v string) (string, string) {
	switch p.kind {
	case cfgBool:
		switch strings.ToLower(v) {
		case "yes", "no":
			return strings.ToLower(v), ""
		}
		return "", "argument must be 'yes' or 'no'"
	case cfgEnum:
		for _, e := range p.enum {
			if strings.EqualFold(e, v) {
				return e, ""
			}
		}
		return "", "argument(s) must be one of the following: " + strings.Join(p.enum, ", ")
	case cfgString:
		return v, ""
	}
	var n int64
	if p.kind == cfgMemory {
		var ok bool
		if n, ok = memToBytes(v); !ok {
			return "", "argument must be a memory value"
		}
	} else {
		var err error
		if n, err = strconv.ParseInt(v, 10, 64); err != nil {
			return "", "argument couldn't be parsed into an integer"
		}
	}
	if n < p.min || n > p.max {
		return "", fmt.Sprintf("argument must be between %d and %d inclusive", p.min, p.max)
	}
	return strconv.FormatInt(n, 10), ""
}

// memToBytes reads a memory value as util.c's memtoull: a number with an
// optional unit, k/kb/m/mb/g/gb (k is 1000, kb 1024), any case.
func memToBytes(s string) (int64, bool) {
	units := []struct {
		suffix string
		n      int64
	}{{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"b", 1}}
	s = strings.ToLower(s)
	mul := int64(1)
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mul = num, u.n
			break
		}
	}
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > math.MaxInt64/uint64(mul) {
		return 0, false
	}
	return int64(n) * mul, true
}

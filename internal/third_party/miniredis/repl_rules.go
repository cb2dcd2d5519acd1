// scriptgen: how each command is propagated to replicas (repl.go), from
// Redis 7.0.15's rewriteClientCommandVector, rewriteClientCommandArgument,
// alsoPropagate and preventCommandPropagation calls. A command with no rule
// goes out as it came, when it changed the dataset.

package miniredis

import (
	"strconv"
	"strings"
)

// propRule is how one command is propagated. before sees the database
// before the command runs and keeps what after needs (what a pop took);
// after, called only when the command changed the dataset (or force is
// set), gives the commands to propagate for it.
type propRule struct {
	force  bool
	before func(db *RedisDB, args []string) any
	after  func(db *RedisDB, args []string, pre any) [][]string
}

// touchesArbitraryKeys are the commands whose unit Redis never wraps in
// MULTI/EXEC (CMD_TOUCHES_ARBITRARY_KEYS): the keys they expire on the
// way go out as separate DELs.
var touchesArbitraryKeys = map[string]bool{"KEYS": true, "SCAN": true, "RANDOMKEY": true}

var propRules map[string]propRule

func init() {
	none := propRule{after: func(*RedisDB, []string, any) [][]string { return nil }}
	propRules = map[string]propRule{
		// Forced: propagated even when nothing changed (db.c, pubsub.c).
		"FLUSHALL": {force: true},
		"FLUSHDB":  {force: true},
		"PUBLISH":  {force: true},

		// Never themselves: admin commands that move no data a replica
		// holds, and the engine's scripts, which propagate their effects.
		"DEBUG": none, "CONFIG": none, "CLIENT": none, "SCRIPT": none, "FUNCTION": none,

		// Relative and absolute expiries as absolute PXAT / PEXPIREAT
		// (t_string.c setGenericCommand, getexCommand; expire.c).
		"SET":          {after: propSet},
		"SETEX":        {after: propSetex},
		"PSETEX":       {after: propSetex},
		"GETEX":        {after: propGetex},
		"EXPIRE":       {after: propExpire},
		"PEXPIRE":      {after: propExpire},
		"EXPIREAT":     {after: propExpire},
		"PEXPIREAT":    {after: propExpire},
		"RESTORE":      {after: propRestore},
		"GETDEL":       {after: func(_ *RedisDB, args []string, _ any) [][]string { return [][]string{{"DEL", args[0]}} }},
		"GETSET":       {after: func(_ *RedisDB, args []string, _ any) [][]string { return [][]string{{"SET", args[0], args[1]}} }},
		"INCRBYFLOAT":  {after: propIncrbyfloat},
		"HINCRBYFLOAT": {after: propHincrbyfloat},

		// Pops as what they took (t_set.c, t_list.c, t_zset.c).
		"SPOP":       {before: beforeSpop, after: propSpop},
		"BLPOP":      {before: lengthsBlocking, after: propBpop("LPOP")},
		"BRPOP":      {before: lengthsBlocking, after: propBpop("RPOP")},
		"BZPOPMIN":   {before: lengthsBlocking, after: propBpop("ZPOPMIN")},
		"BZPOPMAX":   {before: lengthsBlocking, after: propBpop("ZPOPMAX")},
		"LMPOP":      {before: lengthsMpop(0), after: propMpop(0, "LEFT", "LPOP", "RPOP")},
		"BLMPOP":     {before: lengthsMpop(1), after: propMpop(1, "LEFT", "LPOP", "RPOP")},
		"ZMPOP":      {before: lengthsMpop(0), after: propMpop(0, "MIN", "ZPOPMIN", "ZPOPMAX")},
		"BZMPOP":     {before: lengthsMpop(1), after: propMpop(1, "MIN", "ZPOPMIN", "ZPOPMAX")},
		"BRPOPLPUSH": {after: func(_ *RedisDB, args []string, _ any) [][]string { return [][]string{{"RPOPLPUSH", args[0], args[1]}} }},
		"BLMOVE": {after: func(_ *RedisDB, args []string, _ any) [][]string {
			return [][]string{{"LMOVE", args[0], args[1], args[2], args[3]}}
		}},

		// An ID the server picks goes out as the ID it picked
		// (t_stream.c xaddCommand).
		"XADD":  {after: propXadd},
		"XTRIM": {after: propXtrim},
	}
}

// deadlineMs is key's absolute expiry in Unix milliseconds, and whether
// it has one.
func deadlineMs(db *RedisDB, key string) (string, bool) {
	at, ok := db.deadline(key)
	if !ok {
		return "", false
	}
	return strconv.FormatInt(at.UnixMilli(), 10), true
}

func withArgs(name string, args []string) []string {
	return append([]string{name}, args...)
}

// SET key value [NX|XX] [GET] [EX|PX|EXAT|PXAT t|KEEPTTL]: with an expiry,
// SET key value PXAT ms; else without GET.
func propSet(db *RedisDB, args []string, _ any) [][]string {
	key, val := args[0], args[1]
	hasGet := false
	for _, a := range args[2:] {
		switch strings.ToUpper(a) {
		case "EX", "PX", "EXAT", "PXAT":
			if ms, ok := deadlineMs(db, key); ok {
				return [][]string{{"SET", key, val, "PXAT", ms}}
			}
		case "GET":
			hasGet = true
		}
	}
	if !hasGet {
		return [][]string{withArgs("SET", args)}
	}
	out := []string{"SET", key, val}
	for _, a := range args[2:] {
		if !strings.EqualFold(a, "GET") {
			out = append(out, a)
		}
	}
	return [][]string{out}
}

// SETEX key seconds value, PSETEX key ms value: SET key value PXAT ms.
func propSetex(db *RedisDB, args []string, _ any) [][]string {
	if ms, ok := deadlineMs(db, args[0]); ok {
		return [][]string{{"SET", args[0], args[2], "PXAT", ms}}
	}
	return [][]string{{"SET", args[0], args[2]}}
}

// GETEX key [EX|PX|EXAT|PXAT t|PERSIST]: DEL when the time was past,
// PERSIST, or PEXPIREAT.
func propGetex(db *RedisDB, args []string, _ any) [][]string {
	key := args[0]
	if db.LiveType(key) == "" {
		return [][]string{{"DEL", key}}
	}
	if ms, ok := deadlineMs(db, key); ok {
		return [][]string{{"PEXPIREAT", key, ms}}
	}
	return [][]string{{"PERSIST", key}}
}

// EXPIRE family: PEXPIREAT key ms [the flags], or DEL when the time was
// past.
func propExpire(db *RedisDB, args []string, _ any) [][]string {
	key := args[0]
	ms, ok := deadlineMs(db, key)
	if db.LiveType(key) == "" || !ok {
		return [][]string{{"DEL", key}}
	}
	return [][]string{append([]string{"PEXPIREAT", key, ms}, args[2:]...)}
}

// RESTORE key ttl payload [...]: a relative ttl as ABSTTL.
func propRestore(db *RedisDB, args []string, _ any) [][]string {
	for _, a := range args[3:] {
		if strings.EqualFold(a, "ABSTTL") {
			return [][]string{withArgs("RESTORE", args)}
		}
	}
	ms, ok := deadlineMs(db, args[0])
	if args[1] == "0" || !ok {
		return [][]string{withArgs("RESTORE", args)}
	}
	out := withArgs("RESTORE", args)
	out[2] = ms
	return [][]string{append(out, "ABSTTL")}
}

// INCRBYFLOAT key incr: SET key result KEEPTTL.
func propIncrbyfloat(db *RedisDB, args []string, _ any) [][]string {
	return [][]string{{"SET", args[0], db.stringGet(args[0]), "KEEPTTL"}}
}

// HINCRBYFLOAT key field incr: HSET key field result.
func propHincrbyfloat(db *RedisDB, args []string, _ any) [][]string {
	return [][]string{{"HSET", args[0], args[1], db.hashKeys[args[0]][args[1]]}}
}

// spopBefore is a set's members before an SPOP.
type spopBefore []string

func beforeSpop(db *RedisDB, args []string) any {
	return spopBefore(sortedMembers(db.setKeys[args[0]]))
}

// SPOP key: SREM key member. SPOP key count: DEL key when it took all,
// else one SREM per member taken.
func propSpop(db *RedisDB, args []string, pre any) [][]string {
	key := args[0]
	if len(args) > 1 && db.LiveType(key) == "" {
		return [][]string{{"DEL", key}}
	}
	now := db.setKeys[key]
	var out [][]string
	for _, m := range pre.(spopBefore) {
		if _, ok := now[m]; !ok {
			out = append(out, []string{"SREM", key, m})
		}
	}
	return out
}

// lengths is how many elements each key a pop may take from holds.
type lengths map[string]int

func (db *RedisDB) length(key string) int {
	if l, ok := db.listKeys[key]; ok {
		return len(l)
	}
	if z, ok := db.sortedsetKeys[key]; ok {
		return len(z)
	}
	return 0
}

func lengthsOf(db *RedisDB, keys []string) any {
	out := lengths{}
	for _, k := range keys {
		out[k] = db.length(k)
	}
	return out
}

// taken is the first key that lost elements, and how many.
func taken(db *RedisDB, keys []string, pre any) (string, int) {
	before := pre.(lengths)
	for _, k := range keys {
		if n := before[k] - db.length(k); n > 0 {
			return k, n
		}
	}
	return "", 0
}

// BLPOP key... timeout and the other single pops.
func lengthsBlocking(db *RedisDB, args []string) any {
	return lengthsOf(db, args[:len(args)-1])
}

func propBpop(pop string) func(*RedisDB, []string, any) [][]string {
	return func(db *RedisDB, args []string, pre any) [][]string {
		key, n := taken(db, args[:len(args)-1], pre)
		if n == 0 {
			return nil
		}
		return [][]string{{pop, key}}
	}
}

// mpopKeys is [B]LMPOP's and [B]ZMPOP's keys and direction; skip is 1 for
// the timeout of the blocking ones.
func mpopKeys(skip int, args []string) ([]string, string) {
	if len(args) <= skip {
		return nil, ""
	}
	n, err := strconv.Atoi(args[skip])
	if err != nil || n < 0 || skip+1+n >= len(args) {
		return nil, ""
	}
	return args[skip+1 : skip+1+n], args[skip+1+n]
}

func lengthsMpop(skip int) func(*RedisDB, []string) any {
	return func(db *RedisDB, args []string) any {
		keys, _ := mpopKeys(skip, args)
		return lengthsOf(db, keys)
	}
}

// propMpop: [LR]POP or ZPOP{MIN,MAX} key with the count taken.
func propMpop(skip int, first, popFirst, popLast string) func(*RedisDB, []string, any) [][]string {
	return func(db *RedisDB, args []string, pre any) [][]string {
		keys, dir := mpopKeys(skip, args)
		key, n := taken(db, keys, pre)
		if n == 0 {
			return nil
		}
		pop := popLast
		if strings.EqualFold(dir, first) {
			pop = popFirst
		}
		return [][]string{{pop, key, strconv.Itoa(n)}}
	}
}

// XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT n]] id|* ...:
// the ID the server made in place of * (or ms-*), and an approximate trim
// as the exact one it came to (t_stream.c streamRewriteTrimArgument).
func propXadd(db *RedisDB, args []string, _ any) [][]string {
	out := withArgs("XADD", args)
	i := trimArgs(db, args, out, 1)
	if i < len(args) && strings.HasSuffix(args[i], "*") {
		if s, ok := db.streamKeys[args[0]]; ok {
			id := s.lastIDNum()
			out[i+1] = strconv.FormatUint(id[0], 10) + "-" + strconv.FormatUint(id[1], 10)
		}
	}
	return [][]string{out}
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT n]: an approximate trim as
// the exact one it came to.
func propXtrim(db *RedisDB, args []string, _ any) [][]string {
	out := withArgs("XTRIM", args)
	trimArgs(db, args, out, 1)
	return [][]string{out}
}

// trimArgs walks the options of XADD or XTRIM from args[i], rewriting in
// out (args with the command name in front) an approximate trim's ~ as =
// and its threshold as the stream's length (MAXLEN) or first ID (MINID)
// after it; it returns the index of the first argument that is no option.
func trimArgs(db *RedisDB, args, out []string, i int) int {
	for i < len(args) {
		switch strategy := strings.ToUpper(args[i]); strategy {
		case "NOMKSTREAM":
			i++
		case "MAXLEN", "MINID":
			i++
			if i < len(args) && (args[i] == "=" || args[i] == "~") {
				if args[i] == "~" {
					if s, ok := db.streamKeys[args[0]]; ok && i+1 < len(args) {
						out[i+1] = "="
						out[i+2] = strconv.Itoa(len(s.entries))
						if strategy == "MINID" {
							out[i+2] = s.firstID()
						}
					}
				}
				i++
			}
			i++
		case "LIMIT":
			i += 2
		default:
			return i
		}
	}
	return i
}

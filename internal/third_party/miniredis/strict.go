// scriptgen: Redis's checks in front of the commands miniredis answers
// otherwise. They were the engine's (transactional/strict.go and
// cmd_keys.go), applied from outside through its pre-hook and reflection.

package miniredis

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// commandsStrict puts strict in front of every command registered before
// it. Each command's row of Redis's command table (package commands, the
// one the linter and the engine use) is looked up here, once, for the
// arity check Redis makes before any other.
func commandsStrict(m *Miniredis) {
	m.srv.Wrap(func(name string, h server.Cmd) server.Cmd {
		info := commands.Lookup(name)
		return func(c *server.Peer, cmd string, args []string) {
			if !m.strict(c, info, cmd, args) {
				h(c, cmd, args)
			}
		}
	})
}

// strict answers, as Redis does, what miniredis gets wrong in the ways the
// functions below list, and reports whether it did; everything else is
// miniredis's. A nested peer's caller (a script's redis.call) holds the
// lock already; for a client's command, each check takes it as it needs.
func (m *Miniredis) strict(c *server.Peer, info *commands.Command, cmd string, args []string) bool {
	return m.strictIntegers(c, info, cmd, args) || m.setrangeGuard(c, cmd, args) || m.zsetGuard(c, cmd, args) ||
		m.getrangeGuard(c, cmd, args) || m.moveInPlace(c, cmd, args) || m.ttlRounded(c, cmd, args) ||
		m.storeSourcesTyped(c, cmd, args) || m.streamGuard(c, cmd, args)
}

// Redis reads an integer, argument or stored value, with string2ll, which
// takes only the canonical spelling: no "+", no leading zero, no "-0", no
// space. miniredis reads with strconv.Atoi and so takes "01" and "+1" that
// Redis refuses. strictIntegers checks the integers of the commands below
// before miniredis's handlers read them, with Redis's replies.

// isRedisInteger is string2ll's verdict on s.
func isRedisInteger(s string) bool {
	if len(s) == 0 || len(s) > 20 {
		return false
	}
	if s == "0" {
		return true
	}
	digits := s
	if s[0] == '-' {
		digits = s[1:]
	}
	if len(digits) == 0 || digits[0] < '1' || digits[0] > '9' {
		return false
	}
	var v uint64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return false
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return false
		}
		v = v*10 + d
	}
	if s[0] == '-' {
		return v <= 1<<63
	}
	return v <= 1<<63-1
}

// isRedisFloat is string2ld's verdict on s, near enough: a number with
// nothing before or after it, not NaN.
func isRedisFloat(s string) bool {
	if s == "" || s[0] == ' ' || s[0] == '\t' {
		return false
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && !math.IsNaN(f)
}

// badInteger is the error Redis gives for cmd's integer arguments (args
// after the command name), or "" when they read as Redis reads them.
// Only arguments of the right arity are looked at: the arity error comes
// first, and miniredis gives it.
func badInteger(cmd string, args []string) string {
	check := func(msg string, at ...int) string {
		for _, i := range at {
			if i < len(args) && !isRedisInteger(args[i]) {
				return msg
			}
		}
		return ""
	}
	switch cmd {
	case "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT":
		if len(args) > 2 {
			if msg := badExpireOptions(args[2:]); msg != "" {
				return msg
			}
		}
		return check(msgInvalidInt, 1)
	case "INCRBY", "DECRBY", "SETRANGE", "LINDEX", "LSET", "LREM", "SETEX", "PSETEX":
		return check(msgInvalidInt, 1)
	case "HINCRBY":
		return check(msgInvalidInt, 2)
	case "ZREVRANGE":
		return badZrange(args, zByRank)
	case "GETRANGE", "SUBSTR", "LRANGE", "LTRIM", "ZREMRANGEBYRANK":
		return check(msgInvalidInt, 1, 2)
	case "GETBIT", "SETBIT":
		// A bit offset is below 2^32 (512 MB of string); beyond, miniredis
		// would allocate the string, or panic.
		if len(args) >= 2 {
			if n, err := strconv.ParseUint(args[1], 10, 64); !isRedisInteger(args[1]) || err != nil || n >= 1<<32 {
				return msgBitOffset
			}
		}
		if cmd == "SETBIT" && len(args) == 3 && args[2] != "0" && args[2] != "1" {
			return msgBitValue
		}
	case "LPOP", "RPOP", "SPOP":
		if len(args) == 2 && (!isRedisInteger(args[1]) || args[1][0] == '-') {
			return msgInvalidRange
		}
	case "SRANDMEMBER", "HRANDFIELD", "ZRANDMEMBER":
		if len(args) >= 2 {
			return check(msgInvalidInt, 1)
		}
	case "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE":
		if len(args) > 1 {
			return badNumkeys(cmd, args[1:])
		}
	case "ZUNION", "ZINTER", "ZDIFF":
		return badNumkeys(cmd, args)
	case "ZRANGE":
		return badZrange(args, zByAny)
	case "ZRANGESTORE":
		if len(args) > 0 {
			return badZrange(args[1:], zByAnyStore)
		}
	case "ZRANGEBYSCORE", "ZREVRANGEBYSCORE":
		return badZrange(args, zByScore)
	case "ZRANGEBYLEX", "ZREVRANGEBYLEX":
		return badZrange(args, zByLex)
	case "LMPOP", "ZMPOP":
		if msg := badMpopNumkeys(args); msg != "" {
			return msg
		}
		return badMpopCount(args)
	case "SINTERCARD":
		if msg := badMpopNumkeys(args); msg != "" || len(args) == 0 {
			return msg
		}
		n, _ := strconv.Atoi(args[0])
		if n > len(args)-1 {
			return "" // the handler's "Number of keys can't be greater …" comes first
		}
		return badOptionValue(args[1+n:], "LIMIT", "ERR LIMIT can't be negative", true)
	case "BLMPOP", "BZMPOP":
		if len(args) > 1 {
			if msg := badMpopNumkeys(args[1:]); msg != "" {
				return msg
			}
			return badMpopCount(args[1:])
		}
	case "LPOS":
		return badLposOption(args)
	case "ZPOPMIN", "ZPOPMAX":
		if len(args) == 2 && (!isRedisInteger(args[1]) || args[1][0] == '-') {
			return msgInvalidRange
		}
	}
	return ""
}

// badNumkeys is the error Redis 7.0 gives a numkeys (args[0]) of ZUNION,
// ZINTER, ZDIFF and their STORE forms, or "": string2ll's integer, at
// least 1, and no more than the arguments that follow. scriptgen: found by
// the grammar differential; miniredis read "+1" and "01" as 1, and a count
// near 2^63 made it slice out of range and drop the connection.
func badNumkeys(cmd string, args []string) string {
	if len(args) == 0 {
		return ""
	}
	if !isRedisInteger(args[0]) {
		return msgInvalidInt
	}
	n, _ := strconv.ParseInt(args[0], 10, 64)
	switch {
	case n < 1:
		return "ERR at least 1 input key is needed for '" + strings.ToLower(cmd) + "' command"
	case n > int64(len(args)-1):
		return msgSyntaxError
	}
	return ""
}

// The range types of badZrange: a command's own, or ZRANGE's choice
// (zByAnyStore: ZRANGESTORE's, without WITHSCORES).
const (
	zByRank = iota
	zByScore
	zByLex
	zByAny
	zByAnyStore
)

// badZrange is the error Redis 7.0 gives the arguments of ZRANGE and the
// commands its code serves (ZRANGESTORE after the destination, ZREVRANGE,
// Z[REV]RANGEBYSCORE, Z[REV]RANGEBYLEX) before it reads the range or
// looks the key up, or "": the options in order (an unknown one, BYSCORE,
// BYLEX or REV for any but ZRANGE, a second BYSCORE, BYLEX or REV, WITHSCORES
// for a store, or a LIMIT without two arguments is a syntax error; LIMIT's
// two are integers); then a LIMIT (with a count other
// than -1) on a rank range and WITHSCORES with BYLEX refused, and a rank
// range read as integers. scriptgen: found by the grammar differential;
// the checks read the range first.
func badZrange(args []string, cmdBy int) string {
	by, withScores, limit, chosen, rev := cmdBy, false, false, false, false
	if cmdBy >= zByAny {
		by = zByRank
	}
	for i := 3; i < len(args); i++ {
		switch a := strings.ToLower(args[i]); {
		case a == "withscores" && cmdBy != zByAnyStore:
			withScores = true
		case a == "byscore" && cmdBy >= zByAny && !chosen:
			by, chosen = zByScore, true
		case a == "bylex" && cmdBy >= zByAny && !chosen:
			by, chosen = zByLex, true
		case a == "rev" && cmdBy >= zByAny && !rev:
			rev = true
		case a == "limit" && i+2 < len(args):
			if !isRedisInteger(args[i+1]) || !isRedisInteger(args[i+2]) {
				return msgInvalidInt
			}
			// Redis takes a count of -1 for no limit at all.
			limit = args[i+2] != "-1"
			i += 2
		default:
			return msgSyntaxError
		}
	}
	switch {
	case limit && by == zByRank:
		return msgLimitCombination
	case withScores && by == zByLex:
		return msgWithscoresBylex
	case by == zByRank && len(args) >= 3 && (!isRedisInteger(args[1]) || !isRedisInteger(args[2])):
		return msgInvalidInt
	}
	return ""
}

// zaddScores reads ZADD's arguments (after the command) as
// zaddGenericCommand does up to its scores: the option words (NX, XX, CH,
// INCR, GT, LT) after the key, then score-member pairs. It returns the
// index of the first score, and false where Redis refuses the command
// before it reads a score: an odd or empty list of pairs, options that do
// not go together, INCR with more than one pair.
func zaddScores(args []string) (int, bool) {
	if len(args) == 0 {
		return 0, false
	}
	seen, i := leadingWords(args[1:], "NX", "XX", "GT", "LT", "INCR", "CH")
	nx, xx, gt, lt, incr := seen&1 != 0, seen&2 != 0, seen&4 != 0, seen&8 != 0, seen&16 != 0
	i++ // the key
	n := len(args) - i
	ok := n > 0 && n%2 == 0 && !(nx && (xx || gt || lt)) && !(gt && lt) && !(incr && n > 2)
	return i, ok
}

// leadingWords reads the option words (words, upper case) args starts
// with, in any case and order: the set seen, bit i for words[i], and how
// many args they are.
func leadingWords(args []string, words ...string) (seen uint, n int) {
	for ; n < len(args); n++ {
		i := slices.IndexFunc(words, func(w string) bool { return strings.EqualFold(w, args[n]) })
		if i < 0 {
			break
		}
		seen |= 1 << i
	}
	return seen, n
}

// zaddIncr reports whether ZADD's options (args before the first score)
// hold INCR.
func zaddIncr(args []string) bool {
	for _, a := range args[1:] {
		if strings.EqualFold(a, "INCR") {
			return true
		}
	}
	return false
}

// badMpopCount is the error Redis gives LMPOP's and ZMPOP's COUNT, read
// before any key is looked up (args from numkeys on), or "".
func badMpopCount(args []string) string {
	if len(args) == 0 {
		return ""
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 || n > len(args)-2 {
		return ""
	}
	switch strings.ToUpper(args[n+1]) {
	case "LEFT", "RIGHT", "MIN", "MAX":
	default:
		return "" // the handler's syntax error comes first
	}
	// Only one COUNT: a second is a syntax error.
	rest := args[n+2:]
	if len(rest) > 2 {
		if msg := badOptionValue(rest[:2], "COUNT", "ERR count should be greater than 0", false); msg != "" {
			return msg
		}
		return msgSyntaxError
	}
	return badOptionValue(rest, "COUNT", "ERR count should be greater than 0", false)
}

// badOptionValue reads options as Redis's loops over SINTERCARD's LIMIT and
// MPOP's COUNT do: the one option word with a value after it, its value a
// non-negative integer (positive unless zero is allowed) or msg; anything
// else a syntax error.
func badOptionValue(rest []string, word, msg string, zero bool) string {
	for i := 0; i < len(rest); i++ {
		if !strings.EqualFold(rest[i], word) || i+1 == len(rest) {
			return msgSyntaxError
		}
		i++
		if v := rest[i]; !isRedisInteger(v) || v[0] == '-' || (!zero && v == "0") {
			return msg
		}
	}
	return ""
}

// badExpireOptions is the error Redis 7.0 gives EXPIRE's options (NX, XX,
// GT, LT), which it reads before the time, or "". scriptgen: found by the
// grammar differential; the check read the time first.
func badExpireOptions(opts []string) string {
	seen, n := leadingWords(opts, "NX", "XX", "GT", "LT")
	if n < len(opts) {
		return "ERR Unsupported option " + opts[n]
	}
	nx, xx, gt, lt := seen&1 != 0, seen&2 != 0, seen&4 != 0, seen&8 != 0
	switch {
	case nx && (xx || gt || lt):
		return "ERR NX and XX, GT or LT options at the same time are not compatible"
	case gt && lt:
		return "ERR GT and LT options at the same time are not compatible"
	}
	return ""
}

// badMpopNumkeys is LMPOP's and ZMPOP's numkeys error (args[0]): Redis
// reads it as an integer of at least 1 and has one text for anything else.
func badMpopNumkeys(args []string) string {
	if len(args) > 0 && (!isRedisInteger(args[0]) || args[0][0] == '-' || args[0] == "0") {
		return "ERR numkeys should be greater than 0"
	}
	return ""
}

// badLposOption is the error Redis gives for the first of LPOS's options
// (after key and element) whose value it refuses, or "". Redis reads them
// in order: RANK as an integer, not 0; COUNT and MAXLEN as integers not
// below 0, with their own texts for anything else ("COUNT can't be
// negative" for "x" too). scriptgen: the engine's check read all three as
// RANK, and answered "ERR value is not an integer or out of range" for a
// COUNT or MAXLEN of "x", and for a RANK of "x" after a COUNT of -1.
// An unknown option, or one without its value, is a syntax error
// miniredis gives.
func badLposOption(args []string) string {
	for i := 2; i+1 < len(args); i += 2 {
		v := args[i+1]
		switch strings.ToUpper(args[i]) {
		case "RANK":
			if !isRedisInteger(v) {
				return msgInvalidInt
			}
			if v == "0" {
				return msgRankIsZero
			}
		case "COUNT":
			if !isRedisInteger(v) || v[0] == '-' {
				return msgCountIsNegative
			}
		case "MAXLEN":
			if !isRedisInteger(v) || v[0] == '-' {
				return msgMaxLengthIsNegative
			}
		default:
			return ""
		}
	}
	return ""
}

// badNumber is the error Redis gives for cmd's floats, or for an integer
// it takes but cannot use (an expiry that overflows, DECRBY of the
// smallest integer), where miniredis answers otherwise; "" when Redis
// would go on. It runs after badInteger.
func badNumber(cmd string, args []string) string {
	nan := func(s string) bool {
		f, err := strconv.ParseFloat(strings.TrimPrefix(s, "("), 64)
		return err == nil && math.IsNaN(f)
	}
	infOrNaN := func(s string) bool {
		f, err := strconv.ParseFloat(s, 64)
		return err == nil && (math.IsNaN(f) || math.IsInf(f, 0))
	}
	// expire checks a relative expiry, which Redis adds to its clock.
	expire := func(v string, seconds bool, cmd string) string {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return ""
		}
		if seconds && (n > math.MaxInt64/1000 || n < math.MinInt64/1000) || !seconds && n > math.MaxInt64-4102444800000 ||
			seconds && n*1000 > math.MaxInt64-4102444800000 {
			return fmt.Sprintf(msgInvalidExpireIn, strings.ToLower(cmd))
		}
		return ""
	}
	switch cmd {
	case "ZADD":
		// Only the scores: a member named "nan" is data (scriptgen: the
		// check read every argument).
		if first, ok := zaddScores(args); ok {
			for i := first; i < len(args); i += 2 {
				if nan(args[i]) && !strings.HasPrefix(args[i], "(") {
					return msgInvalidFloat
				}
			}
		}
	case "ZINCRBY":
		if len(args) == 3 && nan(args[1]) {
			return msgInvalidFloat
		}
	case "INCRBYFLOAT":
		if len(args) == 2 && (!isRedisFloat(args[1]) || nan(args[1])) {
			return msgInvalidFloat
		}
		if len(args) == 2 && infOrNaN(args[1]) {
			return msgIncrNaNInf
		}
	case "HINCRBYFLOAT":
		if len(args) == 3 && (!isRedisFloat(args[2]) || nan(args[2])) {
			return msgInvalidFloat
		}
		if len(args) == 3 && infOrNaN(args[2]) {
			return msgHashIncrNaNInf
		}
	case "ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZREMRANGEBYSCORE", "ZCOUNT":
		if len(args) >= 3 && (nan(args[1]) || nan(args[2])) {
			return msgInvalidMinMax
		}
	case "ZRANGE", "ZRANGESTORE":
		if cmd == "ZRANGESTORE" && len(args) > 0 {
			args = args[1:]
		}
		for _, a := range args[min(3, len(args)):] {
			if strings.EqualFold(a, "BYSCORE") && (nan(args[1]) || nan(args[2])) {
				return msgInvalidMinMax
			}
		}
	case "DECRBY":
		if len(args) == 2 && args[1] == "-9223372036854775808" {
			return msgDecrOverflow
		}
	case "LREM":
		// Redis negates a negative count to remove from the tail, and
		// the smallest integer stays negative: every match goes, as with
		// a count of 0, where miniredis's negation overflows to none.
		if len(args) == 3 && args[1] == "-9223372036854775808" {
			args[1] = "0"
		}
	case "SETEX", "PSETEX":
		if len(args) == 3 {
			if n, err := strconv.ParseInt(args[1], 10, 64); err == nil && n <= 0 {
				return fmt.Sprintf(msgInvalidExpireIn, strings.ToLower(cmd))
			}
			return expire(args[1], cmd == "SETEX", cmd)
		}
	case "EXPIRE", "PEXPIRE":
		if len(args) >= 2 {
			return expire(args[1], cmd == "EXPIRE", cmd)
		}
	}
	return ""
}

// badStoredInteger is the error Redis gives when cmd (of the INCR family,
// HINCRBY or HINCRBYFLOAT) meets a stored value that is not a number as
// Redis reads it, or "". The caller holds miniredis's lock.
func (m *Miniredis) badStoredInteger(c *server.Peer, cmd string, args []string) string {
	if !strictStored(cmd) || len(args) == 0 {
		return ""
	}
	db := m.DBLocked(getCtx(c).selectedDB)
	typ := db.LiveType(args[0])
	// field is the hash field HINCRBY and HINCRBYFLOAT read.
	field := func() (string, bool) {
		if typ != "hash" || len(args) < 2 {
			return "", false
		}
		v, ok := db.hashKeys[args[0]][args[1]]
		return v, ok
	}
	switch cmd {
	case "INCR", "DECR", "INCRBY", "DECRBY":
		if typ == "string" && !isRedisInteger(db.stringKeys[args[0]]) {
			return msgInvalidInt
		}
	case "HINCRBY":
		v, ok := field()
		if !ok {
			return ""
		}
		if !isRedisInteger(v) {
			return msgHashNotInteger
		}
		// miniredis wraps around where Redis refuses.
		old, _ := strconv.ParseInt(v, 10, 64)
		by, err := strconv.ParseInt(args[2], 10, 64)
		if err == nil && (by < 0 && old < 0 && by < math.MinInt64-old || by > 0 && old > 0 && by > math.MaxInt64-old) {
			return msgIntOverflow
		}
	case "HINCRBYFLOAT":
		if v, ok := field(); ok && !isRedisFloat(v) {
			return msgHashNotFloat
		}
	}
	return ""
}

// strictIntegers answers cmd with Redis's error when one of its integers
// (badInteger, badStoredInteger) is not one to Redis, and reports whether
// it did. A connection in MULTI, subscribed or not yet authenticated is
// left to miniredis, which queues or refuses the command itself.
func (m *Miniredis) strictIntegers(c *server.Peer, info *commands.Command, cmd string, args []string) bool {
	msg := badInteger(cmd, args)
	if msg == "" {
		msg = badNumber(cmd, args)
	}
	typ, keyFirst := keyFirstType(cmd)
	if msg == "" && !strictStored(cmd) && !keyFirst {
		return false
	}
	if info == nil || !info.ArityOK(len(args)+1) {
		return false
	}
	if !getCtx(c).nested {
		if !m.PeerAnswerable(c) {
			return false
		}
		if msg == "" || keyFirst {
			m.Lock()
			defer m.Unlock()
		}
	}
	if keyFirst {
		// Redis looks the key up, and checks its type, before it reads a
		// number; miniredis reads first.
		db := m.DBLocked(getCtx(c).selectedDB)
		switch got := db.LiveType(args[0]); {
		case got != "" && got != typ:
			msg = msgWrongType
		case msg == "":
		case got == "":
			switch cmd {
			case "LSET":
				c.WriteError(msgKeyNotFound)
			case "INCRBYFLOAT":
				c.WriteError(msg) // a missing key is 0: the number decides
			default:
				c.WriteNull()
			}
			return true
		case cmd == "INCRBYFLOAT" && !isRedisFloat(db.stringKeys[args[0]]):
			msg = msgInvalidFloat // the stored value is read before the increment
		}
	}
	if msg == "" {
		msg = m.badStoredInteger(c, cmd, args)
	}
	if msg == "" {
		return false
	}
	c.WriteError(msg)
	return true
}

// keyFirstType reports whether cmd looks its key up, and checks its type,
// before it reads its integers (a missing key or another type is answered
// first: LINDEX's nil, LSET's "no such key", WRONGTYPE), and that type.
// These lookups, like strictStored's, run on every command, where a switch
// costs a fraction of a map's hashing.
func keyFirstType(cmd string) (string, bool) {
	switch cmd {
	case "LINDEX", "LSET":
		return "list", true
	case "INCRBYFLOAT":
		return "string", true
	}
	return "", false
}

// strictStored reports whether badStoredInteger looks at cmd.
func strictStored(cmd string) bool {
	switch cmd {
	case "INCR", "DECR", "INCRBY", "DECRBY", "HINCRBY", "HINCRBYFLOAT":
		return true
	}
	return false
}

// setrangeGuard answers the SETRANGE calls miniredis gets wrong, as
// setrangeCommand does, and reports whether it did: an empty value (0 on a
// missing key, the length of an existing string, creating nothing) and a
// result beyond 512 MB (miniredis would try to allocate it, or panic when
// offset + length overflows). The integer checks come first
// (strictIntegers), miniredis's negative-offset and type checks after.
func (m *Miniredis) setrangeGuard(c *server.Peer, cmd string, args []string) bool {
	if cmd != "SETRANGE" || len(args) != 3 || !isRedisInteger(args[1]) || args[1][0] == '-' {
		return false
	}
	if !m.PeerAnswerable(c) {
		return false
	}
	defer m.lockClient(c)()
	db := m.DBLocked(getCtx(c).selectedDB)
	typ := db.LiveType(args[0])
	if typ != "" && typ != "string" {
		return false // miniredis's WRONGTYPE
	}
	switch offset, _ := strconv.ParseInt(args[1], 10, 64); {
	case args[2] == "" && typ == "":
		c.WriteInt(0)
	case args[2] == "":
		c.WriteInt(len(db.stringKeys[args[0]]))
	case offset > maxStringLen-int64(len(args[2])):
		c.WriteError(msgStringTooBig)
	default:
		return false
	}
	return true
}

// zsetGuard answers what miniredis gets wrong about sorted sets, as Redis
// does, and reports whether it did: ZPOPMIN and ZPOPMAX with a count of 0
// (an empty array, before the key is looked at; miniredis pops), and a
// ZINCRBY or ZADD INCR whose score would become NaN (an infinity plus its
// opposite; miniredis stores the NaN).
func (m *Miniredis) zsetGuard(c *server.Peer, cmd string, args []string) bool {
	var member, incr string
	switch {
	case (cmd == "ZPOPMIN" || cmd == "ZPOPMAX") && len(args) == 2 && args[1] == "0":
	case cmd == "ZINCRBY" && len(args) == 3:
		incr, member = args[1], args[2]
	case cmd == "ZADD":
		// INCR only among the options before the first score: a member
		// named "incr" is data (scriptgen: the check took it for INCR).
		first, ok := zaddScores(args)
		if !ok || !zaddIncr(args[:first]) {
			return false
		}
		incr, member = args[first], args[first+1]
	default:
		return false
	}
	if !m.PeerAnswerable(c) {
		return false
	}
	defer m.lockClient(c)()
	db := m.DBLocked(getCtx(c).selectedDB)
	if incr == "" {
		if typ := db.LiveType(args[0]); typ != "" && typ != "zset" {
			return false // miniredis's WRONGTYPE
		}
		c.WriteLen(0)
		return true
	}
	by, err := strconv.ParseFloat(incr, 64)
	if err != nil || !math.IsInf(by, 0) {
		return false
	}
	if db.LiveType(args[0]) != "zset" {
		return false
	}
	score, ok := db.sortedsetKeys[args[0]][member]
	if !ok || !math.IsNaN(score+by) {
		return false
	}
	c.WriteError(msgScoreNaN)
	return true
}

// getrangeGuard answers GETRANGE of two negative indexes in the wrong
// order with an empty string, as Redis does once it has found a string
// there (or none), and reports whether it did; miniredis clamps them first
// and may answer with a character.
func (m *Miniredis) getrangeGuard(c *server.Peer, cmd string, args []string) bool {
	if (cmd != "GETRANGE" && cmd != "SUBSTR") || len(args) != 3 {
		return false
	}
	start, err1 := strconv.ParseInt(args[1], 10, 64)
	end, err2 := strconv.ParseInt(args[2], 10, 64)
	if err1 != nil || err2 != nil || !(start < 0 && end < 0 && start > end) {
		return false
	}
	if !m.PeerAnswerable(c) {
		return false
	}
	defer m.lockClient(c)()
	if typ := m.DBLocked(getCtx(c).selectedDB).LiveType(args[0]); typ != "" && typ != "string" {
		return false // miniredis's WRONGTYPE
	}
	c.WriteBulk("")
	return true
}

// isStreamID is streamParseID's verdict on s: ms[-seq], each read by
// string2ull; with seqStar, seq may be "*".
func isStreamID(s string, seqStar bool) bool {
	if ms, ok := strings.CutSuffix(s, "-*"); ok && seqStar {
		_, ok := string2ull(ms)
		return ok && len(s) <= 127
	}
	_, ok := parseID(s, 0, true)
	return ok
}

// streamGuard answers what miniredis gets wrong about streams, as Redis
// does, and reports whether it did: XLEN of another type (miniredis writes
// WRONGTYPE and then a length, two replies for one command). XADD's and
// XTRIM's options, IDs included, are read as Redis reads them by their
// handlers (streamTrimArgs), before the key is looked up: a check here, in
// front of a handler that read them otherwise, took the "~" of MAXLEN ~
// 1000, or a field named maxlen or minid, for a bad threshold. So are
// XRANGE's and XREVRANGE's (xrangeArgs) and XDEL's IDs.
func (m *Miniredis) streamGuard(c *server.Peer, cmd string, args []string) bool {
	if cmd != "XLEN" || len(args) != 1 || !m.PeerAnswerable(c) {
		return false
	}
	defer m.lockClient(c)()
	if typ := m.DBLocked(getCtx(c).selectedDB).LiveType(args[0]); typ == "" || typ == "stream" {
		return false
	}
	c.WriteError(msgWrongType)
	return true
}

// moveInPlace serves LMOVE, RPOPLPUSH and their blocking forms from a list
// of one element onto itself, and reports whether it did. miniredis pops
// the element, which deletes the key and its expiry with it, and pushes
// it back onto a new key; Redis moves it within the one list, which keeps
// the key, its expiry and its single element as they were. Every other
// case is miniredis's: for a connection in MULTI, subscribed or not yet
// authenticated, for a bad arity or direction, and for any other list.
func (m *Miniredis) moveInPlace(c *server.Peer, cmd string, args []string) bool {
	var n int
	switch cmd {
	case "LMOVE":
		n = 4
	case "BLMOVE":
		n = 5
	case "RPOPLPUSH":
		n = 2
	case "BRPOPLPUSH":
		n = 3
	default:
		return false
	}
	if len(args) != n || args[0] != args[1] {
		return false
	}
	if cmd == "LMOVE" || cmd == "BLMOVE" {
		for _, dir := range args[2:4] {
			if !strings.EqualFold(dir, "LEFT") && !strings.EqualFold(dir, "RIGHT") {
				return false
			}
		}
	}
	if !m.PeerAnswerable(c) {
		return false
	}
	defer m.lockClient(c)()
	db := m.DBLocked(getCtx(c).selectedDB)
	if db.LiveType(args[0]) != "list" {
		return false
	}
	l := db.listKeys[args[0]]
	if len(l) != 1 {
		return false
	}
	db.touch(args[0])
	c.WriteBulk(l[0])
	return true
}

// ttlRounded serves TTL, which Redis rounds to the nearest second ((ms +
// 500) / 1000: a key with 600 ms left has 1) and miniredis truncates, and
// reports whether it did. A connection in MULTI, subscribed or not yet
// authenticated, and a bad arity, are left to miniredis.
func (m *Miniredis) ttlRounded(c *server.Peer, cmd string, args []string) bool {
	if cmd != "TTL" || len(args) != 1 {
		return false
	}
	if !m.PeerAnswerable(c) {
		return false
	}
	defer m.lockClient(c)()
	db := m.DBLocked(getCtx(c).selectedDB)
	ttl := int64(-2)
	if db.LiveType(args[0]) != "" {
		ttl = -1
		if at, ok := db.deadline(args[0]); ok {
			ms := max(at.Sub(m.effectiveNow()).Milliseconds(), 0)
			ttl = (ms + 500) / 1000
		}
	}
	c.WriteInt(int(ttl))
	return true
}

// storeSourcesTyped answers WRONGTYPE, as Redis does, when a source of
// SUNIONSTORE, SINTERSTORE, SDIFFSTORE (sets) or ZUNIONSTORE, ZINTERSTORE
// (sets and sorted sets) holds another type, or a weight is not a float
// (NaN included), and reports whether it did: miniredis deletes the
// destination before it looks at the sources, and takes NaN weights.
//
// ZUNION, ZINTER and ZDIFF, which store nothing, are checked the same way:
// zunionInterDiffGenericCommand looks up every source before it reads
// the options, so a wrong type wins over a bad option.
func (m *Miniredis) storeSourcesTyped(c *server.Peer, cmd string, args []string) bool {
	upper := strings.ToUpper(cmd)
	plain := upper == "ZUNION" || upper == "ZINTER" || upper == "ZDIFF"
	if plain {
		// The numkeys argument comes first: line it up with the STORE forms'.
		args = append([]string{""}, args...)
	}
	if !(plain || emptyingStore(cmd)) || len(args) < 2 {
		return false
	}
	sources, zset := args[1:], cmd[0] == 'Z' || cmd[0] == 'z'

	if zset {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 || n > len(args)-2 { // scriptgen: 2+n overflowed near 2^63 and panicked

			return false // miniredis's argument errors
		}
		sources = args[2 : 2+n]
	}
	diff := strings.HasPrefix(upper, "ZDIFF")
	if !m.PeerAnswerable(c) {
		return false
	}
	defer m.lockClient(c)()
	db := m.DBLocked(getCtx(c).selectedDB)
	for _, k := range sources {
		if typ := db.LiveType(k); typ != "" && typ != "set" && !(zset && typ == "zset") {
			c.WriteError(msgWrongType)
			return true
		}
	}
	// Then the weights, which miniredis takes as NaN.
	if zset {
		rest := args[2+len(sources):]
		if !diff && len(rest) > len(sources) && strings.EqualFold(rest[0], "WEIGHTS") {
			for _, w := range rest[1 : 1+len(sources)] {
				if !isRedisFloat(w) {
					c.WriteError(msgWeightNotFloat)
					return true
				}
			}
		}
	}
	return false
}

// lockClient takes miniredis's lock for a client's command and returns
// its release; a script's own command holds it already.
func (m *Miniredis) lockClient(c *server.Peer) func() {
	if getCtx(c).nested {
		return func() {}
	}
	m.Lock()
	return m.Unlock
}

// emptyingStore reports whether cmd (upper case) stores a set or sorted set
// computed from its sources.
func emptyingStore(cmd string) bool {
	switch cmd {
	case "SUNIONSTORE", "SINTERSTORE", "SDIFFSTORE", "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE", "ZRANGESTORE":
		return true
	}
	return false
}

package transactional

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// Redis reads an integer, argument or stored value, with string2ll, which
// takes only the canonical spelling: no "+", no leading zero, no "-0", no
// space. miniredis reads with strconv.Atoi and so takes "01" and "+1" that
// Redis refuses. The engine checks the integers of the commands below
// before miniredis sees them, with Redis's replies.

// Redis 7.0's texts for a bad integer.
const (
	msgNotInteger     = "ERR value is not an integer or out of range"
	msgNotPositive    = "ERR value is out of range, must be positive"
	msgHashNotInteger = "ERR hash value is not an integer"
	msgBitOffset      = "ERR bit offset is not an integer or out of range"
	msgBitArgument    = "ERR The bit argument must be 1 or 0."
	msgMaxlenNegative = "ERR The MAXLEN argument must be >= 0."
	msgBitValue       = "ERR bit is not an integer or out of range"
	msgWeightNotFloat = "ERR weight value is not a float"
	msgNoSuchKey      = "ERR no such key"
	msgHashNotFloat   = "ERR hash value is not a float"
	msgOverflow       = "ERR increment or decrement would overflow"
	msgWrongType      = "WRONGTYPE Operation against a key holding the wrong kind of value"
)

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
	// after checks the argument that follows each of the (case-insensitive)
	// tokens from args[from] on.
	after := func(from int, msg string, tokens ...string) string {
		for i := from; i+1 < len(args); i++ {
			for _, t := range tokens {
				if strings.EqualFold(args[i], t) {
					if !isRedisInteger(args[i+1]) {
						return msg
					}
					break
				}
			}
		}
		return ""
	}
	// limit checks LIMIT offset count.
	limit := func(from int) string {
		for i := from; i+2 < len(args); i++ {
			if strings.EqualFold(args[i], "LIMIT") {
				return check(msgNotInteger, i+1, i+2)
			}
		}
		return ""
	}
	switch cmd {
	case "INCRBY", "DECRBY", "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "SETRANGE", "LINDEX", "LSET", "LREM", "SETEX", "PSETEX":
		return check(msgNotInteger, 1)
	case "XADD", "XTRIM":
		if msg := after(1, msgNotInteger, "MAXLEN", "LIMIT"); msg != "" {
			return msg
		}
		for i := 1; i+1 < len(args); i++ {
			if strings.EqualFold(args[i], "MAXLEN") {
				v := args[i+1]
				if (v == "=" || v == "~") && i+2 < len(args) {
					v = args[i+2]
				}
				if !isRedisInteger(v) && v != "=" && v != "~" {
					return msgNotInteger
				}
				if strings.HasPrefix(v, "-") {
					return msgMaxlenNegative
				}
			}
		}
	case "XRANGE", "XREVRANGE":
		return after(3, msgNotInteger, "COUNT")
	case "BITPOS":
		if len(args) >= 2 && args[1] != "0" && args[1] != "1" {
			if !isRedisInteger(args[1]) {
				return msgNotInteger
			}
			return msgBitArgument
		}
	case "HINCRBY":
		return check(msgNotInteger, 2)
	case "GETRANGE", "SUBSTR", "LRANGE", "LTRIM", "ZREMRANGEBYRANK", "ZREVRANGE":
		return check(msgNotInteger, 1, 2)
	case "BITCOUNT":
		if len(args) >= 3 {
			return check(msgNotInteger, 1, 2)
		}
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
			return msgNotPositive
		}
	case "SRANDMEMBER", "HRANDFIELD", "ZRANDMEMBER":
		if len(args) >= 2 {
			return check(msgNotInteger, 1)
		}
	case "SET":
		return after(2, msgNotInteger, "EX", "PX", "EXAT", "PXAT")
	case "GETEX":
		return after(1, msgNotInteger, "EX", "PX", "EXAT", "PXAT")
	case "ZRANGE":
		by := false
		for _, a := range args[min(3, len(args)):] {
			by = by || strings.EqualFold(a, "BYSCORE") || strings.EqualFold(a, "BYLEX")
		}
		if !by {
			if msg := check(msgNotInteger, 1, 2); msg != "" {
				return msg
			}
		}
		return limit(3)
	case "ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGEBYLEX":
		return limit(3)
	case "LPOS":
		return after(2, msgNotInteger, "RANK", "COUNT", "MAXLEN")
	case "ZPOPMIN", "ZPOPMAX":
		if len(args) == 2 && (!isRedisInteger(args[1]) || args[1][0] == '-') {
			return msgNotPositive
		}
	}
	return ""
}

// Redis 7.0's texts for bad floats and expiries.
const (
	msgNotFloat        = "ERR value is not a valid float"
	msgRangeNotFloat   = "ERR min or max is not a float"
	msgIncrNaNInf      = "ERR increment would produce NaN or Infinity"
	msgHashIncrNaNInf  = "ERR value is NaN or Infinity"
	msgDecrOverflow    = "ERR decrement would overflow"
	msgInvalidExpireIn = "ERR invalid expire time in '%s' command"
)

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
		for i := 1; i < len(args); i++ {
			if nan(args[i]) && !strings.HasPrefix(args[i], "(") {
				return msgNotFloat
			}
		}
	case "ZINCRBY":
		if len(args) == 3 && nan(args[1]) {
			return msgNotFloat
		}
	case "INCRBYFLOAT":
		if len(args) == 2 && (!isRedisFloat(args[1]) || nan(args[1])) {
			return msgNotFloat
		}
		if len(args) == 2 && infOrNaN(args[1]) {
			return msgIncrNaNInf
		}
	case "HINCRBYFLOAT":
		if len(args) == 3 && (!isRedisFloat(args[2]) || nan(args[2])) {
			return msgNotFloat
		}
		if len(args) == 3 && infOrNaN(args[2]) {
			return msgHashIncrNaNInf
		}
	case "ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZREMRANGEBYSCORE", "ZCOUNT":
		if len(args) >= 3 && (nan(args[1]) || nan(args[2])) {
			return msgRangeNotFloat
		}
	case "ZRANGE":
		for _, a := range args[min(3, len(args)):] {
			if strings.EqualFold(a, "BYSCORE") && (nan(args[1]) || nan(args[2])) {
				return msgRangeNotFloat
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
	case "SET", "GETEX":
		from := 2 // SET key value [options]
		if cmd == "GETEX" {
			from = 1
		}
		for i := from; i+1 < len(args); i++ {
			unit := strings.ToUpper(args[i])
			if unit != "EX" && unit != "PX" && unit != "EXAT" && unit != "PXAT" {
				continue
			}
			n, err := strconv.ParseInt(args[i+1], 10, 64)
			if err != nil {
				return ""
			}
			seconds := unit == "EX" || unit == "EXAT"
			if n <= 0 || seconds && n > math.MaxInt64/1000 {
				return fmt.Sprintf(msgInvalidExpireIn, strings.ToLower(cmd))
			}
			if unit == "EX" || unit == "PX" {
				return expire(args[i+1], seconds, cmd)
			}
			return ""
		}
	}
	return ""
}

// badStoredInteger is the error Redis gives when cmd (of the INCR family,
// HINCRBY or HINCRBYFLOAT) meets a stored value that is not a number as
// Redis reads it, or "". The caller holds miniredis's lock.
func (e *Engine) badStoredInteger(c *server.Peer, cmd string, args []string) string {
	if !strictStored(cmd) || len(args) == 0 {
		return ""
	}
	db := e.m.DBLocked(miniredis.PeerDB(c))
	typ := db.LiveType(args[0])
	// field is the hash field HINCRBY and HINCRBYFLOAT read.
	field := func() (string, bool) {
		if typ != "hash" || len(args) < 2 {
			return "", false
		}
		return db.HashField(args[0], args[1])
	}
	switch cmd {
	case "INCR", "DECR", "INCRBY", "DECRBY":
		if typ == "string" && !isRedisInteger(db.StringValue(args[0])) {
			return msgNotInteger
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
			return msgOverflow
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
func (e *Engine) strictIntegers(c *server.Peer, cmd string, args []string) bool {
	msg := badInteger(cmd, args)
	if msg == "" {
		msg = badNumber(cmd, args)
	}
	typ, keyFirst := keyFirstType(cmd)
	if msg == "" && !strictStored(cmd) && !keyFirst {
		return false
	}
	if info := commandIndex[cmd]; info == nil || !info.ArityOK(len(args)+1) {
		return false
	}
	if c != e.inner {
		if !e.answerable(c) {
			return false
		}
		if msg == "" || keyFirst {
			e.m.Lock()
			defer e.m.Unlock()
		}
	}
	if keyFirst {
		// Redis looks the key up, and checks its type, before it reads a
		// number; miniredis reads first (and GETEX sets the expiry of a key
		// of another type before it refuses it).
		db := e.m.DBLocked(miniredis.PeerDB(c))
		switch got := db.LiveType(args[0]); {
		case got != "" && got != typ:
			msg = msgWrongType
		case msg == "":
		case got == "":
			w := respWriter{resp3: c.Resp3}
			switch cmd {
			case "LSET":
				w.errorReply(msgNoSuchKey)
			case "BITCOUNT":
				w.integer(0)
			case "INCRBYFLOAT":
				w.errorReply(msg) // a missing key is 0: the number decides
			default:
				w.null()
			}
			c.WriteRaw(string(w.buf))
			return true
		case cmd == "INCRBYFLOAT" && !isRedisFloat(db.StringValue(args[0])):
			msg = msgNotFloat // the stored value is read before the increment
		}
	}
	if msg == "" {
		msg = e.badStoredInteger(c, cmd, args)
	}
	if msg == "" {
		return false
	}
	writeError(c, msg)
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
	case "GETEX", "BITCOUNT", "INCRBYFLOAT":
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

// Redis 7.0's limit on a string (proto-max-bulk-len) and its text.
const (
	maxStringLen    = 512 << 20
	msgStringTooBig = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
)

// setrangeGuard answers the SETRANGE calls miniredis gets wrong, as
// setrangeCommand does, and reports whether it did: an empty value (0 on a
// missing key, the length of an existing string, creating nothing) and a
// result beyond 512 MB (miniredis would try to allocate it, or panic when
// offset + length overflows). The integer checks come first
// (strictIntegers), miniredis's negative-offset and type checks after.
func (e *Engine) setrangeGuard(c *server.Peer, cmd string, args []string) bool {
	if cmd != "SETRANGE" || len(args) != 3 || !isRedisInteger(args[1]) || args[1][0] == '-' {
		return false
	}
	if !e.answerable(c) {
		return false
	}
	defer e.lockClient(c)()
	db := e.m.DBLocked(miniredis.PeerDB(c))
	typ := db.LiveType(args[0])
	if typ != "" && typ != "string" {
		return false // miniredis's WRONGTYPE
	}
	w := respWriter{resp3: c.Resp3}
	switch offset, _ := strconv.ParseInt(args[1], 10, 64); {
	case args[2] == "" && typ == "":
		w.integer(0)
	case args[2] == "":
		w.integer(int64(len(db.StringValue(args[0]))))
	case offset > maxStringLen-int64(len(args[2])):
		w.errorReply(msgStringTooBig)
	default:
		return false
	}
	c.WriteRaw(string(w.buf))
	return true
}

// msgScoreNaN is Redis 7.0's text for a score that would become NaN.
const msgScoreNaN = "ERR resulting score is not a number (NaN)"

// zsetGuard answers what miniredis gets wrong about sorted sets, as Redis
// does, and reports whether it did: ZPOPMIN and ZPOPMAX with a count of 0
// (an empty array, before the key is looked at; miniredis pops), and a
// ZINCRBY or ZADD INCR whose score would become NaN (an infinity plus its
// opposite; miniredis stores the NaN).
func (e *Engine) zsetGuard(c *server.Peer, cmd string, args []string) bool {
	var member, incr string
	switch {
	case (cmd == "ZPOPMIN" || cmd == "ZPOPMAX") && len(args) == 2 && args[1] == "0":
	case cmd == "ZINCRBY" && len(args) == 3:
		incr, member = args[1], args[2]
	case cmd == "ZADD" && len(args) >= 4:
		incrFlag := false
		for _, a := range args[1 : len(args)-2] {
			incrFlag = incrFlag || strings.EqualFold(a, "INCR")
		}
		if !incrFlag {
			return false
		}
		incr, member = args[len(args)-2], args[len(args)-1]
	default:
		return false
	}
	if !e.answerable(c) {
		return false
	}
	defer e.lockClient(c)()
	w := respWriter{resp3: c.Resp3}
	db := e.m.DBLocked(miniredis.PeerDB(c))
	if incr == "" {
		if typ := db.LiveType(args[0]); typ != "" && typ != "zset" {
			return false // miniredis's WRONGTYPE
		}
		w.array(0)
		c.WriteRaw(string(w.buf))
		return true
	}
	by, err := strconv.ParseFloat(incr, 64)
	if err != nil || !math.IsInf(by, 0) {
		return false
	}
	if db.LiveType(args[0]) != "zset" {
		return false
	}
	score, ok := db.Score(args[0], member)
	if !ok || !math.IsNaN(score+by) {
		return false
	}
	w.errorReply(msgScoreNaN)
	c.WriteRaw(string(w.buf))
	return true
}

// getrangeGuard answers GETRANGE and BITCOUNT of two negative indexes in
// the wrong order with an empty string and 0, as Redis does once it has
// found a string there (or none), and reports whether it did; miniredis
// clamps them first and may answer with a character or its bits.
func (e *Engine) getrangeGuard(c *server.Peer, cmd string, args []string) bool {
	if !((cmd == "GETRANGE" || cmd == "SUBSTR") && len(args) == 3 || cmd == "BITCOUNT" && (len(args) == 3 || len(args) == 4)) {
		return false
	}
	start, err1 := strconv.ParseInt(args[1], 10, 64)
	end, err2 := strconv.ParseInt(args[2], 10, 64)
	if err1 != nil || err2 != nil || !(start < 0 && end < 0 && start > end) {
		return false
	}
	if !e.answerable(c) {
		return false
	}
	defer e.lockClient(c)()
	if typ := e.m.DBLocked(miniredis.PeerDB(c)).LiveType(args[0]); typ != "" && typ != "string" {
		return false // miniredis's WRONGTYPE
	}
	w := respWriter{resp3: c.Resp3}
	if cmd == "BITCOUNT" {
		w.integer(0)
	} else {
		w.bulk("")
	}
	c.WriteRaw(string(w.buf))
	return true
}

// Redis 7.0's texts for stream IDs.
const (
	msgInvalidStreamID = "ERR Invalid stream ID specified as stream command argument"
	msgXaddZeroID      = "ERR The ID specified in XADD must be greater than 0-0"
)

// isStreamID is streamParseID's verdict on s: ms[-seq], each an unsigned
// 64-bit decimal; with seqStar, seq may be "*".
func isStreamID(s string, seqStar bool) bool {
	ms, seq, dash := strings.Cut(s, "-")
	if _, err := strconv.ParseUint(ms, 10, 64); err != nil || ms == "" || ms[0] == '+' {
		return false
	}
	if !dash {
		return true
	}
	if seqStar && seq == "*" {
		return true
	}
	_, err := strconv.ParseUint(seq, 10, 64)
	return err == nil && seq != "" && seq[0] != '+'
}

// streamGuard answers what miniredis gets wrong about streams, as Redis
// does, and reports whether it did: XRANGE and XREVRANGE with a COUNT of
// 0 or less, XLEN of another type (miniredis
// writes WRONGTYPE and then a length, two replies for one command), an
// XADD or XTRIM whose ID does not parse (Redis refuses it before looking
// at the key), and an XADD of 0-0 to a missing key (miniredis creates the
// stream before refusing the ID, and leaves it).
func (e *Engine) streamGuard(c *server.Peer, cmd string, args []string) bool {
	var msg string
	switch {
	case (cmd == "XRANGE" || cmd == "XREVRANGE") && len(args) == 5 && strings.EqualFold(args[3], "COUNT"):
		// A count of 0 or less on a stream: Redis answers a null array,
		// miniredis returns entries.
		n, err := strconv.ParseInt(args[4], 10, 64)
		if err != nil || n > 0 || !isRedisInteger(args[4]) {
			return false
		}
		if !e.answerable(c) {
			return false
		}
		defer e.lockClient(c)()
		if e.m.DBLocked(miniredis.PeerDB(c)).LiveType(args[0]) != "stream" {
			return false // miniredis's empty array or WRONGTYPE
		}
		w := respWriter{resp3: c.Resp3}
		w.nullArray()
		c.WriteRaw(string(w.buf))
		return true
	case cmd == "XDEL":
		// An ID without its sequence number is ms-0 to Redis; miniredis
		// matches it against nothing.
		for i := 1; i < len(args); i++ {
			if !strings.Contains(args[i], "-") && isStreamID(args[i], false) {
				args[i] += "-0"
			}
		}
		return false
	case cmd == "XLEN" && len(args) == 1:
	case cmd == "XADD" || cmd == "XTRIM":
		for i := 1; i+1 < len(args); i++ {
			if strings.EqualFold(args[i], "MINID") {
				v := args[i+1]
				if (v == "=" || v == "~") && i+2 < len(args) {
					v = args[i+2]
				}
				if !isStreamID(v, false) {
					msg = msgInvalidStreamID
				}
			}
		}
		if cmd == "XADD" && msg == "" {
			id := xaddID(args)
			switch {
			case id == "":
				return false
			case id != "*" && !isStreamID(id, true):
				msg = msgInvalidStreamID
			case id == "0-0" || id == "0":
				msg = msgXaddZeroID
			default:
				return false
			}
		}
		if msg == "" {
			return false
		}
	default:
		return false
	}
	if !e.answerable(c) {
		return false
	}
	defer e.lockClient(c)()
	if cmd == "XLEN" {
		if typ := e.m.DBLocked(miniredis.PeerDB(c)).LiveType(args[0]); typ == "" || typ == "stream" {
			return false
		}
		msg = msgWrongType
	}
	writeError(c, msg)
	return true
}

// xaddID is the ID argument of XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~]
// threshold [LIMIT count]] id field value …, or "" when the options do not
// parse (miniredis's error then).
func xaddID(args []string) string {
	i := 1
	for i < len(args) {
		switch strings.ToUpper(args[i]) {
		case "NOMKSTREAM":
			i++
		case "MAXLEN", "MINID":
			i++
			if i < len(args) && (args[i] == "=" || args[i] == "~") {
				i++
			}
			i++
		case "LIMIT":
			i += 2
		default:
			return args[i]
		}
	}
	return ""
}

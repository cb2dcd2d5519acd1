package transactional

import (
	"reflect"
	"strings"

	"github.com/alicebob/miniredis/v2/server"
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
	case "INCRBY", "DECRBY", "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "SETRANGE", "LINDEX", "LSET", "LREM":
		return check(msgNotInteger, 1)
	case "HINCRBY":
		return check(msgNotInteger, 2)
	case "GETRANGE", "SUBSTR", "LRANGE", "LTRIM", "ZREMRANGEBYRANK", "ZREVRANGE":
		return check(msgNotInteger, 1, 2)
	case "BITCOUNT":
		if len(args) >= 3 {
			return check(msgNotInteger, 1, 2)
		}
	case "GETBIT", "SETBIT":
		return check(msgBitOffset, 1)
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
	}
	return ""
}

// badStoredInteger is the error Redis gives when cmd (of the INCR family
// or HINCRBY) meets a stored value that is not an integer as Redis reads
// it, or "". The caller holds miniredis's lock.
func (e *Engine) badStoredInteger(c *server.Peer, cmd string, args []string) string {
	switch cmd {
	case "INCR", "DECR", "INCRBY", "DECRBY":
		db := e.store.db(e.cs.selectedDB(c))
		if len(args) == 0 || e.store.typeOf(db, args[0]) != "string" {
			return ""
		}
		if v := e.store.value(db, args[0], "string"); !isRedisInteger(v.String()) {
			return msgNotInteger
		}
	case "HINCRBY":
		db := e.store.db(e.cs.selectedDB(c))
		if len(args) < 2 || e.store.typeOf(db, args[0]) != "hash" {
			return ""
		}
		if v := e.store.value(db, args[0], "hash").MapIndex(reflect.ValueOf(args[1])); v.IsValid() && !isRedisInteger(v.String()) {
			return msgHashNotInteger
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
	if msg == "" && !strictStored[cmd] {
		return false
	}
	if info := commandIndex[strings.ToLower(cmd)]; info == nil || !info.ArityOK(len(args)+1) {
		return false
	}
	if c != e.inner {
		if e.cs.inMulti(c) || e.cs.subscribed(c) || e.opts.password != "" && !e.cs.authenticated(c) {
			return false
		}
		if msg == "" {
			e.m.Lock()
			defer e.m.Unlock()
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

// strictStored are the commands badStoredInteger looks at.
var strictStored = map[string]bool{"INCR": true, "DECR": true, "INCRBY": true, "DECRBY": true, "HINCRBY": true}

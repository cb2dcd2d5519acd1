// scriptgen: SET's and GETEX's options read as Redis 7.0's
// parseExtendedStringArgumentsOrReply and getExpireMillisecondsOrReply
// (t_string.c) read them. Upstream read them in one pass that checked
// each expiry's value as it met it, so a second expiry option, KEEPTTL
// beside one, or NX beside XX, got another answer than Redis's syntax
// error, or none; and it answered before the key was looked up (GETEX).

package miniredis

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// stringOpts are SET's (or GETEX's) options.
type stringOpts struct {
	nx, xx, get, keepTTL, persist bool
	unit                          string // "EX", "PX", "EXAT", "PXAT", or "" for none
	expire                        string // the expiry's value, read by ttl
}

// parseStringOpts reads the options (args after SET's value or GETEX's
// key) as Redis does, and reports false for Redis's syntax error: an
// unknown word, an expiry option with nothing after it, or an option
// that conflicts with one before it (NX and XX; two different expiries;
// KEEPTTL, or for GETEX PERSIST, with an expiry). The same option twice
// is taken, the last expiry value counting. SET takes NX, XX, GET and
// KEEPTTL; GETEX PERSIST.
func parseStringOpts(args []string, getex bool) (stringOpts, bool) {
	var o stringOpts
	set := !getex
	for i := 0; i < len(args); i++ {
		expiry := func(unit string) bool {
			if i+1 == len(args) || o.keepTTL || o.persist || (o.unit != "" && o.unit != unit) {
				return false
			}
			o.unit, o.expire = unit, args[i+1]
			i++
			return true
		}
		ok := true
		switch w := strings.ToUpper(args[i]); {
		case w == "NX" && set && !o.xx:
			o.nx = true
		case w == "XX" && set && !o.nx:
			o.xx = true
		case w == "GET" && set:
			o.get = true
		case w == "KEEPTTL" && set && o.unit == "":
			o.keepTTL = true
		case w == "PERSIST" && getex && o.unit == "":
			o.persist = true
		case w == "EX" || w == "PX" || w == "EXAT" || w == "PXAT":
			ok = expiry(w)
		default:
			ok = false
		}
		if !ok {
			return o, false
		}
	}
	return o, true
}

// ttl reads the expiry's value: the time left until the deadline it sets
// (negative for an EXAT or PXAT in the past), or Redis's error for cmd
// (lower case): not an integer, not above 0, or past what a deadline in
// milliseconds can hold.
func (m *Miniredis) ttl(o stringOpts, cmd string) (time.Duration, string) {
	n, ok := parseInt64(o.expire)
	if !ok {
		return 0, msgInvalidInt
	}
	seconds := o.unit == "EX" || o.unit == "EXAT"
	bad := fmt.Sprintf(msgInvalidExpireIn, cmd)
	if n <= 0 || seconds && n > math.MaxInt64/1000 {
		return 0, bad
	}
	unit := time.Millisecond
	if seconds {
		unit = time.Second
	}
	if o.unit == "EXAT" || o.unit == "PXAT" {
		return m.at(int(n), unit), ""
	}
	ms := n
	if seconds {
		ms *= 1000
	}
	// Redis adds its clock and refuses a sum that overflows.
	if ms > math.MaxInt64-m.effectiveNow().UnixMilli() {
		return 0, bad
	}
	return time.Duration(n) * unit, ""
}

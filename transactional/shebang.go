package transactional

import (
	"fmt"
	"strings"
)

// scriptFlags are the flags a script declares in its "#!lua flags=..."
// shebang (or a function in redis.register_function).
type scriptFlags uint8

const (
	scriptNoWrites scriptFlags = 1 << iota
	scriptAllowOOM
	scriptAllowStale
	scriptNoCluster
	scriptAllowCrossSlot
	// scriptCompat marks an EVAL script without a shebang: Redis runs it
	// with the permissive pre-7.0 rules (it may write, even from EVAL_RO,
	// until a write command is actually called).
	scriptCompat
)

var scriptFlagNames = []struct {
	name string
	flag scriptFlags
}{
	{"no-writes", scriptNoWrites},
	{"allow-oom", scriptAllowOOM},
	{"allow-stale", scriptAllowStale},
	{"no-cluster", scriptNoCluster},
	{"allow-cross-slot-keys", scriptAllowCrossSlot},
}

func parseFlagName(s string) (scriptFlags, bool) {
	for _, f := range scriptFlagNames {
		if f.name == s {
			return f.flag, true
		}
	}
	return 0, false
}

// parseShebang is evalExtractShebangFlags: it returns the flags and the body
// with the shebang line blanked (the newline stays, so line numbers in error
// messages match Redis's). Errors are complete Redis error texts.
func parseShebang(body string) (scriptFlags, string, error) {
	if !strings.HasPrefix(body, "#!") {
		return scriptCompat, body, nil
	}
	nl := strings.IndexByte(body, '\n')
	if nl < 0 {
		return 0, "", fmt.Errorf("%s", msgInvalidShebang)
	}
	parts := splitArgs(body[:nl])
	if len(parts) == 0 {
		return 0, "", fmt.Errorf("ERR Invalid engine in script shebang")
	}
	if !strings.EqualFold(parts[0], "#!lua") {
		return 0, "", fmt.Errorf(msgUnknownEngine, parts[0])
	}
	var flags scriptFlags
	for _, p := range parts[1:] {
		list, ok := strings.CutPrefix(p, "flags=")
		if !ok {
			return 0, "", fmt.Errorf(msgUnknownShebangOpt, p)
		}
		if list == "" {
			continue
		}
		for _, name := range strings.Split(list, ",") {
			f, ok := parseFlagName(name)
			if !ok {
				return 0, "", fmt.Errorf(msgUnknownFlag, name)
			}
			flags |= f
		}
	}
	return flags, body[nl:], nil
}

// splitArgs is a simplified sdssplitargs: whitespace-separated words with
// double or single quotes grouping.
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			} else {
				cur.WriteByte(ch)
			}
		case ch == '"' || ch == '\'':
			quote = ch
			inWord = true
		case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

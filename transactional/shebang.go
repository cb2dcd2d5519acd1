package transactional

import (
	"fmt"
	"strings"

	"github.com/scriptgen/scriptgen/internal/script"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
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
// messages match Redis's). The line is split by the front end's
// script.ParseShebang, the reading the header and lint use; the errors here
// are complete Redis error texts.
func parseShebang(body string) (scriptFlags, string, error) {
	if !strings.HasPrefix(body, "#!") {
		return scriptCompat, body, nil
	}
	nl := strings.IndexByte(body, '\n')
	if nl < 0 {
		return 0, "", fmt.Errorf("%s", miniredis.MsgInvalidShebang)
	}
	sb := script.ParseShebang(body[:nl])
	if sb.Engine.Text == "" {
		return 0, "", fmt.Errorf("ERR Invalid engine in script shebang")
	}
	if !strings.EqualFold(sb.Engine.Text, "#!lua") {
		return 0, "", fmt.Errorf(miniredis.MsgUnknownEngine, sb.Engine.Text)
	}
	var flags scriptFlags
	for _, o := range sb.Options {
		if o.Key != "flags" {
			return 0, "", fmt.Errorf(miniredis.MsgUnknownShebangOpt, o.Text)
		}
		if o.Value == "" {
			continue
		}
		for _, name := range o.Items() {
			f, ok := parseFlagName(name.Text)
			if !ok {
				return 0, "", fmt.Errorf(miniredis.MsgUnknownFlag, name.Text)
			}
			flags |= f
		}
	}
	return flags, body[nl:], nil
}

// shebangWords is a shebang line's words, split by script.ParseShebang.
func shebangWords(line string) []string {
	sb := script.ParseShebang(line)
	if sb.Engine.Text == "" {
		return nil
	}
	words := []string{sb.Engine.Text}
	for _, o := range sb.Options {
		words = append(words, o.Text)
	}
	return words
}

package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/scriptgen/scriptgen/crc"
)

// Scripter is what the wrappers need from a go-redis v9 client. It is
// go-redis's own Scripter plus FCALL and FUNCTION LOAD, which that one lacks.
type Scripter interface {
	Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd
	EvalSha(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd
	EvalRO(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd
	EvalShaRO(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd
	FCall(ctx context.Context, function string, keys []string, args ...any) *redis.Cmd
	FCallRO(ctx context.Context, function string, keys []string, args ...any) *redis.Cmd
	FunctionLoadReplace(ctx context.Context, code string) *redis.StringCmd
}

var (
	_ Scripter = (*redis.Client)(nil)
	_ Scripter = (*redis.ClusterClient)(nil)
	_ Scripter = (*redis.Ring)(nil)
	_ Scripter = (redis.Pipeliner)(nil)
)

// Scripts calls the scripts of this package. Its zero value runs each script
// with EVALSHA (EVALSHA_RO for no-writes scripts) and, when the server
// answers NOSCRIPT, with EVAL, which also caches the script for the next
// call.
//
// On a pipeline a call only queues its command, so the NOSCRIPT fallback
// cannot happen inside the call: run the pipeline with Exec, which replays
// the calls that failed that way.
type Scripts struct {
	// Functions makes every call an FCALL (FCALL_RO for no-writes scripts) of
	// the Functions library; Load installs it. A call that finds the library
	// missing loads it with Load and retries once.
	Functions bool
}

// script is one script of the package, as bundled.
type script struct {
	name string // as in the header
	src  string // the EVAL source; its SHA-1 is sha
	sha  string
	fn   string // the function's name in the library
	ro   bool   // flagged no-writes: EVALSHA_RO and FCALL_RO, which replicas accept
}

// run calls sc: at once on a client, queued on a pipeline.
func (s *Scripts) run(ctx context.Context, c Scripter, sc *script, keys []string, args []any) *redis.Cmd {
	if s != nil && s.Functions {
		return s.fcall(ctx, c, sc, keys, args)
	}
	var cmd *redis.Cmd
	if sc.ro {
		cmd = c.EvalShaRO(ctx, sc.sha, keys, args...)
	} else {
		cmd = c.EvalSha(ctx, sc.sha, keys, args...)
	}
	if isNoScript(cmd.Err()) {
		if sc.ro {
			return c.EvalRO(ctx, sc.src, keys, args...)
		}
		return c.Eval(ctx, sc.src, keys, args...)
	}
	return cmd
}

// pipelined refuses a pipeline where the decoded reply is wanted at once: a
// queued command has no reply yet, and decoding it would report a wrong
// shape instead of the real mistake.
func pipelined(sc *script, c Scripter) error {
	if _, ok := c.(redis.Pipeliner); ok {
		return fmt.Errorf("%s: a pipeline has no reply before Exec: queue the call with the Cmd method and run it with Scripts.Exec", sc.name)
	}
	return nil
}

func (s *Scripts) fcall(ctx context.Context, c Scripter, sc *script, keys []string, args []any) *redis.Cmd {
	call := c.FCall
	if sc.ro {
		call = c.FCallRO
	}
	cmd := call(ctx, sc.fn, keys, args...)
	if isNoFunction(cmd.Err()) {
		if err := s.Load(ctx, c); err != nil {
			return cmd
		}
		cmd = call(ctx, sc.fn, keys, args...)
	}
	return cmd
}

func isNoScript(err error) bool {
	return err != nil && (errors.Is(err, redis.ErrNoScript) || redis.HasErrorPrefix(err, "NOSCRIPT"))
}

// isNoFunction recognises FCALL of a function the server does not have, e.g.
// after FUNCTION FLUSH or on a primary added after Load.
func isNoFunction(err error) bool {
	return err != nil && redis.HasErrorPrefix(err, "Function not found")
}

// Load installs the Functions library on every primary (every shard of a
// Ring) unless it already runs this version: it asks `<lib>_version`, and
// loads with FUNCTION LOAD REPLACE on a mismatch or a missing library, then
// asks again. Load needs a client; a pipeline cannot wait for the answers.
func (s *Scripts) Load(ctx context.Context, c Scripter) error {
	switch c := c.(type) {
	case redis.Pipeliner:
		return errors.New(libName + ": Load needs a client, not a pipeline")
	case interface {
		ForEachMaster(context.Context, func(context.Context, *redis.Client) error) error
	}:
		return c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error { return loadLibrary(ctx, n) })
	case interface {
		ForEachShard(context.Context, func(context.Context, *redis.Client) error) error
	}:
		return c.ForEachShard(ctx, func(ctx context.Context, n *redis.Client) error { return loadLibrary(ctx, n) })
	default:
		return loadLibrary(ctx, c)
	}
}

func loadLibrary(ctx context.Context, c Scripter) error {
	got, err := c.FCallRO(ctx, versionFunction, nil).Text()
	if err == nil && got == libVersion {
		return nil
	}
	if err != nil && !isNoFunction(err) {
		return fmt.Errorf("%s: asking the library version: %w", libName, err)
	}
	if err := c.FunctionLoadReplace(ctx, libSource).Err(); err != nil {
		return fmt.Errorf("%s: FUNCTION LOAD: %w", libName, err)
	}
	got, err = c.FCallRO(ctx, versionFunction, nil).Text()
	if err != nil {
		return fmt.Errorf("%s: asking the library version: %w", libName, err)
	}
	if got != libVersion {
		return &VersionError{Library: libName, Want: libVersion, Got: got}
	}
	return nil
}

// VersionError reports a primary that runs another version of the library
// than this package was generated for, even after Load replaced it: another
// process loaded its own version in between.
type VersionError struct {
	Library   string
	Want, Got string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("%s: library version %s on the server, want %s: another deployment is loading a different version", e.Library, e.Got, e.Want)
}

// Exec runs the pipeline, then replays the calls of this package's scripts
// that failed because the server lacked the script (NOSCRIPT, e.g. after
// SCRIPT FLUSH or a failover) or the library (Functions mode). A replay sends
// EVAL for the first failed call of each script and hash slot, so the source
// travels once per node, and EVALSHA for the rest. The results land in the
// original commands, so a command read after Exec holds its replayed reply.
//
// A replayed call runs after every other command of the pipeline; on a
// transaction pipeline (MULTI) it runs in a second transaction. Load the
// scripts first when that order matters.
//
// The returned error is the first failed command's, as from pipe.Exec.
func (s *Scripts) Exec(ctx context.Context, pipe redis.Pipeliner) ([]redis.Cmder, error) {
	cmds, err := pipe.Exec(ctx)
	if err == nil {
		return cmds, nil
	}
	var failed, replays []*redis.Cmd
	sent := map[string]bool{}
	for _, c := range cmds {
		cmd, ok := c.(*redis.Cmd)
		if !ok || !(isNoScript(cmd.Err()) || isNoFunction(cmd.Err())) {
			continue
		}
		sc, args := replayOf(cmd)
		if sc == nil {
			continue
		}
		slot := "-"
		if n, _ := args[2].(int); n > 0 {
			if k, ok := args[3].(string); ok {
				slot = strconv.Itoa(int(crc.Slot(k)))
			}
		}
		name, payload := "evalsha", sc.sha
		if !sent[sc.sha+slot] {
			sent[sc.sha+slot] = true
			name, payload = "eval", sc.src
		}
		if sc.ro {
			name += "_ro"
		}
		args[0], args[1] = name, payload
		r := redis.NewCmd(ctx, args...)
		if n, _ := args[2].(int); n > 0 {
			r.SetFirstKeyPos(3)
		}
		if err := pipe.Process(ctx, r); err != nil {
			return cmds, err
		}
		failed = append(failed, cmd)
		replays = append(replays, r)
	}
	if len(replays) == 0 {
		return cmds, err
	}
	// Each replay's outcome is read from its command below.
	_, _ = pipe.Exec(ctx)
	for i, cmd := range failed {
		v, rerr := replays[i].Result()
		cmd.SetVal(v)
		cmd.SetErr(rerr)
	}
	for _, c := range cmds {
		if err := c.Err(); err != nil && err != redis.Nil {
			return cmds, err
		}
	}
	return cmds, nil
}

// replayOf finds the script a failed call ran and returns a copy of the
// call's arguments: name, sha or function, numkeys, keys, args.
func replayOf(cmd *redis.Cmd) (*script, []any) {
	args := cmd.Args()
	if len(args) < 3 {
		return nil, nil
	}
	name, _ := args[0].(string)
	id, _ := args[1].(string)
	for _, sc := range scripts {
		switch strings.ToLower(name) {
		case "evalsha", "evalsha_ro":
			if id != sc.sha {
				continue
			}
		case "fcall", "fcall_ro":
			if id != sc.fn {
				continue
			}
		default:
			return nil, nil
		}
		return sc, append([]any(nil), args...)
	}
	return nil, nil
}

// CrossSlotError is returned, before any I/O, for a call whose keys hash to
// different cluster slots: Redis Cluster would refuse it with CROSSSLOT, and a
// single Redis would run it, hiding the bug until the day of the migration.
type CrossSlotError struct {
	Script string
	Keys   []string
	Slots  []uint16 // Slots[i] is the slot of Keys[i]
}

func (e *CrossSlotError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: keys in different hash slots:", e.Script)
	for i, k := range e.Keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %q (slot %d)", k, e.Slots[i])
	}
	b.WriteString("; give the keys one hash tag, e.g. {user42}")
	return b.String()
}

func checkSlots(sc *script, keys []string) error {
	if len(keys) < 2 {
		return nil
	}
	first := crc.Slot(keys[0])
	for _, k := range keys[1:] {
		if crc.Slot(k) != first {
			slots := make([]uint16, len(keys))
			for i, k := range keys {
				slots[i] = crc.Slot(k)
			}
			return &CrossSlotError{Script: sc.name, Keys: append([]string(nil), keys...), Slots: slots}
		}
	}
	return nil
}

// Tag returns "{tag}:part:part…": a key whose slot is decided by tag alone, so
// that keys built with the same tag can be passed to one script in a cluster.
func Tag(tag string, parts ...string) string {
	n := len(tag) + 2
	for _, p := range parts {
		n += len(p) + 1
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteByte('{')
	b.WriteString(tag)
	b.WriteByte('}')
	for _, p := range parts {
		b.WriteByte(':')
		b.WriteString(p)
	}
	return b.String()
}

// ArgError is an argument that cannot be sent, found before any I/O.
type ArgError struct {
	Script string
	Arg    string
	Err    error
}

func (e *ArgError) Error() string { return fmt.Sprintf("%s: arg %s: %v", e.Script, e.Arg, e.Err) }

func (e *ArgError) Unwrap() error { return e.Err }

// errGap is for an optional arg set after one left nil: ARGV is positional,
// so the script would read the later value in the earlier one's place.
func errGap(sc *script, arg, absent string) error {
	return &ArgError{Script: sc.name, Arg: arg, Err: fmt.Errorf("set, but the earlier optional arg %s is nil; ARGV is positional", absent)}
}

func jsonArg(sc *script, arg string, v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", &ArgError{Script: sc.name, Arg: arg, Err: err}
	}
	return string(b), nil
}

// ReplyError is a reply whose shape does not match the script's returns:
// header, so that a script and its wrapper that drifted apart fail loudly.
type ReplyError struct {
	Script string
	Field  string // the returns: field, or "" for the whole reply
	Want   string // the header's type
	Reply  any    // the reply (or element) as go-redis decoded it
}

func (e *ReplyError) Error() string {
	what := "reply"
	if e.Field != "" {
		what = "reply field " + e.Field
	}
	return fmt.Sprintf("%s: %s: want %s, got %T %v", e.Script, what, e.Want, e.Reply, e.Reply)
}

func replyError(sc *script, field, want string, v any) error {
	return &ReplyError{Script: sc.name, Field: field, Want: want, Reply: v}
}

// result is the reply of a call whose type maps Lua false (a nil reply) to a
// value.
func result(cmd *redis.Cmd) (any, error) {
	v, err := cmd.Result()
	if err == redis.Nil {
		return nil, nil
	}
	return v, err
}

// fields checks that an array reply has one element per returns: field.
func fields(sc *script, v any, n int) ([]any, error) {
	a, ok := v.([]any)
	if !ok || len(a) != n {
		return nil, replyError(sc, "", fmt.Sprintf("an array of %d fields", n), v)
	}
	return a, nil
}

func asInt(sc *script, field string, v any) (int64, error) {
	if i, ok := v.(int64); ok {
		return i, nil
	}
	return 0, replyError(sc, field, "int", v)
}

// asFloat takes a number as Lua can send one: a string (Lua numbers become
// integers on the way out), an integer, or a RESP3 double.
func asFloat(sc *script, field string, v any) (float64, error) {
	switch v := v.(type) {
	case float64:
		return v, nil
	case int64:
		return float64(v), nil
	case string:
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f, nil
		}
	}
	return 0, replyError(sc, field, "float", v)
}

func asString(sc *script, field string, v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", replyError(sc, field, "string", v)
}

func asBytes(sc *script, field string, v any) ([]byte, error) {
	if s, ok := v.(string); ok {
		return []byte(s), nil
	}
	return nil, replyError(sc, field, "bytes", v)
}

func asJSON(sc *script, field string, v any) (json.RawMessage, error) {
	if s, ok := v.(string); ok && json.Valid([]byte(s)) {
		return json.RawMessage(s), nil
	}
	return nil, replyError(sc, field, "json", v)
}

// asBool follows Redis's conversion: Lua true becomes integer 1, false a nil
// reply; RESP3 scripts (redis.setresp(3)) send real booleans.
func asBool(sc *script, field string, v any) (bool, error) {
	switch v := v.(type) {
	case nil:
		return false, nil
	case bool:
		return v, nil
	case int64:
		if v == 0 || v == 1 {
			return v == 1, nil
		}
	}
	return false, replyError(sc, field, "bool", v)
}

func asDuration(sc *script, field string, v any) (time.Duration, error) {
	if i, ok := v.(int64); ok {
		return time.Duration(i) * time.Millisecond, nil
	}
	return 0, replyError(sc, field, "duration (whole milliseconds)", v)
}

func asStatus(sc *script, field string, v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", replyError(sc, field, "status", v)
}

func asAny(_ *script, _ string, v any) (any, error) { return v, nil }

func asList[T any](sc *script, field string, v any, elem func(*script, string, any) (T, error)) ([]T, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, replyError(sc, field, "an array", v)
	}
	out := make([]T, len(a))
	for i, e := range a {
		x, err := elem(sc, field+"["+strconv.Itoa(i)+"]", e)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

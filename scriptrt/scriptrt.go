package scriptrt

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

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

// Script is one script of a generated package, as bundled.
type Script struct {
	Name string // as in the header
	SHA  string // the SHA-1 of Src
	Fn   string // the function's name in the library
	RO   bool   // flagged no-writes: EVALSHA_RO and FCALL_RO, which replicas accept
	Src  string // the EVAL source
}

// Library is the Functions library of a generated package and the scripts
// it holds.
type Library struct {
	Name            string
	VersionFunction string // the function that returns Version
	Version         string // a hash of the library's code
	Source          string // what Load installs with FUNCTION LOAD
	Scripts         []*Script
}

// Run calls sc, at once on a client, queued on a pipeline, with EVALSHA
// (EVALSHA_RO for no-writes scripts) and, when the server answers NOSCRIPT,
// with EVAL, which also caches the script for the next call.
func (sc *Script) Run(ctx context.Context, c Scripter, keys []string, args []any) *redis.Cmd {
	var cmd *redis.Cmd
	if sc.RO {
		cmd = c.EvalShaRO(ctx, sc.SHA, keys, args...)
	} else {
		cmd = c.EvalSha(ctx, sc.SHA, keys, args...)
	}
	if isNoScript(cmd.Err()) {
		if sc.RO {
			return c.EvalRO(ctx, sc.Src, keys, args...)
		}
		return c.Eval(ctx, sc.Src, keys, args...)
	}
	return cmd
}

// NotPipelined refuses a pipeline where the decoded reply is wanted at once:
// a queued command has no reply yet, and decoding it would report a wrong
// shape instead of the real mistake.
func (sc *Script) NotPipelined(c Scripter) error {
	if _, ok := c.(redis.Pipeliner); ok {
		return fmt.Errorf("%s: a pipeline has no reply before Exec: queue the call with the Cmd method and run it with Scripts.Exec", sc.Name)
	}
	return nil
}

// FCall calls sc's function in the library (FCALL_RO for no-writes
// scripts); when the server lacks the library, it loads it with Load and
// calls again, once.
func (l *Library) FCall(ctx context.Context, c Scripter, sc *Script, keys []string, args []any) *redis.Cmd {
	call := c.FCall
	if sc.RO {
		call = c.FCallRO
	}
	cmd := call(ctx, sc.Fn, keys, args...)
	if isNoFunction(cmd.Err()) {
		if err := l.Load(ctx, c); err != nil {
			return cmd
		}
		cmd = call(ctx, sc.Fn, keys, args...)
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

// Load installs the library on every primary (every shard of a Ring) unless
// it already runs this version: it asks VersionFunction, and loads with
// FUNCTION LOAD REPLACE on a mismatch or a missing library, then asks again.
// Load needs a client; a pipeline cannot wait for the answers.
func (l *Library) Load(ctx context.Context, c Scripter) error {
	switch c := c.(type) {
	case redis.Pipeliner:
		return errors.New(l.Name + ": Load needs a client, not a pipeline")
	case interface {
		ForEachMaster(context.Context, func(context.Context, *redis.Client) error) error
	}:
		return c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error { return l.load(ctx, n) })
	case interface {
		ForEachShard(context.Context, func(context.Context, *redis.Client) error) error
	}:
		return c.ForEachShard(ctx, func(ctx context.Context, n *redis.Client) error { return l.load(ctx, n) })
	default:
		return l.load(ctx, c)
	}
}

func (l *Library) load(ctx context.Context, c Scripter) error {
	got, err := c.FCallRO(ctx, l.VersionFunction, nil).Text()
	if err == nil && got == l.Version {
		return nil
	}
	if err != nil && !isNoFunction(err) {
		return fmt.Errorf("%s: asking the library version: %w", l.Name, err)
	}
	if err := c.FunctionLoadReplace(ctx, l.Source).Err(); err != nil {
		return fmt.Errorf("%s: FUNCTION LOAD: %w", l.Name, err)
	}
	got, err = c.FCallRO(ctx, l.VersionFunction, nil).Text()
	if err != nil {
		return fmt.Errorf("%s: asking the library version: %w", l.Name, err)
	}
	if got != l.Version {
		return &VersionError{Library: l.Name, Want: l.Version, Got: got}
	}
	return nil
}

// Exec runs the pipeline, then replays the calls of the library's scripts
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
func (l *Library) Exec(ctx context.Context, pipe redis.Pipeliner) ([]redis.Cmder, error) {
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
		sc, args := l.replayOf(cmd)
		if sc == nil {
			continue
		}
		slot := "-"
		if n, _ := args[2].(int); n > 0 {
			if k, ok := args[3].(string); ok {
				slot = strconv.Itoa(int(crc.Slot(k)))
			}
		}
		name, payload := "evalsha", sc.SHA
		if !sent[sc.SHA+slot] {
			sent[sc.SHA+slot] = true
			name, payload = "eval", sc.Src
		}
		if sc.RO {
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
func (l *Library) replayOf(cmd *redis.Cmd) (*Script, []any) {
	args := cmd.Args()
	if len(args) < 3 {
		return nil, nil
	}
	name, _ := args[0].(string)
	id, _ := args[1].(string)
	for _, sc := range l.Scripts {
		switch strings.ToLower(name) {
		case "evalsha", "evalsha_ro":
			if id != sc.SHA {
				continue
			}
		case "fcall", "fcall_ro":
			if id != sc.Fn {
				continue
			}
		default:
			return nil, nil
		}
		return sc, append([]any(nil), args...)
	}
	return nil, nil
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

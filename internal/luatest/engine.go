package luatest

import (
	"errors"
	"time"

	"github.com/scriptgen/scriptgen/transactional"
)

// engineTarget runs on the embedded engine, a fresh one per test, so that
// tests share neither keys, cached scripts nor the clock.
type engineTarget struct{ e *transactional.Engine }

func newEngineTarget() *engineTarget { return &engineTarget{} }

func (t *engineTarget) do(args ...string) (any, error) {
	v, err := t.e.Do(args...)
	var te *transactional.Error
	if errors.As(err, &te) {
		return ReplyError(te.Msg), ReplyError(te.Msg)
	}
	if err != nil {
		return nil, err
	}
	return normalize(v), nil
}

// normalize maps the engine's reply types onto the wire client's.
func normalize(v any) any {
	switch v := v.(type) {
	case transactional.Status:
		return Status(v)
	case *transactional.Error:
		return ReplyError(v.Msg)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

// eval caches the script as the bundle ships it, the transactional choice
// given as data (transactional.Journaled) rather than as the prelude's text
// for the engine to recognise, then runs cmd.
func (t *engineTarget) eval(b bundled, cmd []string) (any, error) {
	var opts []transactional.ScriptOption
	if b.transactional {
		opts = append(opts, transactional.Journaled())
	}
	if _, err := t.e.Load(b.head+b.code, opts...); err != nil {
		var te *transactional.Error
		if errors.As(err, &te) {
			return ReplyError(te.Msg), ReplyError(te.Msg)
		}
		return nil, err
	}
	return t.do(cmd...)
}

func (t *engineTarget) advance(d time.Duration) error {
	t.e.Advance(d)
	return nil
}

func (t *engineTarget) set(ms int64) error {
	t.e.SetTime(time.UnixMilli(ms))
	return nil
}

func (t *engineTarget) now() (int64, error) { return t.e.Now().UnixMilli(), nil }

func (t *engineTarget) reset() error {
	if t.e != nil {
		t.e.Close()
	}
	t.e = transactional.New()
	return nil
}

func (t *engineTarget) close() {
	if t.e != nil {
		t.e.Close()
	}
}

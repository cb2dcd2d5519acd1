package luatest

import (
	"fmt"
	"strconv"
	"time"
)

// redisTarget runs on a real server; its clock is the server's.
type redisTarget struct{ c *conn }

func newRedisTarget(url string) (*redisTarget, error) {
	c, err := dial(url)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", url, err)
	}
	return &redisTarget{c}, nil
}

func (r *redisTarget) do(args ...string) (any, error) { return r.c.do(args...) }

// eval sends the shipped text, which Redis caches under cmd's SHA-1.
func (r *redisTarget) eval(b bundled, cmd []string) (any, error) {
	return r.do(append([]string{"EVAL", b.shipped}, cmd[2:]...)...)
}

func (r *redisTarget) advance(d time.Duration) error {
	time.Sleep(d)
	return nil
}

func (r *redisTarget) set(int64) error {
	return fmt.Errorf("a real Redis's clock cannot be set; use the embedded engine or clock.advance")
}

func (r *redisTarget) now() (int64, error) {
	v, err := r.c.do("TIME")
	if err != nil {
		return 0, err
	}
	parts, ok := v.([]any)
	if !ok || len(parts) != 2 {
		return 0, fmt.Errorf("TIME: unexpected reply %v", v)
	}
	s, err1 := strconv.ParseInt(fmt.Sprint(parts[0]), 10, 64)
	us, err2 := strconv.ParseInt(fmt.Sprint(parts[1]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("TIME: unexpected reply %v", v)
	}
	return s*1000 + us/1000, nil
}

func (r *redisTarget) reset() error {
	if _, err := r.c.do("FLUSHDB"); err != nil {
		return err
	}
	// Scripts cached by an earlier test must not hide a NOSCRIPT path.
	_, err := r.c.do("SCRIPT", "FLUSH")
	return err
}

func (r *redisTarget) close() { r.c.Close() }

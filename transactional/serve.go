package transactional

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"
)

// Config is what Serve needs to run the engine as a RESP server.
type Config struct {
	// Addr is the address to listen on, host:port; port 0 picks a free
	// one. An empty host is every interface, so it needs AllowRemote.
	Addr string
	// Password, when set, is required with AUTH from every connection.
	Password string
	// TimeLimit stops scripts that run longer; 0 lets them run forever,
	// as for WithTimeLimit.
	TimeLimit time.Duration
	// LuaMemoryLimit is how much a running script may grow the heap
	// before it fails with "not enough memory"; 0 means
	// DefaultLuaMemoryLimit and a negative value no limit.
	LuaMemoryLimit int64
	// AllowRemote lets Addr be a non-loopback address. Off by default
	// because the engine has no TLS and no ACLs: it is meant for one
	// machine's tools and tests.
	AllowRemote bool
	// Unprotected lets AllowRemote serve without a Password: Redis's
	// protected-mode no. Protected by default, as Redis is, because a
	// remote address with no password hands the keyspace and EVAL to
	// anyone who can reach the port.
	Unprotected bool
	// Limits bound what clients may send and how many may connect.
	Limits Limits
	// Ready, when set, is called once with the address Serve listens on,
	// which tells the caller the port chosen for a port of 0.
	Ready func(addr net.Addr)
}

// NotLoopbackError is Serve's error for a non-loopback Config.Addr without
// Config.AllowRemote.
type NotLoopbackError struct{ Addr string }

func (e *NotLoopbackError) Error() string {
	return fmt.Sprintf("refusing to listen on non-loopback address %q without AllowRemote", e.Addr)
}

// ErrProtected is Serve's error for a Config with AllowRemote, no Password
// and not Unprotected.
var ErrProtected = errors.New("refusing to serve a non-loopback address without a password in protected mode: set a password, or turn protected mode off")

// Serve runs a fresh engine, in real time, as a RESP server on cfg.Addr
// until ctx is cancelled, then closes it. It returns an error only when it
// cannot start listening: a *NotLoopbackError, ErrProtected, or the
// listener's error.
func Serve(ctx context.Context, cfg Config) error {
	if !cfg.AllowRemote && !isLoopback(cfg.Addr) {
		return &NotLoopbackError{cfg.Addr}
	}
	if cfg.AllowRemote && cfg.Password == "" && !cfg.Unprotected {
		return ErrProtected
	}
	opts := []Option{WithTimeLimit(cfg.TimeLimit), WithRealTime(), WithLimits(cfg.Limits)}
	if cfg.LuaMemoryLimit != 0 {
		opts = append(opts, WithLuaMemoryLimit(max(cfg.LuaMemoryLimit, 0)))
	}
	if cfg.Password != "" {
		opts = append(opts, WithPassword(cfg.Password))
	}
	e := New(opts...)
	defer e.Close()
	a, err := e.Listen(cfg.Addr)
	if err != nil {
		return err
	}
	if cfg.Ready != nil {
		cfg.Ready(a)
	}
	<-ctx.Done()
	return nil
}

// isLoopback reports whether addr's host is a loopback address. An empty
// host means every interface, which is not.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

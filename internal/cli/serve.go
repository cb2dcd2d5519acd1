package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/scriptgen/scriptgen/transactional"
)

const serveUsage = `usage: scriptgen serve [-addr 127.0.0.1:6390] [-requirepass PASSWORD] [-time-limit 5s] [-lua-memory-limit 1gb]
       [-allow-remote [-protected-mode=false]]
       [-maxclients N] [-timeout SECONDS] [-proto-max-bulk-len BYTES] [-client-query-buffer-limit BYTES]

Serve the embedded engine (miniredis plus scriptgen's Redis-7-faithful Lua
sandbox: EVAL, EVALSHA, EVAL_RO, SCRIPT, FUNCTION, FCALL) as a RESP server, so
redis-cli, go-redis or any client can use it. It serves until interrupted.

Flags:
  -addr ADDR           address to listen on (default 127.0.0.1:6390)
  -requirepass PW      require AUTH PW from every connection
  -time-limit D        stop scripts that run longer than D (default 5s, 0: never)
  -lua-memory-limit N  fail a script that grows the heap by more than N bytes
                       (units b, kb, mb, gb as in redis.conf; default 1gb, 0: no
                       limit) with "not enough memory"
  -allow-remote        allow binding to a non-loopback address (needs -requirepass)
  -protected-mode      refuse -allow-remote without -requirepass (default true)

Client limits, as Redis's settings of the same names:
  -maxclients N        refuse more clients than N (default 10000)
  -timeout S           close a client idle for S seconds (default 0: never)
  -proto-max-bulk-len B
                       refuse an argument longer than B bytes (default 536870912)
  -client-query-buffer-limit B
                       close a client whose request exceeds B bytes (default 1073741824)
`

func init() {
	register(&command{name: "serve", summary: "run the embedded engine as a RESP server", usage: serveUsage,
		run: func(e *env, args []string) int {
			code := serve(e, args)
			if len(args) == 1 && (args[0] == "-h" || args[0] == "-help") {
				return ExitOK
			}
			return code
		}})
}

// serve listens until e.ctx is cancelled.
func serve(e *env, args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg := transactional.Config{}
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:6390", "")
	fs.StringVar(&cfg.Password, "requirepass", "", "")
	fs.DurationVar(&cfg.TimeLimit, "time-limit", transactional.DefaultTimeLimit, "")
	fs.BoolVar(&cfg.AllowRemote, "allow-remote", false, "")
	protected := fs.Bool("protected-mode", true, "")
	mem := memorySize(transactional.DefaultLuaMemoryLimit)
	fs.Var(&mem, "lua-memory-limit", "")
	lim := &cfg.Limits
	fs.IntVar(&lim.MaxClients, "maxclients", transactional.DefaultMaxClients, "")
	idle := fs.Int("timeout", 0, "")
	fs.Int64Var(&lim.MaxBulkLen, "proto-max-bulk-len", transactional.DefaultMaxBulkLen, "")
	fs.Int64Var(&lim.QueryBufferLimit, "client-query-buffer-limit", transactional.DefaultQueryBufferLimit, "")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(e.stderr, "scriptgen serve: %v\n%s", err, serveUsage)
		return ExitUsage
	}
	lim.IdleTimeout = time.Duration(*idle) * time.Second
	if lim.MaxClients < 1 || *idle < 0 || lim.MaxBulkLen < 1 || lim.QueryBufferLimit < 1 {
		fmt.Fprintf(e.stderr, "scriptgen serve: -maxclients, -timeout, -proto-max-bulk-len and -client-query-buffer-limit take a positive number (-timeout: or 0)\n%s", serveUsage)
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "scriptgen serve: unexpected argument %q\n%s", fs.Arg(0), serveUsage)
		return ExitUsage
	}
	cfg.Unprotected = !*protected
	cfg.LuaMemoryLimit = int64(mem)
	if mem == 0 {
		cfg.LuaMemoryLimit = -1
	}
	cfg.Ready = func(a net.Addr) { fmt.Fprintf(e.stdout, "scriptgen serve: listening on %s\n", a) }
	err := transactional.Serve(e.ctx, cfg)
	var nl *transactional.NotLoopbackError
	switch {
	case errors.As(err, &nl):
		fmt.Fprintf(e.stderr, "scriptgen serve: refusing to listen on non-loopback address %q without -allow-remote\n", nl.Addr)
		return ExitUsage
	case errors.Is(err, transactional.ErrProtected):
		fmt.Fprint(e.stderr, "scriptgen serve: refusing -allow-remote without -requirepass: anyone who reaches the port could run scripts; set -requirepass, or -protected-mode=false to serve unprotected\n")
		return ExitUsage
	case err != nil:
		fmt.Fprintf(e.stderr, "scriptgen serve: %v\n", err)
		return ExitUsage
	}
	return ExitOK
}

// memorySize is a flag of bytes written as redis.conf writes memory: a
// number with an optional unit, k/kb/m/mb/g/gb (k is 1000, kb 1024).
type memorySize int64

func (m *memorySize) String() string { return strconv.FormatInt(int64(*m), 10) }

func (m *memorySize) Set(s string) error {
	units := []struct {
		suffix string
		n      int64
	}{{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"b", 1}}
	s = strings.ToLower(s)
	mul := int64(1)
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mul = num, u.n
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mul {
		return fmt.Errorf("invalid memory size")
	}
	*m = memorySize(n * mul)
	return nil
}

package transactional

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
)

// ServeUsage is the help text of "scriptgen serve".
const ServeUsage = `usage: scriptgen serve [-addr 127.0.0.1:6390] [-requirepass PASSWORD] [-time-limit 5s] [-allow-remote]

Serve the embedded engine (miniredis plus scriptgen's Redis-7-faithful Lua
sandbox: EVAL, EVALSHA, EVAL_RO, SCRIPT, FUNCTION, FCALL) as a RESP server, so
redis-cli, go-redis or any client can use it. It serves until interrupted.

Flags:
  -addr ADDR           address to listen on (default 127.0.0.1:6390)
  -requirepass PW      require AUTH PW from every connection
  -time-limit D        stop scripts that run longer than D (default 5s, 0: never)
  -allow-remote        allow binding to a non-loopback address
`

// Serve runs "scriptgen serve": it listens until ctx is cancelled and
// returns the exit code (0 served, 2 bad usage or cannot listen).
func Serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "127.0.0.1:6390", "")
	pass := fs.String("requirepass", "", "")
	limit := fs.Duration("time-limit", DefaultTimeLimit, "")
	remote := fs.Bool("allow-remote", false, "")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "scriptgen serve: %v\n%s", err, ServeUsage)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "scriptgen serve: unexpected argument %q\n%s", fs.Arg(0), ServeUsage)
		return 2
	}
	if !*remote && !isLoopback(*addr) {
		fmt.Fprintf(stderr, "scriptgen serve: refusing to listen on non-loopback address %q without -allow-remote\n", *addr)
		return 2
	}
	opts := []Option{WithTimeLimit(*limit), WithRealTime()}
	if *pass != "" {
		opts = append(opts, WithPassword(*pass))
	}
	e := New(opts...)
	defer e.Close()
	a, err := e.Listen(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "scriptgen serve: %v\n", err)
		return 2
	}
	fmt.Fprintf(stdout, "scriptgen serve: listening on %s\n", a)
	<-ctx.Done()
	return 0
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

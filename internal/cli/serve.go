package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"

	"github.com/scriptgen/scriptgen/transactional"
)

const serveUsage = `usage: scriptgen serve [-addr 127.0.0.1:6390] [-requirepass PASSWORD] [-time-limit 5s] [-allow-remote [-protected-mode=false]]

Serve the embedded engine (miniredis plus scriptgen's Redis-7-faithful Lua
sandbox: EVAL, EVALSHA, EVAL_RO, SCRIPT, FUNCTION, FCALL) as a RESP server, so
redis-cli, go-redis or any client can use it. It serves until interrupted.

Flags:
  -addr ADDR           address to listen on (default 127.0.0.1:6390)
  -requirepass PW      require AUTH PW from every connection
  -time-limit D        stop scripts that run longer than D (default 5s, 0: never)
  -allow-remote        allow binding to a non-loopback address (needs -requirepass)
  -protected-mode      refuse -allow-remote without -requirepass (default true)
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
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(e.stderr, "scriptgen serve: %v\n%s", err, serveUsage)
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "scriptgen serve: unexpected argument %q\n%s", fs.Arg(0), serveUsage)
		return ExitUsage
	}
	cfg.Unprotected = !*protected
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

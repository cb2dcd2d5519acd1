package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
)

// Exit codes, one table for every command (usage prints it).
const (
	ExitOK       = 0
	ExitFindings = 1
	ExitUsage    = 2
)

type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

type command struct {
	name    string
	summary string
	usage   string // full help; the first line is the synopsis
	run     func(e *env, args []string) int
}

var commands []*command

func register(c *command) { commands = append(commands, c) }

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// Run is scriptgen's main: args exclude the program name. An interrupt
// cancels long-running commands (serve) cleanly.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return RunContext(ctx, args, stdin, stdout, stderr)
}

// RunContext is Run under a context of the caller's.
func RunContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		usage(stderr)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return ExitOK
	}
	c := lookup(args[0])
	if c == nil {
		fmt.Fprintf(stderr, "scriptgen: unknown command %q\n", args[0])
		usage(stderr)
		return ExitUsage
	}
	return c.run(e, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprint(w, "scriptgen checks, tests, bundles and generates typed Go wrappers for Redis Lua scripts.\n\nUsage:\n\n\tscriptgen <command> [arguments]\n\nCommands:\n\n")
	cs := append([]*command(nil), commands...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	for _, c := range cs {
		fmt.Fprintf(w, "\t%-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nUse \"scriptgen help <command>\" for more about a command.\n")
	fmt.Fprint(w, "\nExit status, for every command: 0 clean; 1 findings or failures (lint\nerrors, failing tests, stale files or headers under -diff, a file not\nwritten); 2 bad usage, unreadable input or a Lua syntax error.\n")
}

// flags returns a FlagSet that prints the command's help on -h and writes
// errors to stderr.
func (e *env) flags(c *command) *flag.FlagSet {
	fs := flag.NewFlagSet("scriptgen "+c.name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprint(e.stderr, strings.TrimLeft(c.usage, "\n"))
		if hasFlags(fs) {
			fmt.Fprint(e.stderr, "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parse parses flags; ok is false when Run should return code.
func parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK, false
		}
		return ExitUsage, false
	}
	return 0, true
}

func init() {
	register(&command{
		name:    "help",
		summary: "show help for a command",
		usage:   "usage: scriptgen help [command]\n\nHelp shows what a command does, its arguments and flags.\n",
		run: func(e *env, args []string) int {
			if len(args) == 0 {
				usage(e.stdout)
				return ExitOK
			}
			c := lookup(args[0])
			if c == nil {
				fmt.Fprintf(e.stderr, "scriptgen help: unknown command %q\n", args[0])
				return ExitUsage
			}
			// Help is asked for, so it goes to stdout: run the command's
			// -h with the streams swapped.
			e.stderr, e.stdout = e.stdout, e.stderr
			c.run(e, []string{"-h"})
			return ExitOK
		},
	})
	register(&command{
		name:    "version",
		summary: "print scriptgen's version",
		usage:   "usage: scriptgen version\n\nVersion prints the module version scriptgen was built from and the Go version.\n",
		run: func(e *env, args []string) int {
			fs := e.flags(lookup("version"))
			if code, ok := parse(fs, args); !ok {
				return code
			}
			v, goV := "(devel)", "unknown"
			if bi, ok := debug.ReadBuildInfo(); ok {
				goV = bi.GoVersion
				if bi.Main.Version != "" {
					v = bi.Main.Version
				}
			}
			fmt.Fprintf(e.stdout, "scriptgen %s %s\n", v, goV)
			return ExitOK
		},
	})
}

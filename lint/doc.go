// Package lint proves, before a script ever runs, that it is cluster-safe
// and sandbox-safe: every key it touches comes from KEYS, every command
// exists and is allowed, and it stays inside Redis's script environment.
//
// # How keys are traced
//
// Package luaflow's key walk (luaflow.Walk) reads the script and its
// includes and reports facts: what each key argument of a redis.call is
// built from (a KEYS element, a string derived from one, a parameter, or
// anything else), which commands are called with what, which globals and
// KEYS and ARGV indexes are read. lint holds the rules: which facts are
// findings, at which severity, in which words, against the header
// (KEYS[n] beyond the declared keys) and the script's ignore comments.
// When a command's keys cannot be known before it runs, the linter says so
// once (dynamic-command, info) and checks nothing it cannot prove.
//
// lint imports luaflow, the front end (internal/script) and Redis's
// command table; nothing under transactional.
//
// # Why two key rules
//
// key-source reports keys built from anything but KEYS: they break Redis
// Cluster outright. key-derived reports keys derived from a KEYS element:
// Redis Cluster runs them when the element carries a hash tag, and job
// queues (BullMQ's scripts among them) build keys that way on purpose, but
// Redis's contract, ACL key patterns, proxies and Dragonfly do not accept
// them. Keeping the two apart lets such a project lower key-derived to a
// warning (`--! lint: warning key-derived`, or -warn key-derived) without
// losing key-source.
//
// # Includes
//
// `--! include: path` (our header) and `--- @include "path"` (BullMQ's
// comment form, .lua implied) pull shared Lua in, resolved recursively
// from the including file's directory, each file once per script, its
// functions visible to the script. Package script reads the lines, the
// files they name and which files are helpers (script.Loader), for lint
// and the bundler alike. Findings point at the file and line
// where the code is; a file another script includes is not linted on its
// own, since its helpers are meant to be called from elsewhere. A finding
// in a helper is reported once per position and rule, however many
// scripts include it or calls reach it: the first call is named and the
// others counted (BullMQ's 52 commands: 1,138 findings at 378 positions
// before, 413 after).
//
// # Syntax
//
// A syntax error is reported in Lua 5.1's words, as Redis's EVAL gives
// it, at the token Lua names, with the later Lua's syntax that stopped it
// (`'=' expected near 'done': goto is Lua 5.2; Redis runs Lua 5.1`).
//
// # Memory
//
// A run keeps no script's syntax tree once it is analysed (load.go):
// 9,000 scripts of 100 lines peak at about 150 MB of heap.
//
// # Positions
//
// Our gopher-lua copy's parser gives every AST node, and every name a
// statement declares, the column of its token (see pos.go), so a finding
// points at the offending token without the file being lexed again.
package lint

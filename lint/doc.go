// Package lint proves, before a script ever runs, that it is cluster-safe
// and sandbox-safe: every key it touches comes from KEYS, every command
// exists and is allowed, and it stays inside Redis's script environment.
//
// # How keys are traced
//
// The linter reads gopher-lua's AST once per pass and gives every
// expression an abstract value: a KEYS element, a string derived from one
// (KEYS[1] .. ':x', string.format('%s:x', KEYS[1]), KEYS[1]:sub(…)),
// something that depends on a function parameter, or anything else (ARGV,
// literals, replies, arithmetic), with a word on where it came from for the
// message. A variable's value is the join of everything assigned to it
// anywhere, so a local is a key only when it is assigned only from KEYS;
// passes repeat until the values settle, because a loop may assign after a
// use.
//
// Where a redis.call (or an alias, `local rcall = redis.call`, or pcall(redis.call, …))
// names a command, its key positions come from Redis's own key specs and
// getkeys procedures (package internal/commands, generated from a real
// redis-server), never from a guess; when an argument that decides them is
// known only at run time, or the command name is held in a variable, the
// linter says so once (dynamic-command, info) and checks nothing it cannot
// prove.
//
// Local helpers are followed: a function body is read once where it is
// defined, with its parameters unknown, and again at every call with the
// caller's argument values (memoised per argument shape, bounded in depth),
// so `local function incr(key) return rcall('INCR', key) end` called with
// ARGV[1] is reported, at the helper's call of INCR, naming the call site.
// Functions libraries (`#!lua name=…`) are read the same way: a
// redis.register_function callback gets the keys table as its first
// parameter, whatever it is named, and its `no-writes` flag.
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
// own, since its helpers are meant to be called from elsewhere.
//
// # Positions
//
// Our gopher-lua copy's parser gives every AST node, and every name a
// statement declares, the column of its token (see pos.go), so a finding
// points at the offending token without the file being lexed again.
package lint

package server

import (
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	_ "unsafe" // for go:linkname
)

// nanotime is the runtime's monotonic clock. A command's time is two
// reads of it: time.Now reads the wall clock too, a third read, and a
// script's redis.calls are timed one by one, as Redis times them. The Go
// runtime keeps this name for packages that link to it.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// scriptgen: INFO commandstats. Redis counts, per command and per
// subcommand (config|get), the calls that ran (call() in server.c, with
// their time), the ones refused before they ran (rejectCommand and
// scriptCall's error path: rejected_calls) and the ones that ran and
// replied an error (incrCommandStatsOnError: failed_calls).
//
// The table is built once from Redis's command names (TrackCommands) and
// never changes after: Dispatch finds a command's counters in the map it
// already reads, and a caller that resolves a name once (the engine's
// redis.call) keeps the pointer. Counters are atomics, as commands that
// take no miniredis lock (PING, unknown names) run on many goroutines.

// CmdStat is one cmdstat_<name> line of INFO commandstats.
type CmdStat struct {
	name                          string
	calls, usec, rejected, failed atomic.Int64
}

// Reject counts a call refused before it ran.
func (s *CmdStat) Reject() {
	if s != nil {
		s.rejected.Add(1)
	}
}

// cmdStats is the table: by upper-case command name, with the
// subcommands of a container command by lower-case name.
type cmdStats struct {
	byName map[string]*cmdStatEntry
	all    []*CmdStat // in name order, as INFO lists them
}

type cmdStatEntry struct {
	stat *CmdStat
	subs map[string]*CmdStat
}

// TrackCommands makes the server count the commands named, Redis's full
// names in lower case ("get", "config|get"); a container command lists
// its subcommands as its own names. Call it before the server serves.
func (s *Server) TrackCommands(names []string) {
	t := &cmdStats{byName: map[string]*cmdStatEntry{}}
	entry := func(name string) *cmdStatEntry {
		up := strings.ToUpper(name)
		e := t.byName[up]
		if e == nil {
			e = &cmdStatEntry{}
			t.byName[up] = e
		}
		return e
	}
	for _, n := range names {
		st := &CmdStat{name: n}
		t.all = append(t.all, st)
		if parent, sub, ok := strings.Cut(n, "|"); ok {
			e := entry(parent)
			if e.subs == nil {
				e.subs = map[string]*CmdStat{}
			}
			e.subs[sub] = st
			continue
		}
		entry(n).stat = st
	}
	sort.Slice(t.all, func(i, j int) bool { return t.all[i].name < t.all[j].name })
	s.stats.Store(t)
}

// CommandStat is the counters of the command cmdUp (upper case) run with
// args, its subcommand's for a container; nil for a name Redis does not
// know, whose calls Redis does not count.
func (s *Server) CommandStat(cmdUp string, args []string) *CmdStat {
	t := s.stats.Load()
	if t == nil {
		return nil
	}
	e := t.byName[cmdUp]
	switch {
	case e == nil:
		return nil
	case e.subs == nil:
		return e.stat
	case len(args) == 0:
		return nil
	}
	return e.subs[strings.ToLower(args[0])]
}

// ResetCommandStats zeroes every counter (CONFIG RESETSTAT).
func (s *Server) ResetCommandStats() {
	if t := s.stats.Load(); t != nil {
		for _, st := range t.all {
			st.calls.Store(0)
			st.usec.Store(0)
			st.rejected.Store(0)
			st.failed.Store(0)
		}
	}
}

// AppendCommandStats appends INFO commandstats' lines of the commands
// counted so far, in Redis's format (genRedisInfoStringCommandStats).
func (s *Server) AppendCommandStats(b []byte) []byte {
	t := s.stats.Load()
	if t == nil {
		return b
	}
	for _, st := range t.all {
		calls, usec := st.calls.Load(), st.usec.Load()
		rejected, failed := st.rejected.Load(), st.failed.Load()
		if calls == 0 && rejected == 0 && failed == 0 {
			continue
		}
		perCall := 0.0
		if calls != 0 {
			// Redis divides in float, not double.
			perCall = float64(float32(usec) / float32(calls))
		}
		b = append(b, "cmdstat_"...)
		b = append(b, st.name...)
		b = append(b, ":calls="...)
		b = strconv.AppendInt(b, calls, 10)
		b = append(b, ",usec="...)
		b = strconv.AppendInt(b, usec, 10)
		b = append(b, ",usec_per_call="...)
		b = strconv.AppendFloat(b, perCall, 'f', 2, 64)
		b = append(b, ",rejected_calls="...)
		b = strconv.AppendInt(b, rejected, 10)
		b = append(b, ",failed_calls="...)
		b = strconv.AppendInt(b, failed, 10)
		b = append(b, "\r\n"...)
	}
	return b
}

// cmdMark is a command started on a peer (startCmd), with what the
// peer noted of the command around it, if any (EXEC's, for a queued one).
type cmdMark struct {
	st    *CmdStat
	start int64 // nanotime
	nerr  int64
	outer cmdState
}

// cmdState is what a peer notes of the command it runs.
type cmdState struct {
	cur                       *CmdStat
	start                     int64 // Monotonic at its start
	rejected, failed, counted bool
}

// Monotonic is the runtime's monotonic clock, in nanoseconds: what a
// time.Time's monotonic reading is, read for half of time.Now's cost (one
// clock read where time.Now makes two, about 40 ns each on these
// machines), for the durations serve measures on every request.
func Monotonic() int64 { return nanotime() }

// CommandStart is when the command c runs began (Monotonic), 0 when it
// runs none: a command's own clock read, for what it times (a script's
// run) to start from.
func (c *Peer) CommandStart() int64 { return c.cmd.start }

// startCmd notes the start of the command st on c.
func (c *Peer) startCmd(st *CmdStat) cmdMark {
	m := cmdMark{st: st, start: nanotime(), nerr: c.nerr, outer: c.cmd}
	c.cmd = cmdState{cur: st, start: m.start}
	return m
}

// endCmd counts the command started at m, as call() and
// incrCommandStatsOnError do: refused, or a call that failed if it
// replied an error (or MarkFailed said so). The command around it, if
// any, sees none of its errors, as incrCommandStatsOnError's reset after
// a nested call has it.
func (c *Peer) endCmd(m cmdMark) {
	st, cmd := m.st, c.cmd
	c.cmd = m.outer
	failed := cmd.failed || c.nerr != m.nerr
	if m.outer.cur != nil {
		c.nerr = m.nerr
	}
	if st == nil || cmd.counted {
		return
	}
	if cmd.rejected {
		st.rejected.Add(1)
		return
	}
	st.calls.Add(1)
	st.usec.Add((nanotime() - m.start) / 1000)
	if failed {
		st.failed.Add(1)
	}
}

// MarkRejected makes the command c is running count as refused before it
// ran (rejected_calls), not as a call: what processCommand's checks and a
// hook's refusals answer.
func (c *Peer) MarkRejected() { c.cmd.rejected = true }

// MarkFailed makes the command c is running count as failed without an
// error reply counted for it: a script's error that was counted when the
// command inside it failed (afterErrorReply's ERR_REPLY_FLAG_NO_STATS_UPDATE).
func (c *Peer) MarkFailed() { c.cmd.failed = true }

// MarkCounted says the command c is running is counted elsewhere: it ran
// on another peer, whose Dispatch counts it.
func (c *Peer) MarkCounted() { c.cmd.counted = true }

// CountLater is for a command queued in MULTI: Redis counts it when EXEC
// runs it, not now. It returns what runs it counted, in EXEC.
// A command MarkCounted stays counted elsewhere.
func (c *Peer) CountLater() func(run func()) {
	st := c.cmd.cur
	if c.cmd.counted {
		st = nil
	}
	c.cmd.counted = true
	return func(run func()) {
		m := c.startCmd(st)
		run()
		c.endCmd(m)
	}
}

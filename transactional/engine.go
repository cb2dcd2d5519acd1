package transactional

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/scriptgen/scriptgen/internal/commands"
	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
	"github.com/scriptgen/scriptgen/transactional/internal/resp"
)

// DefaultStart is where an Engine's virtual clock starts unless WithClock or
// WithRealTime says otherwise: a fixed instant keeps TIME, expiry and stream
// IDs reproducible from run to run.
var DefaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// DefaultTimeLimit is the default script time limit, Redis's default
// busy-reply-threshold (lua-time-limit).
const DefaultTimeLimit = 5 * time.Second

// Engine is the embedded Redis: one miniredis keyspace, our Lua sandbox for
// EVAL*/SCRIPT/FUNCTION/FCALL (intercepted with miniredis's
// server.SetPreHook, so they win over miniredis's own), a virtual clock.
//
// All script state (the Lua states, the script cache, the function
// libraries) is guarded by miniredis's own lock, which a running script
// holds from start to end: that is what makes a script atomic for every
// other client, as in Redis.
type Engine struct {
	m    *miniredis.Miniredis
	srv  *server.Server
	opts options

	// inner is the nested peer redis.call dispatches through; only used
	// under miniredis's lock.
	inner    *server.Peer
	innerBuf bytes.Buffer
	sink     luaSink // takes the inner peer's replies during dispatchToLua
	// scriptCmds are the command names scripts have called, resolved
	// (scriptCmdFor); under miniredis's lock.
	scriptCmds map[string]*scriptCmd
	// cmdHits are the last names scriptCmdFor answered, by where their
	// bytes are: a script's command name is a constant of its compiled
	// chunk, the same string on every run, found here without hashing.
	cmdHits [8]cmdHit
	innerW  *bufio.Writer
	// rand is math.random's generator, one for all scripts as in Redis;
	// only used under miniredis's lock.
	rand rand48
	runs runs // makes the script runs; only used under miniredis's lock
	// goReply, while set (by EvalSHA), takes a script's reply as Go values
	// instead of RESP; evalReply is the one EvalSHA uses. Only used under
	// miniredis's lock.
	goReply   *resp.GoReply
	evalReply resp.GoReply

	// doMu serialises the in-process connection's commands (Do, EvalSHA,
	// DoTransactional) and guards that connection: doPeer, doBuf, doW
	// and doJournal. It is held for a whole command, script included, so
	// it cannot be mu: the time limit, SCRIPT KILL and Close must reach
	// the running script meanwhile. Nor miniredis's lock: EvalSHA takes
	// that one itself, and Do hands the command to miniredis, which does.
	doMu      sync.Mutex
	doJournal bool // DoTransactional is running
	doPeer    *server.Peer
	doBuf     bytes.Buffer
	doW       *bufio.Writer

	// mu guards the engine's small shared state: the virtual clock (now),
	// the listeners and closed, and the running script's kill state
	// (run.reason, afters, finished and ended, through run.mu). It is held
	// for a few instructions at a time and never around a call into
	// miniredis, Lua or a caller's function: nothing is locked while it is
	// held, so it may be taken under any other lock. It cannot be
	// miniredis's lock, which a running script holds from start to end.
	mu  sync.Mutex
	now time.Time // the virtual clock; guarded by mu
	// nowMs is now in whole Unix milliseconds, stored with it: every
	// served command looks whether the wall clock has moved on
	// (followWallClockFor), and most find it has not without taking mu,
	// which 200 clients' goroutines handed to each other per command.
	nowMs atomic.Int64

	// guarded by miniredis's lock
	eval    *sandbox
	scripts map[string]*evalScript
	funcs   *functionRegistry

	// running is the script in progress, if any; atomic, because the
	// time limit's timer and other clients' commands look at it without
	// miniredis's lock, which the script holds.
	running atomic.Pointer[run]
	reply   []byte // the last script reply (execute); under miniredis's lock
	// limit is the time limit of running scripts (armLimit): made in New
	// and never replaced, so it needs no lock; limitArmed says a firing is
	// pending and lets one caller at a time re-arm it.
	limit      *time.Timer
	limitArmed atomic.Bool
	admin      adminState // what CONFIG sets (admin.go)
	mem        memWatch   // the Lua memory limit's watch (memory.go)

	listeners []net.Listener // guarded by mu
	closed    bool           // guarded by mu
	lnWG      sync.WaitGroup // the listeners' accept loops
}

// Option configures an Engine.
type Option func(*options)

type options struct {
	start         time.Time
	realTime      bool
	password      string
	timeLimit     time.Duration
	busyThreshold time.Duration
	memoryLimit   int64
	log           func(level int, msg string)
	limits        Limits
}

// WithClock starts the virtual clock at t.
func WithClock(t time.Time) Option { return func(o *options) { o.start = t } }

// WithRealTime makes the engine follow the wall clock instead of a virtual
// one; SetTime and Advance then have no lasting effect.
func WithRealTime() Option { return func(o *options) { o.realTime = true } }

// WithPassword makes connections accepted by Listen require AUTH (Redis's
// requirepass). Do is always authenticated: it is the process itself.
func WithPassword(pw string) Option { return func(o *options) { o.password = pw } }

// WithTimeLimit stops a script that runs longer than d and returns an error
// to its caller; 0 lets scripts run forever, as Redis does.
func WithTimeLimit(d time.Duration) Option { return func(o *options) { o.timeLimit = d } }

// WithBusyReplyThreshold sets after how long a running script makes other
// clients get BUSY replies and accepts SCRIPT KILL / FUNCTION KILL (Redis's
// busy-reply-threshold). By default it equals the time limit, or Redis's 5s
// when scripts may run forever.
func WithBusyReplyThreshold(d time.Duration) Option {
	return func(o *options) { o.busyThreshold = d }
}

// WithLog receives redis.log calls (level is one of redis.LOG_*). It runs
// inside the script, with the keyspace locked: it must not call the Engine.
func WithLog(f func(level int, msg string)) Option { return func(o *options) { o.log = f } }

// Limits bound the clients of Listen as Redis's settings of the same names
// do: proto-max-bulk-len, client-query-buffer-limit, maxclients and
// timeout. A zero field takes Redis's default (512 MB, 1 GB, 10,000, no
// timeout).
type Limits = server.Limits

// Redis's defaults for Limits.
const (
	DefaultMaxBulkLen       = server.DefaultMaxBulkLen
	DefaultQueryBufferLimit = server.DefaultQueryBufferLimit
	DefaultMaxClients       = server.DefaultMaxClients
)

// WithLimits sets the limits of the connections Listen accepts.
func WithLimits(l Limits) Option { return func(o *options) { o.limits = l } }

// New returns an Engine that is not listening; use Do in-process or Listen
// for a RESP server.
func New(opts ...Option) *Engine {
	o := options{start: DefaultStart, timeLimit: DefaultTimeLimit, busyThreshold: -1, memoryLimit: DefaultLuaMemoryLimit}
	for _, opt := range opts {
		opt(&o)
	}
	if o.busyThreshold < 0 {
		o.busyThreshold = o.timeLimit
		if o.busyThreshold == 0 {
			o.busyThreshold = DefaultTimeLimit
		}
	}
	e := &Engine{
		m:       miniredis.NewMiniRedis(),
		opts:    o,
		scripts: map[string]*evalScript{},
	}
	// Dial starts miniredis without a listener; the pipe is not needed.
	conn, err := e.m.Dial()
	if err != nil {
		panic(fmt.Sprintf("transactional: starting miniredis: %v", err))
	}
	conn.Close()
	e.srv = e.m.Server()
	// The pipe's server side goes on its own goroutine when it reads the
	// close: until then it is a client, and with -maxclients 1 the first
	// real one was refused on a loaded machine (TestServeLimitFlags).
	for deadline := time.Now().Add(5 * time.Second); e.srv.ClientsLen() > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if !o.realTime {
		e.setNow(o.start)
		e.m.SetTime(o.start)
	} else {
		// Blocked clients are served after the command that readied
		// them, at the wall clock's time, as handleClientsBlockedOnKeys
		// looks keys up (a key that expired during an EXEC's DEBUG
		// SLEEP serves nobody).
		e.m.SetBlockedClock(e.wallClock)
	}
	e.m.ClockTTL(true)
	e.m.RedisExpiry(true)
	if o.password != "" {
		e.m.RequireAuth(o.password)
	}

	e.innerW = bufio.NewWriter(&e.innerBuf)
	e.inner = server.NewPeer(e.innerW)
	e.doW = bufio.NewWriter(&e.doBuf)
	e.doPeer = server.NewPeer(e.doW)
	miniredis.SetPeerAuthenticated(e.doPeer)

	e.runs.mu = &e.mu
	// Always: FUNCTION LOAD has a limit of its own even without a time
	// limit (loadTimeout).
	e.limit = time.AfterFunc(time.Hour, e.limitReached)
	e.limit.Stop()
	if o.memoryLimit > 0 {
		e.mem.t = time.AfterFunc(time.Hour, e.memoryCheck)
		e.mem.t.Stop()
	}

	e.eval = newSandbox(e, false)
	e.funcs = newFunctionRegistry(e)
	e.wireAdmin()
	e.srv.SetPreHook(e.hook)
	e.m.SetBusyCheck(e.busyWhileWaiting)
	e.m.SetCachedScripts(func() int { return len(e.scripts) })
	e.m.SetFunctionCodes(func() []string { return e.funcs.codes() })
	// A script's redis.calls answer through the nested peer: Redis counts
	// their errors in INFO errorstats, caught by pcall or not.
	e.inner.CountErrorsIn(e.srv.ErrorStats())
	e.srv.SetLimits(o.limits, func(p *server.Peer) (idleExempt, unauthenticated bool) {
		return miniredis.PeerSubscribed(p), o.password != "" && !miniredis.PeerAuthenticated(p)
	})
	return e
}

// Close stops all listeners and the engine.
func (e *Engine) Close() {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	e.closed = true
	for _, l := range e.listeners {
		l.Close()
	}
	e.mu.Unlock()
	e.lnWG.Wait()
	if r := e.running.Load(); r != nil {
		r.kill(killClose)
	}
	if e.limit != nil {
		e.limit.Stop()
	}
	if e.mem.t != nil {
		e.mem.t.Stop()
	}
	e.m.Close()
}

// Miniredis gives tests direct access to the keyspace: miniredis's API
// (Exists, Get, TTL, FastForward, …) on the engine's copy of it, which
// lives in an internal package (internal/third_party/miniredis), so code
// outside this module calls its methods but cannot name its type.
func (e *Engine) Miniredis() *miniredis.Miniredis { return e.m }

// Do runs one command in-process exactly as a client connection would
// (EVAL and friends through our sandbox), without TCP. The connection is
// persistent: SELECT, MULTI and HELLO affect later calls.
//
// Replies are nil (null), int64 (integer), string (bulk), Status (simple
// string), []any (array) and *Error (an error reply, also returned as the
// error). After HELLO 3, RESP3 replies are Map, Set, float64 (double), bool,
// BigNumber and Verbatim; nested errors stay *Error values inside arrays.
func (e *Engine) Do(args ...string) (any, error) {
	return e.do(false, args)
}

// do is Do, with journaled runs when journal is set.
func (e *Engine) do(journal bool, args []string) (any, error) {
	if len(args) == 0 {
		return nil, &Error{Msg: "ERR empty command"}
	}
	e.doMu.Lock()
	defer e.doMu.Unlock()
	return e.doLocked(journal, args)
}

// doLocked is do with doMu held.
func (e *Engine) doLocked(journal bool, args []string) (any, error) {
	e.doJournal = journal
	defer func() { e.doJournal = false }()
	e.doBuf.Reset()
	e.srv.Dispatch(e.doPeer, args)
	e.doPeer.Flush()
	if e.doBuf.Len() == 0 {
		return nil, nil
	}
	v, _, err := resp.Parse(e.doBuf.Bytes())
	if err != nil {
		return nil, err
	}
	if er, ok := v.(*Error); ok {
		return er, er
	}
	return v, nil
}

// EvalSHA is Do("EVALSHA", sha, numkeys, keys..., argv...) for callers
// that run a cached script many times, such as the simulator: same
// connection, same checks, same reply, without building the command line
// or going through miniredis's dispatch. The connection must be in its
// plain state for that (not in MULTI, not subscribed, authenticated) and no
// other client's script may be running; otherwise it takes Do's path.
func (e *Engine) EvalSHA(sha string, keys, argv []string) (any, error) {
	e.doMu.Lock()
	defer e.doMu.Unlock()
	c := e.doPeer
	if e.opts.realTime {
		e.followWallClock()
	}
	if e.running.Load() != nil || !e.m.PeerAnswerable(c) {
		args := make([]string, 0, 3+len(keys)+len(argv))
		args = append(append(append(args, "EVALSHA", sha, strconv.Itoa(len(keys))), keys...), argv...)
		return e.doLocked(false, args)
	}
	e.m.Lock()
	g := &e.evalReply
	g.Reset()
	e.goReply = g
	reply := e.evalSHA(c, sha, keys, argv)
	e.goReply = nil
	v, err := g.Value, error(nil)
	if len(reply) > 0 { // written as RESP: the recovered panic's reply
		v, _, err = resp.Parse(reply)
	}
	e.m.Unlock()
	if err != nil {
		return nil, err
	}
	if er, ok := v.(*Error); ok {
		return er, er
	}
	return v, nil
}

// evalSHA is cmdEval's EVALSHA, returning the reply. Called with
// miniredis's lock held.
func (e *Engine) evalSHA(c *server.Peer, sha string, keys, argv []string) (reply []byte) {
	defer func() {
		if v := recover(); v != nil {
			e.clearRunning()
			w := resp.Writer{}
			w.ErrorReply(fmt.Sprintf(msgInternal, v))
			reply = w.Buf
		}
	}()
	sc := e.script(sha)
	if sc == nil {
		w := resp.Writer{}
		w.ErrorReply(miniredis.MsgNoScript)
		return w.Buf
	}
	return e.evalScript(c, sc, false, keys, argv)
}

// Now returns the engine's clock.
func (e *Engine) Now() time.Time {
	if e.opts.realTime {
		return time.Now().UTC()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

// SetTime sets the clock that drives TIME and key expiry; moving it forward
// expires keys whose TTL has passed. It waits for a running script to end,
// because Redis's clock stands still inside a script.
func (e *Engine) SetTime(t time.Time) {
	e.mu.Lock()
	e.setNow(t)
	e.mu.Unlock()
	e.setMiniredisTime(t)
}

// setNow sets the clock; the caller holds mu, or is New.
func (e *Engine) setNow(t time.Time) {
	e.now = t
	e.nowMs.Store(t.UnixMilli())
}

// setMiniredisTime moves miniredis's clock to t and expires the keys that
// leaves behind, as Redis would (miniredis's RedisExpiry): at the exact
// millisecond of its expiry a key still reads, with PTTL 0, and it goes
// when the clock moves on at all. miniredis keeps TTLs as deadlines in a
// heap (internal/third_party/miniredis/ttlclock.go), so a move costs the
// keys it expires, not every key with a TTL.
func (e *Engine) setMiniredisTime(t time.Time) {
	e.m.SetTime(t)
	e.m.Tick()
}

// followWallClock moves miniredis's clock to the wall clock, in whole
// milliseconds as Redis keeps expiries: miniredis holds a TTL as a
// duration from the instant of its last clock move, and from an instant
// with a fraction of a millisecond a PEXPIREAT would read back from
// PEXPIRETIME a millisecond short. Keys that expire at that millisecond
// live through it, as on the virtual clock.
func (e *Engine) followWallClock() {
	e.followWallClockFor(nil)
}

// followWallClockFor is followWallClock for a client's command: waiting
// for miniredis's lock, it gets BUSY from a script that took the lock
// since the hook looked, as any command would (LockFor), and then reports
// false: it replied.
func (e *Engine) followWallClockFor(c *server.Peer) bool {
	t, moved := e.wallClock()
	if !moved {
		return true
	}
	if c == nil {
		e.setMiniredisTime(t)
		return true
	}
	return e.m.SetTimeFor(c, t, e.busyWhileWaiting)
}

// wallClock moves the engine's clock to the wall clock's millisecond and
// returns it, and whether it moved; miniredis's clock is the caller's to
// move.
func (e *Engine) wallClock() (time.Time, bool) {
	t := time.Now().UTC().Truncate(time.Millisecond)
	for {
		// Of the clients that see a millisecond begin, the one that
		// moves nowMs to it moves the clocks; the rest go on.
		old := e.nowMs.Load()
		if t.UnixMilli() <= old {
			return t, false // t is not after now, which is at least nowMs
		}
		if e.nowMs.CompareAndSwap(old, t.UnixMilli()) {
			break
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !t.After(e.now) {
		return t, false
	}
	e.setNow(t)
	return t, true
}

// Advance moves the clock forward by d.
func (e *Engine) Advance(d time.Duration) {
	e.mu.Lock()
	e.setNow(e.now.Add(d))
	t := e.now
	e.mu.Unlock()
	e.setMiniredisTime(t)
}

// Listen serves RESP on addr ("127.0.0.1:0" when empty), sharing the
// keyspace with Do. Connections need AUTH when WithPassword was given.
func (e *Engine) Listen(addr string) (net.Addr, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		l.Close()
		return nil, fmt.Errorf("transactional: engine closed")
	}
	e.listeners = append(e.listeners, l)
	e.lnWG.Add(1)
	go func() {
		defer e.lnWG.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			e.srv.ServeConn(c)
		}
	}()
	return l.Addr(), nil
}

// scriptCmd is what redis.call needs of a command name: it is looked up
// once for each name as scripts spell it (Engine.scriptCmdFor), not on
// every call, which cost a script's command several hashings of its name.
type scriptCmd struct {
	info    *commands.Command // lookupCommand's for the name alone; nil if Redis does not know it
	upper   string            // the name as miniredis registers it
	handler server.Cmd        // miniredis's; nil when it has none
	stat    *server.CmdStat   // its INFO commandstats counters; nil for a container, whose subcommand decides
}

// cmdHit is an entry of Engine.cmdHits.
type cmdHit struct {
	name string
	sc   *scriptCmd
}

// maxScriptCmds bounds Engine.scriptCmds: a script may make up names.
const maxScriptCmds = 1024

// scriptCmdFor is name's scriptCmd. The caller holds miniredis's lock.
func (e *Engine) scriptCmdFor(name string) *scriptCmd {
	// The entry holds its name, so its bytes cannot be freed and reused
	// for another string while it is there: the same address and length
	// are the same name.
	p := unsafe.StringData(name)
	hit := &e.cmdHits[uintptr(unsafe.Pointer(p))>>3%uintptr(len(e.cmdHits))]
	if unsafe.StringData(hit.name) == p && len(hit.name) == len(name) && hit.sc != nil {
		return hit.sc
	}
	if sc, ok := e.scriptCmds[name]; ok {
		*hit = cmdHit{name, sc}
		return sc
	}
	up := strings.ToUpper(name)
	sc := &scriptCmd{info: lookupCommand([]string{name}), upper: up, handler: e.srv.Handler(up)}
	if sc.info != nil && !sc.info.Container {
		sc.stat = e.srv.CommandStat(up, nil)
	}
	if e.scriptCmds == nil {
		e.scriptCmds = map[string]*scriptCmd{}
	}
	if len(e.scriptCmds) < maxScriptCmds {
		e.scriptCmds[name] = sc
	}
	*hit = cmdHit{name, sc}
	return sc
}

// dispatchToLua runs one command from a script on the nested peer and
// returns the sink holding its reply as a Lua value: miniredis's replies
// go straight into Lua values, with no RESP written and parsed back. It
// is miniredis's Dispatch with the name already resolved (sc): the
// engine's hook, then the handler. The caller holds miniredis's lock.
func (e *Engine) dispatchToLua(L *lua.LState, sc *scriptCmd, args []string, resp3 bool) *luaSink {
	s := &e.sink
	s.reset(L, resp3)
	e.inner.Resp3 = resp3
	e.inner.SetSink(s)
	defer e.inner.SetSink(nil)
	switch {
	case e.hook(e.inner, sc.upper, args[1:]...):
	case sc.handler == nil:
		// miniredis's reply to a name it does not know (its hook, which
		// answered nothing above, runs again and again answers nothing).
		e.srv.Dispatch(e.inner, args)
	default:
		st := sc.stat
		if st == nil {
			st = e.srv.CommandStat(sc.upper, args[1:])
		}
		e.srv.RunHandler(e.inner, sc.handler, st, sc.upper, args[1:])
	}
	return s
}

// dispatchInner runs one command from a script on the nested peer and
// returns its raw reply. The caller holds miniredis's lock.
func (e *Engine) dispatchInner(args []string, resp3 bool) []byte {
	e.innerBuf.Reset()
	e.inner.Resp3 = resp3
	e.srv.Dispatch(e.inner, args)
	e.innerW.Flush()
	return e.innerBuf.Bytes()
}

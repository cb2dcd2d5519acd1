// scriptgen: the replication stream a master sends its replicas (issue 28:
// Redis's suite reads it in expire, scripting, type/list and type/zset).
//
// A client that sends SYNC (or PSYNC, answered +FULLRESYNC) gets an RDB
// file of the keyspace and, from then on, every write the server applies,
// as Redis 7.0 propagates it (server.c call, alsoPropagate,
// propagatePendingCommands):
//   - a command that changed the dataset (the dirty counter moved) is
//     propagated as the rule of repl_rules.go makes it: as it came, or
//     rewritten as Redis rewrites it (relative TTLs as absolute ones, SPOP
//     as SREM, the blocking and multi-key pops as pops with a count);
//   - what one top-level unit propagates (a command, a transaction's EXEC,
//     a script with the commands it called, a blocked client served) goes
//     out together, wrapped in MULTI/EXEC when it is more than one
//     command, and not for the commands that touch arbitrary keys;
//   - a key the TTL clock expires is propagated as DEL (expireKey);
//   - SELECT goes before a command of another database than the last one.
//
// With no replica attached, the only cost is the dirty counter's increment.

package miniredis

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
	"github.com/scriptgen/scriptgen/transactional/rdb"
)

// replicaBufferLimit is how much stream may wait for a replica that does
// not read before it is disconnected: Redis 7.0's default hard
// client-output-buffer-limit for replicas.
const replicaBufferLimit = 256 << 20

// propOp is one command to propagate, in database db.
type propOp struct {
	db   int
	argv []string
}

// replica is one attached replica: its connection, and how the stream is
// written to it.
type replica struct {
	peer  *server.Peer
	write func(string)
	ack   time.Time // the last REPLCONF ACK, or the attach
}

// replication is the master's side of replication; m's lock guards it.
type replication struct {
	replicas []replica
	pinging  bool  // the goroutine that pings replicas runs
	loops    int64 // seconds it has counted (replicationCron's loops)
	offset   int64 // bytes of stream sent since the start
	seldb    int   // the database of the last SELECT sent; -1: none yet
	depth    int   // units running, nested (a script's calls in its EVAL)
	pending  []propOp
	noMulti  bool // the top-level unit is a command that touches arbitrary keys
	muted    bool // a script's redis.set_repl left out REPL_REPLICA
}

func commandsReplication(m *Miniredis) {
	m.srv.Register("SYNC", m.cmdSync)
	m.srv.Register("PSYNC", m.cmdSync)
	m.srv.Register("REPLCONF", m.cmdReplconf)
}

// REPLCONF option value ...: what a redis-server replica says before its
// PSYNC (listening-port, ip-address, capa) is acknowledged and otherwise
// ignored; ACK, which it sends every second after, gets no reply.
func (m *Miniredis) cmdReplconf(c *server.Peer, cmd string, args []string) {
	if len(args)%2 != 0 {
		setDirty(c)
		c.WriteError(msgSyntaxError)
		return
	}
	for i := 0; i < len(args); i += 2 {
		switch strings.ToLower(args[i]) {
		case "listening-port", "ip-address", "capa", "rdb-only":
		case "ack":
			m.Lock()
			for i := range m.repl.replicas {
				if m.repl.replicas[i].peer == c {
					m.repl.replicas[i].ack = time.Now()
				}
			}
			m.Unlock()
			return
		case "getack":
			return
		default:
			c.WriteError("ERR Unrecognized REPLCONF option: " + args[i])
			return
		}
	}
	c.WriteOK()
}

// dirtied counts a change of the dataset: Redis's server.dirty, by which
// call() tells a write that changed something from one that did not.
func (m *Miniredis) dirtied() { m.dirty++ }

// SYNC and PSYNC replid offset: a full resynchronisation always (there is
// no backlog to continue from), then the stream.
func (m *Miniredis) cmdSync(c *server.Peer, cmd string, args []string) {
	want := 0
	if cmd == "PSYNC" {
		want = 2
	}
	if len(args) != want {
		setDirty(c)
		c.WriteError(errWrongNumber(cmd))
		return
	}
	ctx := getCtx(c)
	if ctx.nested {
		c.WriteError(msgNotFromScripts(ctx.nestedSHA))
		return
	}
	if inTx(ctx) {
		c.WriteError("ERR Command is not allowed inside a transaction")
		return
	}
	if !m.LockFor(c, m.busyCheck) {
		return
	}
	defer m.Unlock()
	m.tickLocked()
	r := &m.repl
	if cmd == "PSYNC" {
		// The replication ID is INFO's master_replid, the run ID.
		c.WriteInline("FULLRESYNC " + runID + " " + strconv.FormatInt(r.offset, 10))
	}
	var functions []string
	if m.functionCodes != nil {
		functions = m.functionCodes()
	}
	file := rdb.File(functions, m.rdbEntries())
	c.Flush()
	write := c.MakeReplica(replicaBufferLimit)
	write("$" + strconv.Itoa(len(file)) + "\r\n" + string(file))
	// Redis forgets the database it last selected for a new replica
	// (replicationSetupSlaveForFullResync): the stream starts with SELECT.
	r.seldb = -1
	r.replicas = append(r.replicas, replica{c, write, time.Now()})
	c.OnDisconnect(func() {
		m.Lock()
		defer m.Unlock()
		for i, p := range m.repl.replicas {
			if p.peer == c {
				m.repl.replicas = append(m.repl.replicas[:i], m.repl.replicas[i+1:]...)
				break
			}
		}
	})
	if !r.pinging {
		r.pinging = true
		go m.pingReplicas()
	}
}

// pingReplicas sends PING to the replicas every repl-ping-replica-period
// seconds, as replicationCron does, so that a replica that hears nothing
// for repl-timeout does not drop the link. It ends with the server.
func (m *Miniredis) pingReplicas() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-m.Ctx.Done():
			return
		case <-t.C:
		}
		m.Lock()
		r := &m.repl
		r.loops++
		if period := m.ConfigInt("repl-ping-replica-period"); len(r.replicas) > 0 && period > 0 && r.loops%period == 0 {
			// In the database last selected: no SELECT before it.
			var b strings.Builder
			writeArray(&b, []string{"PING"})
			m.send(b.String())
		}
		m.Unlock()
	}
}

// rdbEntries is the keyspace as the RDB file of a SYNC holds it.
func (m *Miniredis) rdbEntries() []rdb.Entry {
	var out []rdb.Entry
	for id, db := range m.dbs {
		if db == nil {
			continue
		}
		for _, k := range db.allKeys() {
			if db.LiveType(k) == "" {
				continue
			}
			v, err := db.toRDB(k)
			if err != nil || v == nil {
				continue
			}
			e := rdb.Entry{DB: id, Key: k, Value: v}
			if at, ok := db.deadline(k); ok {
				e.ExpireMs = max(at.UnixMilli(), 1)
			}
			out = append(out, e)
		}
	}
	return out
}

// SetFunctionCodes gives the server the function libraries' codes for the
// RDB file SYNC sends (the engine keeps the libraries, not miniredis).
func (m *Miniredis) SetFunctionCodes(codes func() []string) {
	m.Lock()
	defer m.Unlock()
	m.functionCodes = codes
}

// isReplica reports whether c is a replica's connection.
func (m *Miniredis) isReplica(c *server.Peer) bool {
	for _, r := range m.repl.replicas {
		if r.peer == c {
			return true
		}
	}
	return false
}

// SetReplicate is redis.set_repl's REPL_REPLICA bit for the script
// running: off, the commands it calls are not propagated (keys they
// expire still are, as propagateDeletion forces). The caller holds the
// lock.
func (m *Miniredis) SetReplicate(on bool) { m.repl.muted = !on }

// GoodReplicas is how many replicas acknowledged the stream (or
// attached) at most maxLag whole seconds ago: Redis's
// repl_good_slaves_count, which min-replicas-to-write compares with. The
// caller holds the lock.
func (m *Miniredis) GoodReplicas(maxLag int64) int {
	n := 0
	for _, r := range m.repl.replicas {
		if int64(time.Since(r.ack)/time.Second) <= maxLag {
			n++
		}
	}
	return n
}

// Replicating reports whether a replica is attached; the caller holds the
// lock.
func (m *Miniredis) Replicating() bool { return len(m.repl.replicas) > 0 }

// run runs cb, the command name with args of c, through propagate when a
// replica is attached; without one it makes no closure (scriptgen: every
// command comes here).
func (m *Miniredis) run(c *server.Peer, ctx *connCtx, name string, args []string, cb txCmd) {
	if len(m.repl.replicas) == 0 {
		cb(c, ctx)
		return
	}
	m.propagate(ctx.selectedDB, name, args, func() { cb(c, ctx) })
}

// propagate runs one command of c (name, args, in database db) as a unit
// of propagation, or as part of the unit around it, and queues what it
// changed as its rule says. The caller holds the lock.
func (m *Miniredis) propagate(db int, name string, args []string, run func()) {
	if len(m.repl.replicas) == 0 {
		run()
		return
	}
	rule := propRules[name]
	var pre any
	if rule.before != nil {
		pre = rule.before(m.DBLocked(db), args)
	}
	dirty := m.dirty
	m.Unit(name, func() {
		run()
		if m.dirty == dirty && !rule.force || m.repl.muted {
			return
		}
		if rule.after == nil {
			m.queue(db, append([]string{name}, args...))
			return
		}
		for _, argv := range rule.after(m.DBLocked(db), args, pre) {
			m.queue(db, argv)
		}
	})
}

// Unit runs run as a unit of propagation: what the commands run within
// it propagate goes out when the outermost unit ends, wrapped in
// MULTI/EXEC when it is more than one command (Redis's
// propagatePendingCommands). name is the command that started it, which
// decides the wrapping. The caller holds the lock. (The engine runs its
// scripts as units; their own command is never propagated, only their
// effects, as Redis 7 does.)
func (m *Miniredis) Unit(name string, run func()) {
	r := &m.repl
	if r.depth == 0 {
		r.noMulti = touchesArbitraryKeys[name]
	}
	r.depth++
	defer func() {
		r.depth--
		if r.depth == 0 {
			m.flushPropagation()
		}
	}()
	run()
}

// Propagate sends argv to the replicas as a command run in database db,
// with the unit running (the engine's FUNCTION LOAD, which miniredis does
// not serve). The caller holds the lock.
func (m *Miniredis) Propagate(db int, argv []string) {
	m.queue(db, append([]string(nil), argv...))
}

// PropagateKey sends the replicas key's state in db as it is now: RESTORE
// … REPLACE (ABSTTL with its expiry), or DEL when it does not exist. The
// engine's rollback of a transactional script puts keys back without
// commands; the writes the script made before it failed are streamed
// already, and this undoes them on the replicas as the prelude's RESTORE
// and DEL do on a real Redis. The caller holds the lock.
func (m *Miniredis) PropagateKey(db int, key string) {
	if len(m.repl.replicas) == 0 {
		return
	}
	d := m.DBLocked(db)
	if d.LiveType(key) == "" {
		m.queue(db, []string{"DEL", key})
		return
	}
	v, err := d.toRDB(key)
	if err != nil || v == nil {
		return
	}
	argv := []string{"RESTORE", key, "0", string(rdb.Dump(v)), "REPLACE"}
	if ms, ok := deadlineMs(d, key); ok {
		argv[2] = ms
		argv = append(argv, "ABSTTL")
	}
	m.queue(db, argv)
}

// queue adds a command to the unit running, or sends it at once when none
// runs (a key the clock expired between commands).
func (m *Miniredis) queue(db int, argv []string) {
	if len(m.repl.replicas) == 0 {
		return
	}
	m.repl.pending = append(m.repl.pending, propOp{db: db, argv: argv})
	if m.repl.depth == 0 {
		m.flushPropagation()
	}
}

// expireKey deletes a key whose time is up: the one place where the
// engine expires a key, so that it is propagated as DEL as Redis's
// deleteExpiredKeyAndPropagate does.
func (db *RedisDB) expireKey(key string) {
	m := db.master
	dirty := m.dirty
	db.del(key, true)
	m.dirty = dirty // no change a command made, as in Redis
	m.queue(db.id, []string{"DEL", key})
}

// flushPropagation sends the unit's commands to every replica.
func (m *Miniredis) flushPropagation() {
	r := &m.repl
	ops := r.pending
	r.pending = nil
	if len(ops) == 0 || len(r.replicas) == 0 {
		return
	}
	var b strings.Builder
	multi := len(ops) > 1 && !r.noMulti
	if multi {
		m.writeOp(&b, ops[0].db, []string{"MULTI"})
	}
	for _, op := range ops {
		m.writeOp(&b, op.db, op.argv)
	}
	if multi {
		m.writeOp(&b, ops[len(ops)-1].db, []string{"EXEC"})
	}
	m.send(b.String())
}

// send writes out to every replica.
func (m *Miniredis) send(out string) {
	m.repl.offset += int64(len(out))
	for _, p := range m.repl.replicas {
		p.write(out)
	}
}

// writeOp renders argv as a RESP array, after a SELECT when it is for
// another database than the last one sent.
func (m *Miniredis) writeOp(b *strings.Builder, db int, argv []string) {
	if db != m.repl.seldb {
		m.repl.seldb = db
		writeArray(b, []string{"SELECT", strconv.Itoa(db)})
	}
	writeArray(b, argv)
}

func writeArray(b *strings.Builder, argv []string) {
	b.WriteString("*" + strconv.Itoa(len(argv)) + "\r\n")
	for _, a := range argv {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
}

// sortedMembers is a set's members in order (a rule's before-state).
func sortedMembers(s setKey) []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

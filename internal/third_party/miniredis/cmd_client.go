package miniredis

import (
	"strconv"
	"strings"
	"time"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// commandsClient handles client operations.
func commandsClient(m *Miniredis) {
	m.srv.Register("CLIENT", m.cmdClient)
}

// scriptgen: CLIENT LIST, INFO, ID, KILL (both forms), NO-EVICT, REPLY
// and HELP as Redis 7.0.15 answers them, from the server's connection
// records (server/clientinfo.go); upstream had SETNAME and GETNAME only.

// clientHelp is CLIENT HELP's text in redis-server 7.0.15.
var clientHelp = []string{
	"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CACHING (YES|NO)",
	"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
	"GETREDIR",
	"    Return the client ID we are redirecting to when tracking is enabled.",
	"GETNAME",
	"    Return the name of the current connection.",
	"ID",
	"    Return the ID of the current connection.",
	"INFO",
	"    Return information about the current client connection.",
	"KILL <ip:port>",
	"    Kill connection made from <ip:port>.",
	"KILL <option> <value> [<option> <value> [...]]",
	"    Kill connections. Options are:",
	"    * ADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made from the specified address",
	"    * LADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made to specified local address",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Kill connections by type.",
	"    * USER <username>",
	"      Kill connections authenticated by <username>.",
	"    * SKIPME (YES|NO)",
	"      Skip killing current connection (default: yes).",
	"LIST [options ...]",
	"    Return information about client connections. Options:",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Return clients of specified type.",
	"UNPAUSE",
	"    Stop the current client pause, resuming traffic.",
	"PAUSE <timeout> [WRITE|ALL]",
	"    Suspend all, or just write, clients for <timeout> milliseconds.",
	"REPLY (ON|OFF|SKIP)",
	"    Control the replies sent to the current connection.",
	"SETNAME <name>",
	"    Assign the name <name> to the current connection.",
	"UNBLOCK <clientid> [TIMEOUT|ERROR]",
	"    Unblock the specified blocked client.",
	"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
	"         [OPTIN] [OPTOUT] [NOLOOP]",
	"    Control server assisted client side caching.",
	"TRACKINGINFO",
	"    Report tracking status for the current connection.",
	"NO-EVICT (ON|OFF)",
	"    Protect current client connection from eviction.",
	"HELP",
	"    Prints this help.",
}

// CLIENT
func (m *Miniredis) cmdClient(c *server.Peer, cmd string, args []string) {
	if len(args) == 0 {
		setDirty(c)
		c.WriteError(errWrongNumber("client"))
		return
	}
	if !subcommandOK(c, cmd, args) {
		return
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		switch strings.ToUpper(args[0]) {
		case "SETNAME":
			m.cmdClientSetName(c, args[1:])
		case "GETNAME":
			m.cmdClientGetName(c, args[1:])
		case "ID":
			c.WriteInt(int(clientID(c)))
		case "INFO":
			writeVerbatim(c, m.clientLine(c))
		case "LIST":
			m.cmdClientList(c, args[1:])
		case "KILL":
			m.cmdClientKill(c, args[1:])
		case "UNBLOCK":
			m.cmdClientUnblock(c, args[1:]) // scriptgen: blockq.go
		case "NO-EVICT":
			switch strings.ToUpper(args[1]) {
			case "ON", "OFF":
				if cl := c.Client(); cl != nil {
					cl.NoEvict.Store(strings.EqualFold(args[1], "on"))
				}
				c.WriteOK()
			default:
				c.WriteError(msgSyntaxError)
			}
		case "REPLY":
			switch strings.ToUpper(args[1]) {
			case "ON":
				c.SetReply(true, false)
				c.WriteOK()
			case "OFF", "SKIP":
				c.SetReply(false, strings.EqualFold(args[1], "skip"))
			default:
				c.WriteError(msgSyntaxError)
			}
		case "HELP":
			c.WriteLen(len(clientHelp))
			for _, l := range clientHelp {
				c.WriteInline(l)
			}
		default:
			setDirty(c)
			c.WriteError("ERR unknown subcommand '" + args[0] + "'. Try CLIENT HELP.")
		}
	})
}

// clientID is the connection's id; a peer without one (the engine's
// nested peer) is 0.
func clientID(c *server.Peer) int64 {
	if cl := c.Client(); cl != nil {
		return cl.ID
	}
	return 0
}

// clientLine is the peer's line of CLIENT LIST, in Redis 7.0.15's fields.
// Buffers and memory, which this server does not account, are an idle
// client's.
func (m *Miniredis) clientLine(p *server.Peer) string {
	cl := p.Client()
	if cl == nil {
		return "id=0 addr= laddr= fd=-1 name= age=0 idle=0 flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=NULL user=default redir=-1 resp=2\n"
	}
	cmd := "NULL"
	if last := cl.LastCommand(); len(last) > 0 {
		if info := commands.Find(last); info != nil {
			cmd = info.Name
		} else {
			cmd = strings.ToLower(last[0])
		}
	}
	var b strings.Builder
	add := func(k, v string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + "=" + v)
	}
	add("id", strconv.FormatInt(cl.ID, 10))
	add("addr", cl.Addr())
	add("laddr", cl.LocalAddr())
	add("fd", "8")
	add("name", cl.Name())
	add("age", strconv.Itoa(int(time.Since(cl.Created)/time.Second)))
	add("idle", strconv.Itoa(int(cl.Idle()/time.Second)))
	// In getClientInfoString's order; the caller holds the lock, which
	// guards the replicas and the blocked clients' queue.
	flags := ""
	if m.isReplica(p) {
		flags += "S"
	}
	if m.isBlocked(p) {
		flags += "b" // the suite's wait for a client still blocked
	}
	if cl.NoEvict.Load() {
		flags += "e"
	}
	if flags == "" {
		flags = "N"
	}
	add("flags", flags)
	add("db", strconv.Itoa(cl.DB()))
	for _, k := range []string{"sub", "psub", "ssub"} {
		add(k, "0")
	}
	add("multi", "-1")
	for _, k := range []string{"qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbs", "rbp", "obl", "oll", "omem", "tot-mem"} {
		add(k, "0")
	}
	add("events", "r")
	add("cmd", cmd)
	add("user", "default")
	add("redir", "-1")
	add("resp", strconv.Itoa(cl.Resp()))
	b.WriteByte('\n')
	return b.String()
}

// CLIENT LIST [TYPE type] [ID id ...]
func (m *Miniredis) cmdClientList(c *server.Peer, args []string) {
	peers := m.srv.Clients()
	switch {
	case len(args) == 0:
	case len(args) == 2 && strings.EqualFold(args[0], "type"):
		switch strings.ToLower(args[1]) {
		case "normal":
		case "master", "replica", "slave", "pubsub":
			peers = nil
		default:
			c.WriteError("ERR Unknown client type '" + args[1] + "'")
			return
		}
	case len(args) >= 2 && strings.EqualFold(args[0], "id"):
		ids := map[int64]bool{}
		for _, a := range args[1:] {
			id, err := strconv.ParseInt(a, 10, 64)
			if err != nil || id <= 0 {
				c.WriteError("ERR Invalid client ID")
				return
			}
			ids[id] = true
		}
		var keep []*server.Peer
		for _, p := range peers {
			if ids[p.Client().ID] {
				keep = append(keep, p)
			}
		}
		peers = keep
	default:
		c.WriteError(msgSyntaxError)
		return
	}
	var b strings.Builder
	for _, p := range peers {
		b.WriteString(m.clientLine(p))
	}
	writeVerbatim(c, b.String())
}

// CLIENT KILL addr | CLIENT KILL [ID id] [ADDR addr] [LADDR addr] [TYPE
// type] [USER user] [SKIPME yes|no] ...
func (m *Miniredis) cmdClientKill(c *server.Peer, args []string) {
	if len(args) == 1 {
		for _, p := range m.srv.Clients() {
			if p.Client().Addr() == args[0] {
				kill(c, p)
				c.WriteOK()
				return
			}
		}
		c.WriteError("ERR No such client")
		return
	}
	if len(args)%2 != 0 {
		c.WriteError(msgSyntaxError)
		return
	}
	skipMe := true
	var match []func(*server.Peer) bool
	for i := 0; i < len(args); i += 2 {
		v := args[i+1]
		switch strings.ToLower(args[i]) {
		case "id":
			id, err := strconv.ParseInt(v, 10, 64)
			if err != nil || id <= 0 {
				c.WriteError("ERR client-id should be greater than 0")
				return
			}
			match = append(match, func(p *server.Peer) bool { return p.Client().ID == id })
		case "addr":
			match = append(match, func(p *server.Peer) bool { return p.Client().Addr() == v })
		case "laddr":
			match = append(match, func(p *server.Peer) bool { return p.Client().LocalAddr() == v })
		case "type":
			switch strings.ToLower(v) {
			case "normal":
			case "master", "replica", "slave", "pubsub":
				match = append(match, func(*server.Peer) bool { return false })
			default:
				c.WriteError("ERR Unknown client type '" + v + "'")
				return
			}
		case "user":
			if v != "default" {
				c.WriteError("ERR No such user '" + v + "'")
				return
			}
		case "skipme":
			switch strings.ToLower(v) {
			case "yes":
				skipMe = true
			case "no":
				skipMe = false
			default:
				c.WriteError(msgSyntaxError)
				return
			}
		default:
			c.WriteError(msgSyntaxError)
			return
		}
	}
	killed := 0
	for _, p := range m.srv.Clients() {
		if skipMe && p == c {
			continue
		}
		ok := true
		for _, f := range match {
			ok = ok && f(p)
		}
		if ok {
			kill(c, p)
			killed++
		}
	}
	c.WriteInt(killed)
}

// kill closes p's connection; the asker's own closes after its reply, as
// in Redis.
func kill(asker, p *server.Peer) {
	if p == asker {
		p.Close()
		return
	}
	p.Client().Kill()
}

// writeVerbatim sends text as Redis sends INFO and CLIENT LIST: a RESP3
// verbatim string of format txt, a bulk string in RESP2. The engine's
// nested peer (no connection) takes the bulk string.
func writeVerbatim(c *server.Peer, s string) {
	if c.Resp3 && c.Client() != nil {
		c.WriteRaw("=" + strconv.Itoa(len(s)+4) + "\r\ntxt:" + s + "\r\n")
		return
	}
	c.WriteBulk(s)
}

// CLIENT SETNAME
func (m *Miniredis) cmdClientSetName(c *server.Peer, args []string) {
	name := args[0]
	for i := 0; i < len(name); i++ {
		if name[i] < '!' || name[i] > '~' {
			setDirty(c)
			c.WriteError("ERR Client names cannot contain spaces, newlines or special characters.")
			return
		}
	}
	c.ClientName = name
	if cl := c.Client(); cl != nil {
		cl.SetName(name)
	}
	c.WriteOK()
}

// CLIENT GETNAME
func (m *Miniredis) cmdClientGetName(c *server.Peer, args []string) {
	if c.ClientName == "" {
		c.WriteNull()
	} else {
		c.WriteBulk(c.ClientName)
	}
}

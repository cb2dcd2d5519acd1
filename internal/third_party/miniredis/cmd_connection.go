// Commands from https://redis.io/commands#connection

package miniredis

import (
	"fmt"
	"strings"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

func commandsConnection(m *Miniredis) {
	m.srv.Register("AUTH", m.cmdAuth)
	m.srv.Register("ECHO", m.cmdEcho)
	m.srv.Register("HELLO", m.cmdHello)
	m.srv.Register("PING", m.cmdPing)
	m.srv.Register("QUIT", m.cmdQuit)
	m.srv.Register("RESET", m.cmdReset) // scriptgen
	m.srv.Register("SELECT", m.cmdSelect)
	m.srv.Register("SWAPDB", m.cmdSwapdb)
}

// PING
func (m *Miniredis) cmdPing(c *server.Peer, cmd string, args []string) {
	if !m.handleAuth(c) {
		return
	}

	if len(args) > 1 {
		setDirty(c)
		c.WriteError(errWrongNumber(cmd))
		return
	}

	payload := ""
	if len(args) > 0 {
		payload = args[0]
	}

	// PING is allowed in subscribed state
	if sub := getCtx(c).subscriber; sub != nil {
		c.Block(func(c *server.Writer) {
			c.WriteLen(2)
			c.WriteBulk("pong")
			c.WriteBulk(payload)
		})
		return
	}

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		if payload == "" {
			c.WriteInline("PONG")
			return
		}
		c.WriteBulk(payload)
	})
}

// AUTH
func (m *Miniredis) cmdAuth(c *server.Peer, cmd string, args []string) {
	if len(args) < 1 {
		setDirty(c)
		c.WriteError(errWrongNumber(cmd))
		return
	}

	if len(args) > 2 {
		c.WriteError(msgSyntaxError)
		return
	}
	if m.checkPubsub(c, cmd) {
		return
	}
	ctx := getCtx(c)
	if ctx.nested {
		c.WriteError(msgNotFromScripts(ctx.nestedSHA))
		return
	}

	var opts = struct {
		username string
		password string
	}{
		username: "default",
		password: args[0],
	}
	if len(args) == 2 {
		opts.username, opts.password = args[0], args[1]
	}

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		// scriptgen: a user ACL SETUSER made.
		if known, ok := m.aclAuth(ctx, opts.username, opts.password); known {
			if ok {
				c.WriteOK()
			} else {
				c.WriteError(MsgWrongPass)
			}
			return
		}
		if len(m.passwords) == 0 && opts.username == "default" {
			if len(args) == 2 {
				// scriptgen: the default user is nopass: any password
				// is its, as Redis answers (back from an ACL user).
				ctx.user = ""
				c.WriteOK()
				return
			}
			c.WriteError("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
			return
		}
		setPW, ok := m.passwords[opts.username]
		if !ok {
			c.WriteError(MsgWrongPass)
			return
		}
		if setPW != opts.password {
			c.WriteError(MsgWrongPass)
			return
		}

		ctx.authenticated = true
		ctx.user = "" // scriptgen: the default user again
		c.WriteOK()
	})
}

// HELLO
func (m *Miniredis) cmdHello(c *server.Peer, cmd string, args []string) {
	var opts struct {
		version  int
		username string
		password string
	}

	// scriptgen: HELLO alone keeps the protocol, as in Redis.
	opts.version = 2
	if c.Resp3 {
		opts.version = 3
	}
	if len(args) > 0 {
		if ok := optIntErr(c, args[0], &opts.version, "ERR Protocol version is not an integer or out of range"); !ok {
			return
		}
		args = args[1:]
	}

	switch opts.version {
	case 2, 3:
	default:
		c.WriteError("NOPROTO unsupported protocol version")
		return
	}

	var checkAuth bool
	for len(args) > 0 {
		switch strings.ToUpper(args[0]) {
		case "AUTH":
			if len(args) < 3 {
				c.WriteError(fmt.Sprintf("ERR Syntax error in HELLO option '%s'", args[0]))
				return
			}
			opts.username, opts.password, args = args[1], args[2], args[3:]
			checkAuth = true
		case "SETNAME":
			if len(args) < 2 {
				c.WriteError(fmt.Sprintf("ERR Syntax error in HELLO option '%s'", args[0]))
				return
			}
			_, args = args[1], args[2:]
		default:
			c.WriteError(fmt.Sprintf("ERR Syntax error in HELLO option '%s'", args[0]))
			return
		}
	}

	if len(m.passwords) == 0 && opts.username == "default" {
		// redis ignores legacy "AUTH" if it's not enabled.
		checkAuth = false
	}
	if checkAuth {
		setPW, ok := m.passwords[opts.username]
		if !ok {
			c.WriteError(MsgWrongPass)
			return
		}
		if setPW != opts.password {
			c.WriteError(MsgWrongPass)
			return
		}
		getCtx(c).authenticated = true
	}
	if len(m.passwords) > 0 && !getCtx(c).authenticated {
		// scriptgen: Redis answers nothing else of HELLO before AUTH.
		c.WriteError(MsgNoAuthHello)
		return
	}

	c.Resp3 = opts.version == 3

	if cl := c.Client(); cl != nil {
		cl.SetResp(opts.version)
	}

	// scriptgen: Redis 7.0.15's answer; upstream said miniredis 8.4.0
	// with a vectorset module and id 42 for every connection.
	c.WriteMapLen(7)
	c.WriteBulk("server")
	c.WriteBulk("redis")
	c.WriteBulk("version")
	c.WriteBulk(commands.ServerVersion)
	c.WriteBulk("proto")
	c.WriteInt(opts.version)
	c.WriteBulk("id")
	c.WriteInt(int(clientID(c)))
	c.WriteBulk("mode")
	c.WriteBulk("standalone")
	c.WriteBulk("role")
	c.WriteBulk("master")
	c.WriteBulk("modules")
	c.WriteLen(0)
}

// ECHO
func (m *Miniredis) cmdEcho(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, exactly(1)) {
		return
	}

	msg := args[0]

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		c.WriteBulk(msg)
	})
}

// SELECT
func (m *Miniredis) cmdSelect(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, exactly(1)) {
		return
	}

	var opts struct {
		id int
	}
	if ok := optInt(c, args[0], &opts.id); !ok {
		return
	}

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		if !validDB(opts.id) {
			c.WriteError(msgDBIndexOutOfRange)
			setDirty(c)
			return
		}

		ctx.selectedDB = opts.id
		if cl := c.Client(); cl != nil {
			cl.SetDB(opts.id) // scriptgen: for CLIENT LIST
		}
		c.WriteOK()
	})
}

// SWAPDB
func (m *Miniredis) cmdSwapdb(c *server.Peer, cmd string, args []string) {
	if len(args) != 2 {
		setDirty(c)
		c.WriteError(errWrongNumber(cmd))
		return
	}
	if !m.handleAuth(c) {
		return
	}

	var opts struct {
		id1 int
		id2 int
	}

	if ok := optIntErr(c, args[0], &opts.id1, "ERR invalid first DB index"); !ok {
		return
	}
	if ok := optIntErr(c, args[1], &opts.id2, "ERR invalid second DB index"); !ok {
		return
	}

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		if !validDB(opts.id1) || !validDB(opts.id2) {
			c.WriteError(msgDBIndexOutOfRange)
			setDirty(c)
			return
		}

		m.swapDB(opts.id1, opts.id2)

		c.WriteOK()
	})
}

// QUIT
func (m *Miniredis) cmdQuit(c *server.Peer, cmd string, args []string) {
	// QUIT isn't transactionfied and accepts any arguments.
	c.WriteOK()
	c.Close()
}

// RESET (scriptgen; upstream has none) is Redis 7.0's resetCommand: the
// connection as it was when it connected (clearClientConnectionState).
// It runs at once inside MULTI, discarding it; it drops WATCHes and
// subscriptions, CLIENT REPLY OFF or SKIP, NO-EVICT and the name, selects
// db 0, goes back to RESP2 and, with a password set, makes the connection
// authenticate again.
func (m *Miniredis) cmdReset(c *server.Peer, cmd string, args []string) {
	if len(args) != 0 {
		setDirty(c)
		c.WriteError(errWrongNumber(cmd))
		return
	}
	ctx := getCtx(c)
	if ctx.nested {
		c.WriteError(msgNotFromScripts(ctx.nestedSHA))
		return
	}
	m.Lock()
	stopTx(ctx)
	endSubscriber(m, c)
	ctx.selectedDB = 0
	ctx.authenticated = false
	ctx.user = ""
	m.Unlock()
	c.ClientName = ""
	c.Resp3 = false
	if cl := c.Client(); cl != nil {
		cl.SetDB(0)
		cl.SetResp(2)
		cl.SetName("")
		cl.NoEvict.Store(false)
	}
	c.EndReplyOff()
	c.WriteInline("RESET")
}

// scriptgen: ACL users with command and key permissions, as far as
// scripts check them (redis.acl_check_cmd, the script ACL check) and
// Redis's test suite sets them up: ACL SETUSER, DELUSER, WHOAMI, USERS,
// LIST, DRYRUN, CAT, and AUTH as such a user. Categories are the ones a
// command's flags give (@read, @write, @admin, @fast, @pubsub, @blocking)
// and @scripting; channels and selectors are accepted and not enforced.

package miniredis

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// aclUser is one user made by ACL SETUSER. Command rules apply in order,
// the last that matches a command decides, as Redis's bitmap of allowed
// commands ends up deciding.
type aclUser struct {
	name      string
	on        bool
	nopass    bool
	passwords []string
	rules     []aclRule
	keys      []string // glob patterns; "*" for allkeys
}

type aclRule struct {
	allow    bool
	selector string // "@all", "@category" or a command name ("cmd" or "cmd|sub")
}

var scriptingCommands = map[string]bool{"eval": true, "evalsha": true, "eval_ro": true, "evalsha_ro": true,
	"fcall": true, "fcall_ro": true, "function": true, "script": true}

// aclCategories are the categories rules may name here.
var aclCategories = []string{"read", "write", "admin", "fast", "pubsub", "blocking", "scripting"}

func inCategory(info *commands.Command, cat string) bool {
	name, _, _ := strings.Cut(info.Name, "|")
	switch cat {
	case "all":
		return true
	case "scripting":
		return scriptingCommands[name]
	case "read":
		return info.Flags.Has(commands.Readonly)
	case "write":
		return info.Flags.Has(commands.Write)
	case "admin":
		return info.Flags.Has(commands.Admin)
	case "fast":
		return info.Flags.Has(commands.Fast)
	case "pubsub":
		return info.Flags.Has(commands.PubSub)
	case "blocking":
		return info.Flags.Has(commands.Blocking)
	}
	return false
}

func (u *aclUser) canRun(info *commands.Command) bool {
	ok := false
	parent, _, _ := strings.Cut(info.Name, "|")
	for _, r := range u.rules {
		switch {
		case strings.HasPrefix(r.selector, "@"):
			if inCategory(info, r.selector[1:]) {
				ok = r.allow
			}
		case r.selector == info.Name || r.selector == parent:
			ok = r.allow
		}
	}
	return ok
}

func (u *aclUser) canAccess(key string) bool {
	for _, p := range u.keys {
		if re := patternRE(p); re != nil && re.MatchString(key) {
			return true
		}
	}
	return false
}

// ACLDenial says why the connection's user may not run argv, in Redis's
// terms ("" when it may): "cmd" or "key". The default user may run
// everything. The caller holds the lock.
func (m *Miniredis) ACLDenial(c *server.Peer, argv []string) string {
	u := m.admin.users[getCtx(c).user]
	if u == nil || len(argv) == 0 {
		return ""
	}
	info := commands.Find(argv)
	if info == nil || info.Flags.Has(commands.NoAuth) {
		// AUTH, HELLO and the like are every user's.
		return ""
	}
	if !u.canRun(info) {
		return "cmd"
	}
	idx, _ := info.Keys(argv)
	for _, i := range idx {
		if !u.canAccess(argv[i]) {
			return "key"
		}
	}
	return ""
}

func commandsACL(m *Miniredis) {
	m.srv.Register("ACL", m.cmdACL)
}

// ACL
func (m *Miniredis) cmdACL(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(1)) {
		return
	}
	sub := strings.ToLower(args[0])
	rest := args[1:]
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		if m.admin.users == nil {
			m.admin.users = map[string]*aclUser{}
		}
		switch {
		case sub == "setuser" && len(rest) >= 1:
			m.aclSetUser(c, rest[0], rest[1:])
		case sub == "deluser" && len(rest) >= 1:
			n := 0
			for _, name := range rest {
				if name == "default" {
					c.WriteError("ERR The 'default' user cannot be removed")
					return
				}
			}
			for _, name := range rest {
				if _, ok := m.admin.users[name]; ok {
					delete(m.admin.users, name)
					n++
				}
			}
			c.WriteInt(n)
		case sub == "whoami" && len(rest) == 0:
			name := ctx.user
			if name == "" {
				name = "default"
			}
			c.WriteBulk(name)
		case sub == "users" && len(rest) == 0:
			c.WriteStrings(m.aclUserNames())
		case sub == "list" && len(rest) == 0:
			var out []string
			for _, name := range m.aclUserNames() {
				out = append(out, m.aclDescribe(name))
			}
			c.WriteStrings(out)
		case sub == "cat" && len(rest) == 0:
			c.WriteStrings(aclCategories)
		case sub == "cat" && len(rest) == 1:
			cat := strings.ToLower(rest[0])
			if !aclContains(aclCategories, cat) {
				c.WriteError(fmt.Sprintf("ERR Unknown category '%s'", rest[0]))
				return
			}
			var names []string
			for _, info := range commands.All() {
				if !strings.Contains(info.Name, "|") && inCategory(&info, cat) {
					names = append(names, info.Name)
				}
			}
			c.WriteStrings(names)
		case sub == "dryrun" && len(rest) >= 2:
			u, ok := m.admin.users[rest[0]]
			if !ok && rest[0] != "default" {
				c.WriteError(fmt.Sprintf("ERR User '%s' not found", rest[0]))
				return
			}
			info := commands.Find(rest[1:])
			if info == nil {
				c.WriteError(fmt.Sprintf("ERR Command '%s' not found", rest[1]))
				return
			}
			if ok && !u.canRun(info) {
				c.WriteBulk(fmt.Sprintf("This user has no permissions to run the '%s' command", info.Name))
				return
			}
			c.WriteOK()
		default:
			c.WriteError(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%s'. Try ACL HELP.", args[0]))
		}
	})
}

func aclContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (m *Miniredis) aclUserNames() []string {
	names := []string{"default"}
	for n := range m.admin.users {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// aclDescribe is a user as ACL LIST shows it.
func (m *Miniredis) aclDescribe(name string) string {
	u, ok := m.admin.users[name]
	if !ok {
		return "user default on nopass ~* &* +@all"
	}
	parts := []string{"user", u.name, map[bool]string{true: "on", false: "off"}[u.on]}
	if u.nopass {
		parts = append(parts, "nopass")
	}
	for _, p := range u.passwords {
		parts = append(parts, "#"+sha256Hex(p))
	}
	for _, k := range u.keys {
		parts = append(parts, "~"+k)
	}
	parts = append(parts, "resetchannels")
	if len(u.rules) == 0 {
		parts = append(parts, "-@all")
	}
	for _, r := range u.rules {
		parts = append(parts, map[bool]string{true: "+", false: "-"}[r.allow]+r.selector)
	}
	return strings.Join(parts, " ")
}

func (m *Miniredis) aclSetUser(c *server.Peer, name string, rules []string) {
	u := &aclUser{name: name}
	if old, ok := m.admin.users[name]; ok {
		cp := *old
		cp.passwords = append([]string(nil), old.passwords...)
		cp.rules = append([]aclRule(nil), old.rules...)
		cp.keys = append([]string(nil), old.keys...)
		u = &cp
	}
	for _, r := range rules {
		if msg := u.apply(r); msg != "" {
			c.WriteError(fmt.Sprintf("ERR Error in ACL SETUSER modifier '%s': %s", r, msg))
			return
		}
	}
	m.admin.users[name] = u
	c.WriteOK()
}

// apply is ACLSetUser for one rule; the error's text for one it refuses.
func (u *aclUser) apply(r string) string {
	lr := strings.ToLower(r)
	switch {
	case lr == "on":
		u.on = true
	case lr == "off":
		u.on = false
	case lr == "nopass":
		u.nopass, u.passwords = true, nil
	case lr == "resetpass":
		u.nopass, u.passwords = false, nil
	case strings.HasPrefix(r, ">"):
		u.nopass = false
		if !aclContains(u.passwords, r[1:]) {
			u.passwords = append(u.passwords, r[1:])
		}
	case strings.HasPrefix(r, "<"):
		for i, p := range u.passwords {
			if p == r[1:] {
				u.passwords = append(u.passwords[:i], u.passwords[i+1:]...)
				break
			}
		}
	case lr == "allkeys":
		u.keys = []string{"*"}
	case lr == "resetkeys":
		u.keys = nil
	case strings.HasPrefix(r, "~"):
		u.keys = append(u.keys, r[1:])
	case strings.HasPrefix(lr, "%r~"), strings.HasPrefix(lr, "%w~"):
		u.keys = append(u.keys, r[3:])
	case strings.HasPrefix(lr, "%rw~"):
		u.keys = append(u.keys, r[4:])
	case lr == "allchannels", lr == "resetchannels", strings.HasPrefix(r, "&"):
		// Channels are not enforced.
	case lr == "allcommands":
		u.rules = append(u.rules, aclRule{true, "@all"})
	case lr == "nocommands":
		u.rules = append(u.rules, aclRule{false, "@all"})
	case lr == "reset":
		*u = aclUser{name: u.name}
	case strings.HasPrefix(r, "+@"), strings.HasPrefix(r, "-@"):
		cat := strings.ToLower(r[2:])
		if cat != "all" && !aclContains(aclCategories, cat) {
			return msgACLUnknownName
		}
		u.rules = append(u.rules, aclRule{r[0] == '+', "@" + cat})
	case strings.HasPrefix(r, "+"), strings.HasPrefix(r, "-"):
		name := strings.ToLower(r[1:])
		if commands.Lookup(name) == nil {
			return msgACLUnknownName
		}
		u.rules = append(u.rules, aclRule{r[0] == '+', name})
	default:
		return "Syntax error"
	}
	return ""
}

const msgACLUnknownName = "Unknown command or category name in ACL"

// aclAuth is AUTH for a user ACL SETUSER made: whether it handled the
// name, and whether the password is one of the user's.
func (m *Miniredis) aclAuth(ctx *connCtx, name, password string) (known, ok bool) {
	u, known := m.admin.users[name]
	if !known {
		return false, false
	}
	if !u.on || !u.nopass && !aclContains(u.passwords, password) {
		return true, false
	}
	ctx.user = name
	ctx.authenticated = true
	return true, true
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// PeerUser is the ACL user a connection authenticated as, "" for the
// default user; read by the connection's own goroutine.
func PeerUser(c *server.Peer) string { return getCtx(c).user }

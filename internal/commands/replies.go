package commands

import (
	_ "embed"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// replies.resp holds, for every command and subcommand of the table, what
// redis-server 7.0.15 answers a RESP3 connection to COMMAND INFO name and
// COMMAND DOCS name: one RESP3 array [name, info entry, docs name, docs
// entry] a command, sorted by name. TestReplies writes it (-update) and
// holds it to the installed server. Kept as the server's bytes, so that
// COMMAND's replies carry every field (ACL categories, tips, the whole
// argument grammar) without a Go type for each.
//
//go:embed replies.resp
var repliesRaw string

type reply struct{ info, docs string } // docs: the name and its map value

var (
	repliesOnce   sync.Once
	repliesByName map[string]reply
	topLevel      []string // sorted names of commands that are no subcommand
)

func loadReplies() {
	repliesByName = map[string]reply{}
	b := repliesRaw
	for len(b) > 0 {
		n := valueLen(b)
		if n <= 0 {
			panic("commands: replies.resp is damaged; regenerate it with TestReplies -update")
		}
		rec := elements(b[:n])
		name, _ := bulk(rec[0])
		repliesByName[name] = reply{info: rec[1], docs: rec[2] + rec[3]}
		if !strings.Contains(name, "|") {
			topLevel = append(topLevel, name)
		}
		b = b[n:]
	}
	sort.Strings(topLevel)
}

// InfoReply is COMMAND INFO's entry for a command ("get", "config|get", any
// case) as redis-server 7.0.15 sends it, in RESP3 or RESP2, and false for a
// name it does not know.
func InfoReply(name string, resp3 bool) (string, bool) {
	return lookupReply(name, resp3, func(r reply) string { return r.info })
}

// DocsReply is COMMAND DOCS's name and entry for a command, the two
// elements of its map, as InfoReply gives COMMAND INFO's.
func DocsReply(name string, resp3 bool) (string, bool) {
	return lookupReply(name, resp3, func(r reply) string { return r.docs })
}

func lookupReply(name string, resp3 bool, part func(reply) string) (string, bool) {
	repliesOnce.Do(loadReplies)
	r, ok := repliesByName[strings.ToLower(name)]
	if !ok {
		return "", false
	}
	return convert(part(r), resp3), true
}

// Categories are the ACL categories of a command ("get", "config|get", any
// case) as COMMAND INFO gives them ("@read", "@fast"), its own only: a
// container's entry lists its subcommands' too, further in.
func Categories(name string) []string {
	info, ok := InfoReply(name, true)
	if !ok {
		return nil
	}
	var cats []string
	if fields := elements(info); len(fields) > 6 {
		for _, c := range elements(fields[6]) {
			if s, ok := bulk(c); ok {
				cats = append(cats, s)
			}
		}
	}
	return cats
}

// TopLevel lists the commands that are nobody's subcommand, sorted: the
// names COMMAND, COMMAND DOCS and COMMAND LIST answer for.
func TopLevel() []string {
	repliesOnce.Do(loadReplies)
	return topLevel
}

// convert turns RESP3 into what Redis sends a RESP2 connection: a map is
// a flat array of its keys and values, a set an array.
func convert(v string, resp3 bool) string {
	if resp3 || !strings.ContainsAny(v, "%~") {
		return v
	}
	var b strings.Builder
	b.Grow(len(v))
	for len(v) > 0 {
		line, rest, _ := strings.Cut(v, "\r\n")
		switch line[0] {
		case '%':
			n, _ := strconv.Atoi(line[1:])
			b.WriteString("*" + strconv.Itoa(2*n) + "\r\n")
		case '~':
			b.WriteString("*" + line[1:] + "\r\n")
		case '$':
			n, _ := strconv.Atoi(line[1:])
			b.WriteString(v[:len(line)+2+n+2])
			v = v[len(line)+2+n+2:]
			continue
		default:
			b.WriteString(line + "\r\n")
		}
		v = rest
	}
	return b.String()
}

// valueLen is the length of the RESP3 value b starts with, or 0 when b
// holds no whole value.
func valueLen(b string) int {
	line, _, ok := strings.Cut(b, "\r\n")
	if !ok || line == "" {
		return 0
	}
	head := len(line) + 2
	n, err := strconv.Atoi(line[1:])
	switch line[0] {
	case '+', '-', ':', ',', '_', '#', '(':
		return head
	case '$', '=', '!':
		if err != nil || head+n+2 > len(b) {
			return 0
		}
		return head + n + 2
	case '%':
		n *= 2
		fallthrough
	case '*', '~', '>':
		if err != nil {
			return 0
		}
		at := head
		for range n {
			m := valueLen(b[at:])
			if m == 0 {
				return 0
			}
			at += m
		}
		return at
	}
	return 0
}

// elements splits an aggregate into its elements' RESP text.
func elements(v string) []string {
	line, rest, _ := strings.Cut(v, "\r\n")
	n, _ := strconv.Atoi(line[1:])
	if line[0] == '%' {
		n *= 2
	}
	out := make([]string, 0, n)
	for range n {
		m := valueLen(rest)
		out = append(out, rest[:m])
		rest = rest[m:]
	}
	return out
}

// bulk reads a bulk or simple string.
func bulk(v string) (string, bool) {
	line, rest, _ := strings.Cut(v, "\r\n")
	switch line[0] {
	case '+':
		return line[1:], true
	case '$':
		n, _ := strconv.Atoi(line[1:])
		return rest[:n], true
	}
	return "", false
}

package peers

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/gen/bundle"
	"github.com/scriptgen/scriptgen/internal/script"
	"github.com/scriptgen/scriptgen/transactional/prelude"
)

// proxy is a RESP proxy on a free loopback port in front of a target
// server: it forwards every command as the client sent it, except that the
// scripts go through as their transactional bundles (ship). The client
// never sees a bundle's SHA-1: EVALSHA and SCRIPT EXISTS of a text it has
// seen are mapped to the bundle's, SCRIPT LOAD answers with the text's own
// SHA-1, and the SHA-1 that Redis quotes in a script's error is mapped
// back.
//
// Replies are copied frame by frame and never matched to the commands
// they answer, so pipelining, RESP3 push frames, subscribe mode,
// MULTI/EXEC, blocking commands and QUIT need nothing of their own: the
// one reply that must differ, SCRIPT LOAD's, is made by Redis itself,
// because the proxy loads the bundle on a connection of its own first and
// forwards ECHO of the text's SHA-1 in the command's place (in a MULTI the
// bundle is thus loaded when queued rather than at EXEC: loading is
// idempotent and a cache; in RESP2 subscribe mode, where Redis refuses
// both, its error names ECHO). A load that fails is forwarded as it is,
// with the bundle, so that its error arrives in order.
//
// Left as they are: FUNCTION and FCALL (a library is not a script text the
// bundler ships as EVAL), inline commands (a script text cannot be written
// inline without quotes; Redis parses them), and EVALSHA of a SHA-1 the
// proxy has not seen: Redis answers NOSCRIPT and the client sends the text,
// as it would on Redis.
type proxy struct {
	target string
	rec    recorder
	ln     net.Listener
	ships  *shipments

	mu     sync.Mutex
	conns  map[net.Conn]bool
	closed bool
	wg     sync.WaitGroup
}

// startProxy listens on a free loopback port in front of target until the
// test ends; rec is given every script call forwarded.
func startProxy(t testing.TB, target string, rec recorder) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{target: target, rec: rec, ln: ln, ships: newShipments(), conns: map[net.Conn]bool{}}
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

// close stops listening, drops every connection and waits for their
// goroutines; it may be called more than once.
func (p *proxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Go(func() { p.serve(c) })
	}
}

// track registers cs for close, or closes them when the proxy is closing.
func (p *proxy) track(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		if p.closed {
			_ = c.Close()
		}
		p.conns[c] = true
	}
}

func (p *proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		_ = c.Close()
		delete(p.conns, c)
	}
}

// serve carries one client connection over a connection of its own to the
// target, so that the connection's state (database, protocol, MULTI,
// subscriptions, CLIENT ID) is the target's own.
func (p *proxy) serve(client net.Conn) {
	up, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		_ = client.Close()
		return
	}
	p.track(client, up)
	defer p.untrack(client, up)
	p.wg.Go(func() {
		_ = p.replies(bufio.NewWriter(client), bufio.NewReader(up))
		p.untrack(client, up)
	})
	in := bufio.NewReader(client)
	out := bufio.NewWriter(up)
	db := 0
	for {
		raw, args, err := readRequest(in)
		if err != nil {
			return
		}
		if args != nil {
			args, db = p.rewrite(args, db, out)
			raw = encodeRequest(args)
		}
		if _, err := out.Write(raw); err != nil {
			return
		}
		if in.Buffered() == 0 && out.Flush() != nil {
			return
		}
	}
}

// rewrite swaps the script text of a command for its bundle and gives the
// recorder the call; db is the connection's database, before and after.
// out is flushed before the recorder looks at the target, so that what the
// client pipelined before the call has at least been sent.
func (p *proxy) rewrite(args []string, db int, out *bufio.Writer) ([]string, int) {
	name := strings.ToUpper(args[0])
	switch {
	case (name == "EVAL" || name == "EVAL_RO") && len(args) >= 3:
		s := p.ships.ship(args[1])
		p.record(s, args, db, out)
		return with(args, 1, s.text), db
	case (name == "EVALSHA" || name == "EVALSHA_RO") && len(args) >= 3:
		if s := p.ships.seen(args[1]); s != nil {
			p.record(s, args, db, out)
			return with(args, 1, s.sha), db
		}
	case name == "SCRIPT" && len(args) == 3 && strings.EqualFold(args[1], "LOAD"):
		s := p.ships.ship(args[2])
		if p.load(s.text) == nil {
			return []string{"ECHO", s.src.sha}, db
		}
		return with(args, 2, s.text), db
	case name == "SCRIPT" && len(args) >= 2 && strings.EqualFold(args[1], "EXISTS"):
		mapped := append([]string(nil), args...)
		for i := 2; i < len(mapped); i++ {
			if s := p.ships.seen(mapped[i]); s != nil {
				mapped[i] = s.sha
			}
		}
		return mapped, db
	case name == "SELECT" && len(args) == 2:
		if n, err := strconv.Atoi(args[1]); err == nil && n >= 0 {
			return args, n
		}
	case name == "RESET":
		return args, 0
	}
	return args, db
}

// with is args with args[i] replaced.
func with(args []string, i int, v string) []string {
	out := append([]string(nil), args...)
	out[i] = v
	return out
}

// record hands the recorder a script call whose key count is valid (Redis
// refuses the others before running anything).
func (p *proxy) record(s *shipment, args []string, db int, out *bufio.Writer) {
	p.ships.called(s)
	nk, err := strconv.Atoi(args[2])
	if p.rec == nil || err != nil || nk < 0 || 3+nk > len(args) {
		return
	}
	_ = out.Flush()
	p.rec.record(p.target, scriptCall{Src: s.src.text, Keys: args[3 : 3+nk], Args: args[3+nk:], DB: db})
}

// load runs SCRIPT LOAD of text on a connection of its own.
func (p *proxy) load(text string) error {
	c, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write(encodeRequest([]string{"SCRIPT", "LOAD", text})); err != nil {
		return err
	}
	var reply bytes.Buffer
	w := bufio.NewWriter(&reply)
	if err := copyFrame(w, bufio.NewReader(c), nil); err != nil {
		return err
	}
	_ = w.Flush()
	if !bytes.HasPrefix(reply.Bytes(), []byte("$40\r\n")) {
		return errors.New(strings.TrimSpace(reply.String()))
	}
	return nil
}

// replies copies the target's replies to the client, frame by frame,
// flushing when no more have arrived.
func (p *proxy) replies(w *bufio.Writer, r *bufio.Reader) error {
	for {
		if err := copyFrame(w, r, p.ships.unship); err != nil {
			_ = w.Flush()
			return err
		}
		if r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
}

// copyFrame copies one RESP2 or RESP3 frame, nested ones included, passing
// the text of each error (simple or blob) through fix when it is not nil.
func copyFrame(w *bufio.Writer, r *bufio.Reader, fix func(string) string) error {
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return fmt.Errorf("protocol error: %q", line)
	}
	if line[0] == '-' && fix != nil {
		line = fix(line)
	}
	if _, err := w.WriteString(line); err != nil {
		return err
	}
	n, _ := strconv.Atoi(line[1 : len(line)-2])
	switch line[0] {
	case '$', '!', '=': // bulk, blob error, verbatim
		if n < 0 {
			return nil
		}
		body := make([]byte, n+2)
		if _, err := io.ReadFull(r, body); err != nil {
			return err
		}
		if line[0] == '!' && fix != nil {
			// The length line is written already: a fix must keep the
			// length, which a SHA-1 for a SHA-1 does.
			body = []byte(fix(string(body)))
		}
		_, err = w.Write(body)
		return err
	case '*', '>', '~': // array, push, set
	case '%': // map
		n *= 2
	case '|': // attributes, then the reply they describe
		n = n*2 + 1
	default:
		return nil
	}
	for range n {
		if err := copyFrame(w, r, fix); err != nil {
			return err
		}
	}
	return nil
}

// readRequest reads one command: a multibulk array (its raw bytes and its
// arguments) or an inline line (its raw bytes, args nil).
func readRequest(r *bufio.Reader) (raw []byte, args []string, err error) {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil, nil, err
	}
	if line[0] != '*' {
		return line, nil, nil
	}
	n, err := strconv.Atoi(strings.TrimRight(string(line[1:]), "\r\n"))
	if err != nil || n < 1 {
		return line, nil, nil // Redis answers the protocol error itself
	}
	args = make([]string, 0, n)
	for range n {
		head, err := r.ReadString('\n')
		if err != nil {
			return nil, nil, err
		}
		head = strings.TrimRight(head, "\r\n")
		if !strings.HasPrefix(head, "$") {
			return nil, nil, fmt.Errorf("protocol error: expected '$', got %q", head)
		}
		size, err := strconv.Atoi(head[1:])
		if err != nil || size < 0 {
			return nil, nil, fmt.Errorf("protocol error: bulk length %q", head)
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, nil, err
		}
		args = append(args, string(b[:size]))
	}
	return nil, args, nil
}

func encodeRequest(args []string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.Bytes()
}

// sha1RE is a SHA-1 in hex, as Redis quotes a script's in its errors.
var sha1RE = regexp.MustCompile(`\b[0-9a-f]{40}\b`)

// text is a script's text with its SHA-1.
type text struct{ text, sha string }

func newText(s string) text {
	sum := sha1.Sum([]byte(s))
	return text{s, hex.EncodeToString(sum[:])}
}

// How a text is shipped: what the bundler made of it.
const (
	shipRuntime   = "runtime"   // wrapped in the prelude's runtime journal
	shipInline    = "inline"    // only the inline journal of hash fields
	shipUnwrapped = "unwrapped" // every write proven final: the text as it is
	shipFailed    = "failed"    // not bundled: forwarded as it is
)

// shipment is one script text and its bundle.
type shipment struct {
	src   text
	text  string // what Redis runs: the bundle, or src when it failed
	sha   string // text's SHA-1
	kind  string
	why   string // shipFailed's reason
	calls int    // script calls forwarded
}

// shipments are the texts a proxy has seen, by their own SHA-1, and the
// bundles' SHA-1s back to the texts' for the replies.
type shipments struct {
	mu     sync.Mutex
	bySrc  map[string]*shipment
	byShip map[string]string
}

func newShipments() *shipments {
	return &shipments{bySrc: map[string]*shipment{}, byShip: map[string]string{}}
}

// ship returns src's shipment, bundling it the first time.
func (m *shipments) ship(src string) *shipment {
	t := newText(src)
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.bySrc[t.sha]; ok {
		return s
	}
	s := shipTransactional(t)
	m.bySrc[t.sha] = s
	if s.sha != t.sha {
		m.byShip[s.sha] = t.sha
	}
	return s
}

// seen is the shipment of the text whose SHA-1 is sha, nil if none.
func (m *shipments) seen(sha string) *shipment {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bySrc[strings.ToLower(sha)]
}

func (m *shipments) called(s *shipment) {
	m.mu.Lock()
	s.calls++
	m.mu.Unlock()
}

// unship maps the bundles' SHA-1s in an error text back to the texts'.
func (m *shipments) unship(line string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return sha1RE.ReplaceAllStringFunc(line, func(sha string) string {
		if src, ok := m.byShip[sha]; ok {
			return src
		}
		return sha
	})
}

// all is every shipment, in no order.
func (m *shipments) all() []shipment {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]shipment, 0, len(m.bySrc))
	for _, s := range m.bySrc {
		out = append(out, *s)
	}
	return out
}

// shipTransactional bundles a foreign script as `scriptgen bundle` ships
// it flagged `--! flags: transactional`: read by the one front end (a
// script without a header gets the contract its body implies), the flag
// added, and the EVAL text taken from the bundler itself. Lint is not run:
// the key rules would refuse most foreign scripts, and the bundle does not
// depend on its findings. A text the bundler cannot take (a parse error, an
// include it cannot resolve, a panic) is forwarded as it is and counted.
func shipTransactional(src text) (s *shipment) {
	s = &shipment{src: src, text: src.text, sha: src.sha, kind: shipFailed}
	defer func() {
		if r := recover(); r != nil {
			s.text, s.sha, s.kind, s.why = src.text, src.sha, shipFailed, fmt.Sprint("panic: ", r)
		}
	}()
	path := "peers/script_" + src.sha[:12] + ".lua"
	ld := script.NewLoader(func(p string) ([]byte, error) {
		if p == path {
			return []byte(src.text), nil
		}
		return nil, fs.ErrNotExist
	})
	sc, errs, err := ld.Parse(path)
	if err == nil {
		err = errs
	}
	if err == nil {
		_, err = sc.Chunk()
	}
	if err != nil {
		s.why = oneLine(err.Error())
		return s
	}
	if !sc.Has(script.Transactional) {
		sc.Flags = append(sc.Flags, script.Transactional)
	}
	libs, err := bundle.Libraries([]*script.Script{sc})
	if err != nil {
		s.why = oneLine(err.Error())
		return s
	}
	lib := libs[0]
	shipped, err := lib.EvalSource(sc)
	if err != nil {
		s.why = oneLine(err.Error())
		return s
	}
	// What EvalSource wrapped the code in, from the call it made.
	_, code, _ := lib.EvalCode(sc)
	switch parts := prelude.ShipParts(code); {
	case parts.Runtime:
		s.kind = shipRuntime
	case parts.Head+parts.Rest == code:
		s.kind = shipUnwrapped
	default:
		s.kind = shipInline
	}
	s.text, s.sha = shipped, newText(shipped).sha
	return s
}

func oneLine(s string) string { return clip(strings.Join(strings.Fields(s), " ")) }

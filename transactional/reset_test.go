package transactional

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// helloID is the connection id in HELLO's reply, which differs between
// servers and connections.
var helloID = regexp.MustCompile(`\$2\r\nid\r\n:\d+\r\n`)

// TestResetAsRedis sends RESET after each piece of state a connection can
// hold, to serve and to a real redis-server: what follows must be answered
// as on a new connection, alike. Before RESET was served, each case got
// "ERR unknown command 'RESET'" and kept its state.
func TestResetAsRedis(t *testing.T) {
	rs := redistest.Start(t)
	if err := rs.Client(t).ConfigSet(context.Background(), "requirepass", "pw").Err(); err != nil {
		t.Fatal(err)
	}
	_, addr := listen(t, Limits{}, WithPassword("pw"))
	for _, c := range []string{
		// name and db
		"AUTH pw\r\nCLIENT SETNAME x\r\nSELECT 3\r\nSET k v\r\nRESET\r\nAUTH pw\r\nCLIENT GETNAME\r\nGET k\r\nSELECT 3\r\nGET k\r\n",
		// MULTI runs RESET at once and is gone
		"AUTH pw\r\nMULTI\r\nSET a 1\r\nRESET\r\nAUTH pw\r\nEXEC\r\nGET a\r\n",
		// WATCH: a touched key no longer aborts the EXEC
		"AUTH pw\r\nWATCH w\r\nRESET\r\nAUTH pw\r\nSET w 1\r\nMULTI\r\nPING\r\nEXEC\r\n",
		// RESP3 back to RESP2
		"AUTH pw\r\nHSET h f v\r\nHELLO 3\r\nHGETALL h\r\nRESET\r\nAUTH pw\r\nHGETALL h\r\n",
		// subscriptions dropped
		"AUTH pw\r\nSUBSCRIBE c\r\nRESET\r\nAUTH pw\r\nPING\r\nGET a\r\n",
		// CLIENT REPLY OFF and SKIP: RESET's own reply is written
		"AUTH pw\r\nCLIENT REPLY OFF\r\nSET b 1\r\nRESET\r\nAUTH pw\r\nGET b\r\n",
		"AUTH pw\r\nCLIENT REPLY SKIP\r\nRESET\r\nPING\r\n",
		// authentication: RESET is allowed before AUTH and undoes it
		"RESET\r\nAUTH pw\r\nPING\r\nRESET\r\nPING\r\n",
		"AUTH pw\r\nRESET x\r\nPING\r\n",
	} {
		req := []byte(c + "QUIT\r\n")
		want := helloID.ReplaceAllString(exchange(t, rs.Addr, req, false), "id")
		got := helloID.ReplaceAllString(exchange(t, addr, req, false), "id")
		if got != want {
			t.Errorf("%q:\n serve %q\n redis %q", c, got, want)
		}
	}
}

// TestReplyOffConnectionsApart: two connections with CLIENT REPLY OFF
// write their discarded replies at the same time. They shared one
// discarding writer, a data race that go test -race reports here.
func TestReplyOffConnectionsApart(t *testing.T) {
	_, addr := listen(t, Limits{})
	req := "CLIENT REPLY OFF\r\n" + strings.Repeat("SET k v\r\nGET k\r\n", 500) + "CLIENT REPLY ON\r\nPING\r\nQUIT\r\n"
	var wg sync.WaitGroup
	got := make([]string, 4)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = exchange(t, addr, []byte(req), false)
		}()
	}
	wg.Wait()
	for i, g := range got {
		if g != "+OK\r\n+PONG\r\n+OK\r\n<EOF>" {
			t.Errorf("connection %d: %q", i, g)
		}
	}
}

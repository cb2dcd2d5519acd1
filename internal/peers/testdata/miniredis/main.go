// Command miniredis serves upstream miniredis (github.com/alicebob/miniredis/v2,
// pinned in this directory's own go.mod, never in scriptgen's) on a loopback
// port, as the third column of the peers table: the engine users would
// otherwise pick. It prints "listening on ADDR" and serves until signalled.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/alicebob/miniredis/v2"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	m := miniredis.NewMiniRedis()
	// Made for unit tests, miniredis expires keys only when told to
	// (FastForward); a server standing alone must follow the wall clock,
	// as Redis does (its README: "TTLs, key expiration, and time").
	m.ClockTTL(true)
	if err := m.StartAddr(*addr); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on %s\n", m.Addr())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	<-stop
	m.Close()
}

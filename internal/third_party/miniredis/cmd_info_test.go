package miniredis

import (
	"strings"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/proto"
)

// scriptgen: INFO answers in Redis 7.0.15's sections and framing (see
// README.md), so the expectations read fields from it where upstream's
// compared its two-section text whole.
func TestMiniredis_cmdInfo(t *testing.T) {
	field := func(t *testing.T, c *proto.Client, section, name string) string {
		t.Helper()
		args := []string{"INFO"}
		if section != "" {
			args = append(args, section)
		}
		raw, err := c.Do(args...)
		ok(t, err)
		s, err := proto.ReadString(raw)
		ok(t, err)
		for _, l := range strings.Split(s, "\r\n") {
			if v, found := strings.CutPrefix(l, name+":"); found {
				return v
			}
		}
		t.Fatalf("INFO %s has no %s:\n%s", section, name, s)
		return ""
	}

	t.Run("Invalid section name", func(t *testing.T) {
		_, c := runWithClient(t)
		mustDo(t, c,
			"INFO", "invalid_or_unsupported_section_name",
			proto.String(""),
		)
	})

	t.Run("No section name in args", func(t *testing.T) {
		_, c := runWithClient(t)
		equals(t, "7.0.15", field(t, c, "", "redis_version"))
		equals(t, "1", field(t, c, "", "connected_clients"))
	})

	t.Run("Success for clients section", func(t *testing.T) {
		s, c := runWithClient(t)
		equals(t, "1", field(t, c, "clients", "connected_clients"))

		c2, err := proto.Dial(s.Addr())
		ok(t, err)
		equals(t, "2", field(t, c2, "clients", "connected_clients"))
		c2.Close()

		time.Sleep(10 * time.Millisecond)

		c3, err := proto.Dial(s.Addr())
		ok(t, err)
		defer c3.Close()
		equals(t, "2", field(t, c3, "clients", "connected_clients"))
	})

	t.Run("Success for stats section", func(t *testing.T) {
		s, c := runWithClient(t)
		equals(t, "1", field(t, c, "stats", "total_connections_received"))
		equals(t, "2", field(t, c, "stats", "total_commands_processed"))

		c2, err := proto.Dial(s.Addr())
		ok(t, err)
		equals(t, "2", field(t, c2, "stats", "total_connections_received"))
		c2.Close()
	})

	t.Run("Keyspace", func(t *testing.T) {
		s, c := runWithClient(t)
		s.Set("a", "1")
		s.Set("b", "1")
		s.SetTTL("b", time.Minute)
		equals(t, "keys=2,expires=1,avg_ttl=0", field(t, c, "keyspace", "db0"))
	})
}

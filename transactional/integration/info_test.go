package integration

import (
	"regexp"
	"strings"
	"testing"
)

// TestInfo holds INFO to redis-server 7.0.15: the same sections in the same
// order for every form (none, default, all, everything, several, unknown,
// any case), the same fields in each section in the same order, the
// framing, and the values the engine has: redis_version, connected_clients
// and the keyspace line.
func TestInfo(t *testing.T) {
	real, tcp, _ := differentialTargets(t)
	shape := regexp.MustCompile(`(?m)^([a-z_0-9]+):.*$`)
	// Per-command and per-error statistics are not kept: their lines go.
	stats := regexp.MustCompile(`(?m)^(cmdstat_|errorstat_|latency_percentiles_usec_).*\r\n`)
	for _, tg := range []target{real, tcp} {
		tg.reset(t)
	}
	info := map[string]map[string]string{}
	for _, tg := range []target{real, tcp} {
		c := tg.open(t, false)
		c("SET", "a", "1")
		c("SET", "b", "2", "EX", "100")
		tg.open(t, false)("PING") // a second client
		got := map[string]string{}
		for _, args := range [][]string{{}, {"default"}, {"all"}, {"EVERYTHING"}, {"server", "Clients"}, {"nosuch"},
			{"server"}, {"clients"}, {"memory"}, {"persistence"}, {"stats"}, {"replication"}, {"cpu"}, {"modules"},
			{"errorstats"}, {"cluster"}, {"keyspace"}, {"keyspace", "nosuch", "cluster"}} {
			r := string(c(append([]string{"INFO"}, args...)...))
			key := strings.Join(args, " ")
			got[key] = shape.ReplaceAllString(stats.ReplaceAllString(r, ""), "$1:")
			got[key+" values"] = r
		}
		info[tg.name] = got
	}
	want, have := info["redis"], info["engine-tcp"]
	for k, w := range want {
		if strings.HasSuffix(k, " values") {
			continue
		}
		// Bulk lengths differ with the values; compare what follows.
		_, w, _ = strings.Cut(w, "\r\n")
		_, g, _ := strings.Cut(have[k], "\r\n")
		if w != g {
			t.Errorf("INFO %s: fields differ\nredis:\n%s\nengine:\n%s", k, w, g)
		}
	}
	for _, line := range []string{"redis_version:7.0.15\r\n", "db0:keys=2,expires=1,avg_ttl="} {
		for name, got := range info {
			if !strings.Contains(got[" values"], line) {
				t.Errorf("%s: INFO has no %q", name, line)
			}
		}
	}
	clients := regexp.MustCompile(`connected_clients:\d+`)
	if w, g := clients.FindString(want[" values"]), clients.FindString(have[" values"]); w != g || w == "" {
		t.Errorf("redis: %s, engine: %s", w, g)
	}
}

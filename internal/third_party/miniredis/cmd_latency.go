package miniredis

import (
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// scriptgen: LATENCY, which upstream does not serve, as redis-server 7.0.15
// answers it with latency monitoring off (latency-monitor-threshold 0, its
// default): no events, nothing to reset, the doctor's refusal. Clients
// and dashboards send it; an unknown command broke them.

var latencyHelp = []string{
	"LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DOCTOR",
	"    Return a human readable latency analysis report.",
	"GRAPH <event>",
	"    Return an ASCII latency graph for the <event> class.",
	"HISTORY <event>",
	"    Return time-latency samples for the <event> class.",
	"LATEST",
	"    Return the latest latency samples for all events.",
	"RESET [<event> ...]",
	"    Reset latency data of one or more <event> classes.",
	"    (default: reset all data for all event classes)",
	"HISTOGRAM [COMMAND ...]",
	"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
	"    If no commands are specified then all histograms are replied.",
	"HELP",
	"    Prints this help.",
}

const latencyDoctorOff = `I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use "CONFIG SET latency-monitor-threshold <milliseconds>." in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.` + "\n"

func commandsLatency(m *Miniredis) {
	m.srv.Register("LATENCY", m.cmdLatency)
}

// LATENCY
func (m *Miniredis) cmdLatency(c *server.Peer, cmd string, args []string) {
	if len(args) == 0 {
		setDirty(c)
		c.WriteError(errWrongNumber(cmd))
		return
	}
	if !subcommandOK(c, cmd, args) {
		return
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		switch strings.ToLower(args[0]) {
		case "latest", "history":
			c.WriteLen(0)
		case "reset":
			c.WriteInt(0)
		case "doctor":
			writeVerbatim(c, latencyDoctorOff)
		case "graph":
			c.WriteError("ERR No samples available for event '" + args[1] + "'")
		case "histogram":
			c.WriteMapLen(0)
		default: // help
			c.WriteLen(len(latencyHelp))
			for _, l := range latencyHelp {
				c.WriteInline(l)
			}
		}
	})
}

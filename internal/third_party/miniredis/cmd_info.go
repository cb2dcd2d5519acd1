package miniredis

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/scriptgen/scriptgen/internal/commands"
	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

// scriptgen: INFO speaks Redis 7.0.15's sections, with its field names and
// framing ("# Server\r\n", fields, a blank line between sections), where
// upstream sent two sections of its own and no redis_version, which BullMQ
// reads to choose its blocking timeouts. Values are real where the engine
// has them (clients, commands, keyspace, uptime, memory as an estimate);
// the rest are what an idle redis-server without persistence reports.

// infoSections are INFO's sections in Redis 7.0's order; def marks the
// ones INFO and INFO default give, all the ones INFO all adds.
var infoSections = []struct {
	name string
	def  bool
}{
	{"server", true}, {"clients", true}, {"memory", true}, {"persistence", true}, {"stats", true},
	{"replication", true}, {"cpu", true}, {"modules", true}, {"commandstats", false}, {"errorstats", true},
	{"latencystats", false}, {"cluster", true}, {"keyspace", true},
}

// runID is this process's run_id: Redis draws 40 hex digits at start.
var runID = func() string {
	const hex = "0123456789abcdef"
	var b [40]byte
	seed := uint64(time.Now().UnixNano())
	for i := range b {
		seed = seed*6364136223846793005 + 1442695040888963407
		b[i] = hex[seed>>60]
	}
	return string(b[:])
}()

// Command 'INFO' from https://redis.io/commands/info/
func (m *Miniredis) cmdInfo(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(0)) {
		return
	}
	want := map[string]bool{}
	if len(args) == 0 {
		args = []string{"default"}
	}
	for _, a := range args {
		switch a = strings.ToLower(a); a {
		case "default", "all", "everything":
			for _, s := range infoSections {
				if s.def || a != "default" {
					want[s.name] = true
				}
			}
		default:
			want[a] = true
		}
	}
	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		var b strings.Builder
		for _, s := range infoSections {
			if !want[s.name] {
				continue
			}
			if b.Len() > 0 {
				b.WriteString("\r\n")
			}
			title := strings.ToUpper(s.name[:1]) + s.name[1:]
			if s.name == "cpu" {
				title = "CPU"
			}
			b.WriteString("# " + title + "\r\n")
			m.infoSection(&b, s.name)
		}
		writeVerbatim(c, b.String())
	})
}

// infoSection writes one section's fields; the caller holds the lock.
func (m *Miniredis) infoSection(b *strings.Builder, name string) {
	field := func(k string, v any) {
		b.WriteString(k)
		b.WriteByte(':')
		switch v := v.(type) {
		case int:
			b.WriteString(strconv.Itoa(v))
		case int64:
			b.WriteString(strconv.FormatInt(v, 10))
		case string:
			b.WriteString(v)
		}
		b.WriteString("\r\n")
	}
	srv := m.srv
	switch name {
	case "server":
		up := time.Since(m.started)
		port := 0
		if a := srv.Addr(); a != nil {
			port = a.Port
		}
		exe, _ := os.Executable()
		for _, f := range []struct {
			k string
			v any
		}{
			{"redis_version", commands.ServerVersion}, {"redis_git_sha1", "00000000"}, {"redis_git_dirty", 0},
			{"redis_build_id", "0"}, {"redis_mode", "standalone"}, {"os", runtime.GOOS + " " + runtime.GOARCH},
			{"arch_bits", strconv.Itoa(32 << (^uint(0) >> 63))}, {"monotonic_clock", "POSIX clock_gettime"},
			{"multiplexing_api", "epoll"}, {"atomicvar_api", "c11-builtin"}, {"gcc_version", "0.0.0"},
			{"process_id", os.Getpid()}, {"process_supervised", "no"}, {"run_id", runID}, {"tcp_port", port},
			{"server_time_usec", time.Now().UnixMicro()}, {"uptime_in_seconds", int64(up / time.Second)},
			{"uptime_in_days", int64(up / (24 * time.Hour))}, {"hz", 10}, {"configured_hz", 10},
			{"lru_clock", int64(time.Now().Unix() & (1<<24 - 1))}, {"executable", exe}, {"config_file", ""},
			{"io_threads_active", 0},
		} {
			field(f.k, f.v)
		}
	case "clients":
		field("connected_clients", srv.ClientsLen())
		field("cluster_connections", 0)
		field("maxclients", 10000)
		field("client_recent_max_input_buffer", 0)
		field("client_recent_max_output_buffer", 0)
		field("blocked_clients", m.blockedClients())
		field("tracking_clients", 0)
		field("clients_in_timeout_table", 0)
	case "memory":
		used := int(m.UsedMemory())
		field("used_memory", used)
		field("used_memory_human", bytesHuman(used))
		field("used_memory_rss", used)
		field("used_memory_rss_human", bytesHuman(used))
		field("used_memory_peak", used)
		field("used_memory_peak_human", bytesHuman(used))
		field("used_memory_peak_perc", "100.00%")
		field("used_memory_overhead", 0)
		field("used_memory_startup", 0)
		field("used_memory_dataset", used)
		field("used_memory_dataset_perc", "100.00%")
		for _, k := range []string{"allocator_allocated", "allocator_active", "allocator_resident"} {
			field(k, used)
		}
		field("total_system_memory", 0)
		field("total_system_memory_human", "0B")
		for _, k := range []string{"used_memory_lua", "used_memory_vm_eval"} {
			field(k, 0)
		}
		field("used_memory_lua_human", "0B")
		field("used_memory_scripts_eval", 0)
		cached := 0
		if m.cachedScripts != nil {
			cached = m.cachedScripts()
		}
		field("number_of_cached_scripts", cached)
		for _, k := range []string{"number_of_functions",
			"number_of_libraries", "used_memory_vm_functions", "used_memory_vm_total"} {
			field(k, 0)
		}
		field("used_memory_vm_total_human", "0B")
		field("used_memory_functions", 0)
		field("used_memory_scripts", 0)
		field("used_memory_scripts_human", "0B")
		field("maxmemory", 0)
		field("maxmemory_human", "0B")
		field("maxmemory_policy", "noeviction")
		for _, k := range []string{"allocator_frag_ratio", "allocator_rss_ratio", "rss_overhead_ratio"} {
			field(k, "1.00")
			field(strings.TrimSuffix(k, "ratio")+"bytes", 0)
		}
		field("mem_fragmentation_ratio", "1.00")
		field("mem_fragmentation_bytes", 0)
		for _, k := range []string{"mem_not_counted_for_evict", "mem_replication_backlog", "mem_total_replication_buffers",
			"mem_clients_slaves", "mem_clients_normal", "mem_cluster_links", "mem_aof_buffer"} {
			field(k, 0)
		}
		field("mem_allocator", "go")
		for _, k := range []string{"active_defrag_running", "lazyfree_pending_objects", "lazyfreed_objects"} {
			field(k, 0)
		}
	case "persistence":
		for _, f := range []struct {
			k string
			v any
		}{
			{"loading", 0}, {"async_loading", 0}, {"current_cow_peak", 0}, {"current_cow_size", 0},
			{"current_cow_size_age", 0}, {"current_fork_perc", "0.00"}, {"current_save_keys_processed", 0},
			{"current_save_keys_total", 0}, {"rdb_changes_since_last_save", 0}, {"rdb_bgsave_in_progress", 0},
			{"rdb_last_save_time", m.started.Unix()}, {"rdb_last_bgsave_status", "ok"}, {"rdb_last_bgsave_time_sec", -1},
			{"rdb_current_bgsave_time_sec", -1}, {"rdb_saves", 0}, {"rdb_last_cow_size", 0},
			{"rdb_last_load_keys_expired", 0}, {"rdb_last_load_keys_loaded", 0}, {"aof_enabled", 0},
			{"aof_rewrite_in_progress", 0}, {"aof_rewrite_scheduled", 0}, {"aof_last_rewrite_time_sec", -1},
			{"aof_current_rewrite_time_sec", -1}, {"aof_last_bgrewrite_status", "ok"}, {"aof_rewrites", 0},
			{"aof_rewrites_consecutive_failures", 0}, {"aof_last_write_status", "ok"}, {"aof_last_cow_size", 0},
			{"module_fork_in_progress", 0}, {"module_fork_last_cow_size", 0},
		} {
			field(f.k, f.v)
		}
	case "stats":
		field("total_connections_received", srv.TotalConnections())
		field("total_commands_processed", srv.TotalCommands())
		for _, k := range []string{"instantaneous_ops_per_sec", "total_net_input_bytes", "total_net_output_bytes",
			"total_net_repl_input_bytes", "total_net_repl_output_bytes"} {
			field(k, 0)
		}
		for _, k := range []string{"instantaneous_input_kbps", "instantaneous_output_kbps",
			"instantaneous_input_repl_kbps", "instantaneous_output_repl_kbps"} {
			field(k, "0.00")
		}
		for _, k := range []string{"rejected_connections", "sync_full", "sync_partial_ok", "sync_partial_err"} {
			field(k, 0)
		}
		field("expired_keys", m.expiredKeys) // scriptgen: expire.go
		field("expired_stale_perc", "0.00")
		for _, k := range []string{"expired_time_cap_reached_count", "expire_cycle_cpu_milliseconds", "evicted_keys",
			"evicted_clients", "total_eviction_exceeded_time", "current_eviction_exceeded_time", "keyspace_hits",
			"keyspace_misses", "pubsub_channels", "pubsub_patterns", "pubsubshard_channels", "latest_fork_usec",
			"total_forks", "migrate_cached_sockets", "slave_expires_tracked_keys", "active_defrag_hits",
			"active_defrag_misses", "active_defrag_key_hits", "active_defrag_key_misses", "total_active_defrag_time",
			"current_active_defrag_time", "tracking_total_keys", "tracking_total_items", "tracking_total_prefixes",
			"unexpected_error_replies", "total_error_replies", "dump_payload_sanitizations", "total_reads_processed",
			"total_writes_processed", "io_threaded_reads_processed", "io_threaded_writes_processed",
			"reply_buffer_shrinks", "reply_buffer_expands"} {
			if k == "total_error_replies" {
				field(k, srv.ErrorStats().Total())
				continue
			}
			field(k, 0)
		}
	case "replication":
		field("role", "master")
		field("connected_slaves", len(m.repl.replicas)) // scriptgen: repl.go
		field("master_failover_state", "no-failover")
		field("master_replid", runID)
		field("master_replid2", strings.Repeat("0", 40))
		field("master_repl_offset", m.repl.offset)
		field("second_repl_offset", -1)
		field("repl_backlog_active", 0)
		field("repl_backlog_size", 1048576)
		field("repl_backlog_first_byte_offset", 0)
		field("repl_backlog_histlen", 0)
	case "cpu":
		sys, user := cpuTimes()
		for _, k := range []string{"used_cpu_sys", "used_cpu_user", "used_cpu_sys_children", "used_cpu_user_children",
			"used_cpu_sys_main_thread", "used_cpu_user_main_thread"} {
			v := 0.0
			switch k {
			case "used_cpu_sys", "used_cpu_sys_main_thread":
				v = sys
			case "used_cpu_user", "used_cpu_user_main_thread":
				v = user
			}
			field(k, strconv.FormatFloat(v, 'f', 6, 64))
		}
	case "commandstats":
		b.Write(srv.AppendCommandStats(nil))
	case "errorstats":
		for _, e := range srv.ErrorStats().ByCode() {
			field("errorstat_"+e.Code, "count="+strconv.FormatInt(e.N, 10))
		}
	case "cluster":
		field("cluster_enabled", 0)
	case "keyspace":
		for id, db := range m.dbs {
			if db == nil || len(db.keys) == 0 {
				continue
			}
			b.WriteString("db" + strconv.Itoa(id) + ":keys=" + strconv.Itoa(len(db.keys)) +
				",expires=" + strconv.Itoa(len(db.ttl)) + ",avg_ttl=0\r\n")
		}
	}
}

// commandNames is every command and subcommand Redis 7.0 has, by the
// names INFO commandstats gives them.
var commandNames = func() []string {
	var out []string
	for _, c := range commands.All() {
		out = append(out, c.Name)
	}
	return out
}()

// SetCachedScripts gives INFO memory the count of scripts in the cache
// (number_of_cached_scripts), which is the engine's: it is asked with
// the lock held. It must be set before the server serves.
func (m *Miniredis) SetCachedScripts(count func() int) { m.cachedScripts = count }

// bytesHuman is Redis's bytesToHuman.
func bytesHuman(n int) string {
	f := float64(n)
	for _, u := range []struct {
		unit string
		size float64
	}{{"P", 1 << 50}, {"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if f >= u.size {
			return strconv.FormatFloat(f/u.size, 'f', 2, 64) + u.unit
		}
	}
	return strconv.Itoa(n) + "B"
}

package archtest

// layers is the pipeline's import rule, one row a package: the packages of
// this module it may import (standard library and other modules are free).
// "x/..." is x and everything under it. Read from the top, data flows one
// way: the parsed script, the facts about it, the findings, the bundles, the
// Go; the engine runs what the bundles hold and imports none of the stages
// that made them; the command line sits on top of everything.
var layers = map[string][]string{
	// The one front end and what it stands on.
	"internal/commands": {},
	"internal/script":   {gopherLua},
	// The one Lua analyser: facts, not findings.
	"internal/luaflow": {"internal/script", "internal/commands", gopherLua},
	// The header a script's body implies, written down.
	"internal/annotate": {"internal/script", "internal/commands", gopherLua},
	// Rules and findings over the analyser's facts; never the engine.
	"lint": {"internal/script", "internal/luaflow", "internal/commands", gopherLua},
	// EVAL and Functions text, with the rollback prelude wrapped in.
	"gen/bundle": {"internal/script", "internal/luaflow", "transactional/prelude"},
	// Go code over a small, versioned runtime.
	"gen":           {"internal/script", "gen/bundle", "scriptrt", "transactional/prelude"},
	"scriptrt":      {"crc"},
	"generated":     {},
	"generated/...": {"scriptrt"},

	// The engine: the public face over its named parts.
	"transactional": {"internal/commands", "internal/script", gopherLua, miniredis,
		"transactional/internal/...", "transactional/prelude", "transactional/rdb"},
	"transactional/prelude":         {"internal/luaflow", "internal/commands", "internal/script", gopherLua},
	"transactional/rdb":             {"crc"},
	"transactional/internal/resp":   {gopherLua},
	"transactional/internal/lua51":  {gopherLua},
	"transactional/internal/lualib": {gopherLua, "transactional/internal/lua51"},
	"transactional/integration":     {},

	// Our copies: themselves, Redis's command table (arity checks) and the
	// DUMP payload format their DUMP and RESTORE speak.
	"internal/third_party/gopher-lua/...": {gopherLua},
	"internal/third_party/miniredis/...":  {miniredis, "internal/commands", "transactional/rdb"},

	// CRC and its generator.
	"crc":                    {},
	"crc/crcgen":             {"crc"},
	"crc/internal/tablespec": {"crc/crcgen"},
	"crc/internal/gentables": {"crc/crcgen", "crc/internal/tablespec"},

	// Users of the engine and the stages.
	"internal/luatest": {"internal/script", "gen/bundle", "transactional", gopherLua},
	"internal/catalog": {"internal/script", "gen", "gen/bundle", "internal/luaflow", "transactional/prelude"},
	"sim":              {"internal/script", "transactional"},
	"lua":              {},

	// The command line: the only package with flags, usage, exit codes and
	// file writes; main is one line over it.
	"internal/cli":  {"..."},
	"cmd/scriptgen": {"internal/cli"},

	// Test support and test-only packages.
	"internal/redistest":   {},
	"internal/clustertest": {"internal/redistest"},
	"internal/libtest":     {},
	"internal/realworld":   {},
	"internal/peers":       {},
	"internal/redissuite":  {},
	"internal/archtest":    {},
	"testscripts":          {},
}

const (
	gopherLua = "internal/third_party/gopher-lua/..."
	miniredis = "internal/third_party/miniredis/..."
)

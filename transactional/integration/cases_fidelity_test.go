package integration

import "testing"

// Fidelity gaps the grammar differential's survey found, each fixed in
// the miniredis copy (see its README): GEOHASH and GEOSEARCHSTORE, the
// RESP3 shapes of the set, hash and geo replies, SRANDMEMBER's extreme
// counts and the order in which ZUNION and its kin check their arguments.
func init() {
	for _, resp3 := range []bool{false, true} {
		sfx := ""
		if resp3 {
			sfx = "-resp3"
		}
		cases = append(cases,
			tcase{name: "fidelity/geohash" + sfx, resp3: resp3, setup: geoSetup, cmds: [][]string{
				cmd("GEOHASH", "g", "palermo", "catania", "nope", "north", "south", "east", "west", "zero"),
				cmd("GEOHASH", "g"), cmd("GEOHASH", "missing", "a", "b"), cmd("GEOHASH", "missing"),
				cmd("GEOHASH", "s", "a"), cmd("GEOHASH"),
				cmd("ZADD", "g", "0", "z0", "4503599627370495", "zmax", "1234567", "odd"),
				cmd("GEOHASH", "g", "z0", "zmax", "odd"),
			}},
			tcase{name: "fidelity/geosearchstore" + sfx, resp3: resp3, setup: geoSetup, cmds: [][]string{
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC"),
				cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"),
				// Only catania within 100 km: palermo's distance, 190.44242984775784 km
				// in Redis, ends ...781 here (Go's sin and asin against libm's).
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "100", "km", "ASC", "STOREDIST"),
				cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMMEMBER", "palermo", "BYBOX", "400", "400", "km", "DESC", "COUNT", "1", "STOREDIST"),
				cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "mi", "COUNT", "1", "ANY"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "-100", "-40", "BYRADIUS", "1", "m"), cmd("EXISTS", "d"),
				cmd("GEOSEARCHSTORE", "d2", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"),
				cmd("GEOSEARCHSTORE", "d2", "missing", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"), cmd("EXISTS", "d2"),
				cmd("GEOSEARCHSTORE", "d2", "missing", "FROMMEMBER", "x", "BYRADIUS", "200", "km"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMMEMBER", "nope", "BYRADIUS", "200", "km"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "WITHDIST"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "WITHCOORD", "WITHHASH"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "STORE", "x"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "COUNT", "0"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ANY"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "COUNT", "x"),
				cmd("GEOSEARCHSTORE", "d", "g", "BYRADIUS", "200", "km", "ASC", "x"),
				cmd("GEOSEARCHSTORE", "d", "g", "BYRADIUS", "200", "km", "ASC", "WITHDIST"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "ASC", "WITHDIST"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "ASC"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "x", "km"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "-1", "km"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "ft"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "parsec"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "200", "37", "BYRADIUS", "1", "m"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "x", "37", "BYRADIUS", "1", "m"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "FROMMEMBER", "palermo", "BYRADIUS", "1", "m"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "m", "BYBOX", "1", "1", "m"),
				cmd("GEOSEARCHSTORE", "d", "s", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "m"),
				cmd("GEOSEARCHSTORE", "d", "s", "FROMLONLAT", "15", "37", "x"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "1"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15"),
				cmd("SET", "str", "v"),
				cmd("GEOSEARCHSTORE", "str", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"), cmd("TYPE", "str"),
				cmd("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "COUNT", "2", "DESC"),
				cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"),
				cmd("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "STOREDIST"),
				cmd("GEOSEARCH", "missing", "FROMMEMBER", "x", "BYRADIUS", "200", "km"),
				cmd("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ANY"),
			}},
			tcase{name: "fidelity/hrandfield" + sfx, resp3: resp3, setup: [][]string{{"HSET", "h", "f", "1"}}, cmds: [][]string{
				cmd("HRANDFIELD", "missing", "1"), cmd("HRANDFIELD", "missing", "-1", "WITHVALUES"), cmd("HRANDFIELD", "missing", "0", "WITHVALUES"),
				cmd("HRANDFIELD", "missing"), cmd("HRANDFIELD", "h"), cmd("HRANDFIELD", "h", "1"), cmd("HRANDFIELD", "h", "2", "WITHVALUES"),
				cmd("HRANDFIELD", "h", "-2", "WITHVALUES"), cmd("HRANDFIELD", "h", "-2"), cmd("HRANDFIELD", "h", "0"), cmd("HRANDFIELD", "h", "0", "WITHVALUES"),
				cmd("HRANDFIELD", "h", "1", "WITHVALUE"), cmd("HRANDFIELD", "h", "x"), cmd("HRANDFIELD", "h", "-9223372036854775808"),
				cmd("HRANDFIELD", "h", "9223372036854775807"), cmd("HRANDFIELD", "h", "-9223372036854775808", "WITHVALUES"),
			}},
			tcase{name: "fidelity/srandmember-counts" + sfx, resp3: resp3, setup: [][]string{{"SADD", "s", "1"}}, cmds: [][]string{
				cmd("SRANDMEMBER", "s", "-9223372036854775808"), cmd("SRANDMEMBER", "missing", "-9223372036854775808"),
				cmd("SRANDMEMBER", "missing", "-9223372036854775807"), cmd("SRANDMEMBER", "s", "9223372036854775807"),
				cmd("SRANDMEMBER", "s", "9223372036854775808"), cmd("SRANDMEMBER", "s", "0"), cmd("SRANDMEMBER", "missing", "0"),
				cmd("SRANDMEMBER", "s", "-3"), cmd("SRANDMEMBER", "s", "x"), cmd("SRANDMEMBER", "missing", "x"), cmd("SRANDMEMBER", "missing"),
				cmd("SRANDMEMBER", "s", "1", "2"),
			}},
			tcase{name: "fidelity/set-replies" + sfx, resp3: resp3, setup: [][]string{{"SADD", "a", "1", "2", "3"}, {"SADD", "b", "2", "3", "4"}}, cmds: [][]string{
				cmd("SMEMBERS", "a"), cmd("SMEMBERS", "missing"), cmd("SINTER", "a", "b"), cmd("SINTER", "a", "missing"),
				cmd("SUNION", "a", "b"), cmd("SUNION", "missing"), cmd("SDIFF", "a", "b"), cmd("SDIFF", "missing", "a"),
			}},
			tcase{name: "fidelity/zsetops-order" + sfx, resp3: resp3, setup: [][]string{{"ZADD", "z", "1", "a"}, {"SET", "s", "x"}}, cmds: [][]string{
				cmd("ZUNION", "2", "z", "s", "FOO"), cmd("ZINTER", "2", "z", "s", "WEIGHTS", "x", "1"), cmd("ZDIFF", "2", "s", "z", "WEIGHTS", "1", "1"),
				cmd("ZUNIONSTORE", "d", "2", "z", "s", "WITHSCORES"), cmd("ZINTERSTORE", "d", "2", "s", "z", "AGGREGATE", "foo"),
				cmd("ZDIFFSTORE", "d", "2", "s", "z", "WITHSCORES"), cmd("ZUNION", "3", "z", "s"), cmd("ZUNION", "1", "s", "WEIGHTS"),
				cmd("ZUNION", "1", "z", "WEIGHTS", "x"), cmd("ZUNION", "1", "z", "AGGREGATE", "foo", "WEIGHTS", "x"),
				cmd("ZUNION", "1", "z", "WEIGHTS", "x", "AGGREGATE", "foo"), cmd("ZINTER", "1", "z", "WITHSCORES", "WITHSCORES"),
				cmd("ZUNIONSTORE", "d", "1", "z", "WITHSCORES"), cmd("ZDIFF", "1", "z", "AGGREGATE", "sum"), cmd("ZINTER", "0", "s"),
				cmd("ZUNION", "1", "s", "AGGREGATE"), cmd("ZINTERSTORE", "d", "2", "z", "missing", "WEIGHTS", "1", "nan"),
				cmd("ZUNION", "2", "z", "missing", "WEIGHTS", "2", "3", "WITHSCORES"),
			}},
		)
		// Do hands RESP3 doubles back as float64, so engine-do spells
		// them its own way: RESP3's coordinates are compared over TCP
		// only (TestDifferentialTCP).
		geo := tcase{name: "fidelity/geo-replies" + sfx, resp3: resp3, setup: geoSetup, cmds: [][]string{
			cmd("GEOPOS", "g", "palermo", "catania", "north", "south", "east", "west", "zero"),
			cmd("GEODIST", "g", "palermo", "catania"), cmd("GEODIST", "g", "palermo", "catania", "km"), cmd("GEODIST", "g", "north", "south", "mi"),
			cmd("GEOSEARCH", "g", "FROMMEMBER", "palermo", "BYRADIUS", "200", "km", "ASC", "WITHCOORD", "WITHDIST", "WITHHASH"),
			cmd("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "ASC", "WITHCOORD"),
			cmd("GEORADIUS", "g", "15", "37", "200", "km", "ASC", "WITHCOORD", "WITHDIST"),
			cmd("GEORADIUSBYMEMBER", "g", "palermo", "200", "km", "ASC", "WITHCOORD"),
			cmd("EVAL", "return redis.call('GEOPOS', KEYS[1], 'palermo')", "1", "g"),
			cmd("EVAL", "redis.setresp(3); return redis.call('GEOPOS', KEYS[1], 'palermo')", "1", "g"),
		}}
		if resp3 {
			tcpOnlyCases = append(tcpOnlyCases, geo)
		} else {
			cases = append(cases, geo)
		}
	}
	// RESP2's null arrays inside an array are left out: Do, which
	// engine-do compares, reads every null as nil.
	cases = append(cases, tcase{name: "fidelity/geopos-null-resp3", resp3: true, setup: geoSetup, cmds: [][]string{
		cmd("GEOPOS", "g", "nope"), cmd("GEOPOS", "missing", "a", "b"), cmd("GEOPOS", "g"), cmd("GEOPOS", "s", "a"),
		cmd("GEODIST", "g", "palermo", "nope"), cmd("GEODIST", "missing", "a", "b"),
	}})

}

// geoSetup holds points near the poles and the antimeridian, where the
// GEOHASH strings show Redis's re-encoding to the -90..90 range.
var geoSetup = [][]string{
	{"GEOADD", "g", "13.361389", "38.115556", "palermo", "15.087269", "37.502669", "catania"},
	{"GEOADD", "g", "0", "85", "north", "0", "-85", "south", "179.5", "0", "east", "-179.5", "0", "west", "0", "0", "zero"},
	{"SADD", "s", "a"},
}

// tcpOnlyCases are compared with the engine served over TCP, not through
// Do, whose Go values do not keep a RESP3 double's spelling.
var tcpOnlyCases []tcase

func TestDifferentialTCP(t *testing.T) {
	real, tcp, _ := differentialTargets(t)
	compareCases(t, tcpOnlyCases, real, []target{tcp})
}

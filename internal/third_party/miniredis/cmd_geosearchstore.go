// scriptgen: GEOSEARCHSTORE, which upstream does not serve.

package miniredis

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

func commandsGeosearchstore(m *Miniredis) {
	m.srv.Register("GEOSEARCHSTORE", m.cmdGeosearchstore)
}

// geoFloat reads a double as getDoubleFromObjectOrReply does.
func geoFloat(s string) (float64, bool) {
	if !isRedisFloat(s) {
		return 0, false
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f, true
}

// GEOSEARCHSTORE dst src FROMMEMBER m|FROMLONLAT lon lat BYRADIUS r unit|BYBOX w h unit
// [ASC|DESC] [COUNT n [ANY]] [STOREDIST]
//
// It follows georadiusGeneric: the source's type first, then the options
// in order, each read and checked as it comes, then the checks across
// them.
func (m *Miniredis) cmdGeosearchstore(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(7)) {
		return
	}
	dst, key, args := args[0], args[1], args[2:]

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)
		exists := db.exists(key)
		if exists && db.t(key) != keyTypeSortedSet {
			c.WriteError(ErrWrongType.Error())
			return
		}

		var (
			long, lat, radius, width, height, toMeter float64
			fromMember, fromLonLat, byRadius, byBox   bool
			withOpt, any, storeDist                   bool
			dir                                       = unsorted
			count                                     int
		)
		unit := func(u string) bool {
			toMeter = parseUnit(u)
			if toMeter == 0 {
				c.WriteError(msgUnsupportedUnit)
				return false
			}
			return true
		}
		for i := 0; i < len(args); i++ {
			left := len(args) - i - 1
			switch arg := strings.ToLower(args[i]); {
			case arg == "withdist" || arg == "withhash" || arg == "withcoord":
				withOpt = true
			case arg == "any":
				any = true
			case arg == "asc":
				dir = asc
			case arg == "desc":
				dir = desc
			case arg == "count" && left >= 1:
				n, err := strconv.ParseInt(args[i+1], 10, 64)
				if err != nil || !isRedisInteger(args[i+1]) {
					c.WriteError(msgInvalidInt)
					return
				}
				if n <= 0 {
					c.WriteError("ERR COUNT must be > 0")
					return
				}
				count = int(n)
				i++
			case arg == "storedist":
				storeDist = true
			case arg == "frommember" && left >= 1 && !fromLonLat:
				if exists {
					if !db.ssetExists(key, args[i+1]) {
						c.WriteError("ERR could not decode requested zset member")
						return
					}
					long, lat = geoDecode(db.ssetScore(key, args[i+1]))
				}
				fromMember = true
				i++
			case arg == "fromlonlat" && left >= 2 && !fromMember:
				x, ok1 := geoFloat(args[i+1])
				y, ok2 := geoFloat(args[i+2])
				if !ok1 || !ok2 {
					c.WriteError("ERR value is not a valid float")
					return
				}
				if x < -180 || x > 180 || y < -geoLatLimit || y > geoLatLimit {
					c.WriteError(fmt.Sprintf("ERR invalid longitude,latitude pair %f,%f", x, y))
					return
				}
				long, lat, fromLonLat = x, y, true
				i += 2
			case arg == "byradius" && left >= 2 && !byBox:
				r, ok := geoFloat(args[i+1])
				if !ok {
					c.WriteError("ERR need numeric radius")
					return
				}
				if r < 0 {
					c.WriteError("ERR radius cannot be negative")
					return
				}
				if !unit(args[i+2]) {
					return
				}
				radius, byRadius = r, true
				i += 2
			case arg == "bybox" && left >= 3 && !byRadius:
				w, ok := geoFloat(args[i+1])
				if !ok {
					c.WriteError("ERR need numeric width")
					return
				}
				h, ok := geoFloat(args[i+2])
				if !ok {
					c.WriteError("ERR need numeric height")
					return
				}
				if w < 0 || h < 0 {
					c.WriteError("ERR height or width cannot be negative")
					return
				}
				if !unit(args[i+3]) {
					return
				}
				width, height, byBox = w, h, true
				i += 3
			default:
				c.WriteError(msgSyntaxError)
				return
			}
		}
		switch {
		case withOpt:
			c.WriteError("ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
			return
		case !fromMember && !fromLonLat:
			c.WriteError("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + strings.ToLower(cmd))
			return
		case !byRadius && !byBox:
			c.WriteError("ERR exactly one of BYRADIUS and BYBOX can be specified for " + strings.ToLower(cmd))
			return
		case any && count == 0:
			c.WriteError("ERR the ANY argument requires COUNT argument")
			return
		}
		if !exists {
			db.del(dst, true)
			c.WriteInt(0)
			return
		}

		members := db.ssetElements(key)
		var matches []geoDistance
		if byRadius {
			matches = withinRadius(members, long, lat, radius*toMeter)
		} else {
			matches = withinBox(members, long, lat, width*toMeter, height*toMeter)
		}
		for i := range matches {
			x, y := geoDecode(matches[i].Score)
			matches[i].Distance = geoDistanceRedis(long, lat, x, y)
		}
		if count > 0 && dir == unsorted && !any {
			dir = asc
		}
		if dir != unsorted {
			sort.SliceStable(matches, func(i, j int) bool {
				if dir == desc {
					return matches[i].Distance > matches[j].Distance
				}
				return matches[i].Distance < matches[j].Distance
			})
		}
		if count > 0 && len(matches) > count {
			matches = matches[:count]
		}

		db.del(dst, true)
		for _, p := range matches {
			score := p.Score
			if storeDist {
				score = p.Distance / toMeter
			}
			db.ssetAdd(dst, score, p.Name)
		}
		c.WriteInt(len(matches))
	})
}

// scriptgen: GEOHASH, which upstream does not serve.

package miniredis

import (
	"math"
	"strconv"
	"strings"

	"github.com/scriptgen/scriptgen/internal/third_party/miniredis/server"
)

func commandsGeohash(m *Miniredis) {
	m.srv.Register("GEOHASH", m.cmdGeohash, server.ReadOnlyOption())
}

// GEOHASH key [member ...]
func (m *Miniredis) cmdGeohash(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(1)) {
		return
	}
	key, members := args[0], args[1:]

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		db := m.db(ctx.selectedDB)
		if db.exists(key) && db.t(key) != keyTypeSortedSet {
			c.WriteError(ErrWrongType.Error())
			return
		}
		c.WriteLen(len(members))
		for _, member := range members {
			if !db.exists(key) || !db.ssetExists(key, member) {
				c.WriteNull()
				continue
			}
			c.WriteBulk(geohashString(db.ssetScore(key, member)))
		}
	})
}

// The ranges of Redis's geohash scores (geohash.h): latitudes are cut at
// the Web Mercator's ±85.05112878, where standard geohashes span ±90.
const (
	geoLatLimit = 85.05112878
	geoLongMax  = 180.0
	geoStep     = 26
)

// geohashString is geohashCommand's string for a score: the centre of the
// score's 52-bit cell in Redis's ranges, encoded again in the standard
// -90..90 latitude range, as 11 base32 characters of which the last, past
// the 52 bits, is always '0'.
func geohashString(score float64) string {
	const alphabet = "0123456789bcdefghjkmnpqrstuvwxyz"
	x, y := geoDecode(score)
	cells := float64(uint64(1) << geoStep)
	latOff := uint32((y + 90) / 180 * cells)
	longOff := uint32((x + geoLongMax) / (2 * geoLongMax) * cells)
	hash := interleave52(latOff, longOff)

	var buf [11]byte
	for i := range buf {
		idx := 0
		if i < 10 {
			idx = int(hash>>(52-uint((i+1)*5))) & 0x1f
		}
		buf[i] = alphabet[idx]
	}
	return string(buf[:])
}

// interleave52 puts lat's 26 bits at the even positions and long's at the
// odd ones, as Redis's interleave64 does.
func interleave52(lat, long uint32) uint64 {
	var h uint64
	for i := 0; i < geoStep; i++ {
		h |= uint64(lat>>i&1) << (2 * i)
		h |= uint64(long>>i&1) << (2*i + 1)
	}
	return h
}

// deinterleave52 undoes interleave52.
func deinterleave52(h uint64) (lat, long uint32) {
	for i := 0; i < geoStep; i++ {
		lat |= uint32(h>>(2*i)&1) << i
		long |= uint32(h>>(2*i+1)&1) << i
	}
	return lat, long
}

// geoDecode is decodeGeohash: the centre of the score's cell, in Redis's
// arithmetic, clamped to Redis's ranges.
func geoDecode(score float64) (long, lat float64) {
	la, lo := deinterleave52(uint64(score))
	cells := float64(uint64(1) << geoStep)
	cellCentre := func(i uint32, lo, hi float64) float64 {
		min := lo + (float64(i)/cells)*(hi-lo)
		max := lo + (float64(i+1)/cells)*(hi-lo)
		return (min + max) / 2
	}
	long = math.Max(-geoLongMax, math.Min(geoLongMax, cellCentre(lo, -geoLongMax, geoLongMax)))
	lat = math.Max(-geoLatLimit, math.Min(geoLatLimit, cellCentre(la, -geoLatLimit, geoLatLimit)))
	return long, lat
}

// geoDistanceRedis is geohashGetDistance, in meters: the haversine on Redis's
// sphere, in its order of operations, so that distances agree to the
// last bit (upstream's distance differs in the 8th digit).
func geoDistanceRedis(lon1, lat1, lon2, lat2 float64) float64 {
	const earth = 6372797.560856
	r := math.Pi / 180
	u := math.Sin((lat2*r - lat1*r) / 2)
	v := math.Sin((lon2*r - lon1*r) / 2)
	return 2 * earth * math.Asin(math.Sqrt(u*u+math.Cos(lat1*r)*math.Cos(lat2*r)*v*v))
}

// writeGeoCoord writes the point of a score as GEOPOS and WITHCOORD do:
// decodeGeohash's centre, each number as addReplyHumanLongDouble spells
// it ("%.17Lf" of the double, trailing zeros cut).
func writeGeoCoord(c *server.Peer, score float64) {
	long, lat := geoDecode(score)
	c.WriteLen(2)
	for _, v := range []float64{long, lat} {
		c.WriteDoubleText(humanLongDouble(v))
	}
}

// humanLongDouble is ld2string's LD_STR_HUMAN for a double: seventeen
// decimals, exact as glibc prints them, then no trailing zeros or point.
func humanLongDouble(v float64) string {
	s := strconv.FormatFloat(v, 'f', 17, 64)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

package transactional

// rand48 is the generator behind math.random in Redis 7.0 (src/rand.c,
// redisLrand48 and redisSrand48; script_lua.c's redis_math_random): the
// drand48 recurrence x = (a*x + c) mod 2^48 with POSIX's a and c, kept in
// 48 bits here where rand.c splits it in three 16-bit words. Redis keeps
// one generator for the whole server, never reseeds it between scripts,
// and SCRIPT FLUSH leaves it alone: so does the engine.
type rand48 struct {
	x    uint64
	init bool
}

const (
	rand48A    = 0x5DEECE66D
	rand48C    = 0xB
	rand48Mask = 1<<48 - 1
	// rand48Start is X2:X1:X0 of rand.c, the state before any seed.
	rand48Start = 0x1234ABCD330E
	// rand48Max is REDIS_LRAND48_MAX (INT32_MAX).
	rand48Max = 1<<31 - 1
)

// seed is redisSrand48: the seed's 32 bits above rand.c's X0.
func (r *rand48) seed(v int32) {
	r.x, r.init = uint64(uint32(v))<<16|0x330E, true
}

// next is redisLrand48: the top 31 of the 48 bits.
func (r *rand48) next() int32 {
	if !r.init {
		r.x, r.init = rand48Start, true
	}
	r.x = (rand48A*r.x + rand48C) & rand48Mask
	return int32(r.x >> 17)
}

// float is the r of redis_math_random, in [0, 1).
func (r *rand48) float() float64 {
	return float64(r.next()%rand48Max) / rand48Max
}

//go:build !amd64 || purego

package crc

// Without a carry-less path archAvailable is a false constant, so the
// compiler drops the calls below.
const (
	archAvailable = false
	archMin       = 0
)

func archUpdate(crc uint64, p []byte) uint64 { panic("unreachable") }
func archShift(c, n uint64) uint64           { panic("unreachable") }
func archMul(a, b uint64) uint64             { panic("unreachable") }

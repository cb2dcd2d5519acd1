package crc

import (
	"testing"

	"github.com/minio/crc64nvme"
)

func TestABMinio(t *testing.T) {
	for _, n := range []int{64 << 10, 1 << 20, 64 << 20} {
		p := buf(n)
		best := [2]float64{1 << 62, 1 << 62}
		reps := max(1, (1<<26)/n)
		for range 25 {
			best[0] = min(best[0], float64(abTime(func() { sink64 = CRC64(sink64, p) }, reps))/float64(reps))
			best[1] = min(best[1], float64(abTime(func() { sink64 = crc64nvme.Update(sink64, p) }, reps))/float64(reps))
		}
		t.Logf("%d: ours %.2f GB/s, minio %.2f GB/s, ratio %.3f", n, float64(n)/best[0], float64(n)/best[1], best[1]/best[0])
	}
}

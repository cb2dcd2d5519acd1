package crc

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

func TestSlotAgainstRedis(t *testing.T) {
	// Redis 7.0 answers CLUSTER KEYSLOT only in cluster mode; a lone node
	// without slots is enough.
	srv := redistest.Start(t, "cluster-enabled yes")
	rdb := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	keys := []string{}
	for _, g := range slotGolden {
		keys = append(keys, g.key)
	}
	r := rand.New(rand.NewPCG(13, 14))
	alphabet := "ab{}{}xyz\x00\xff"
	for range 300 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		keys = append(keys, b.String())
	}
	for _, n := range []int{8, 9, 10, 31, 32, 33, 100, 1000} {
		keys = append(keys, string(randBytes(r, n)), "{"+string(randBytes(r, n))+"}tail")
	}

	pipe := rdb.Pipeline()
	for _, k := range keys {
		pipe.ClusterKeySlot(ctx, k)
	}
	cmds, err := pipe.Exec(ctx)
	if err != nil {
		t.Fatalf("CLUSTER KEYSLOT: %v", err)
	}
	for i, k := range keys {
		want, err := cmds[i].(interface{ Result() (int64, error) }).Result()
		if err != nil {
			t.Fatalf("CLUSTER KEYSLOT %q: %v", k, err)
		}
		if got := Slot(k); int64(got) != want {
			t.Errorf("Slot(%q) = %d, CLUSTER KEYSLOT says %d", k, got, want)
		}
	}
}

// TestDumpTrailerAgainstRedis checks every CRC64 path against the trailer of
// DUMP payloads, which Redis ends with the CRC64 of all preceding bytes,
// little-endian.
func TestDumpTrailerAgainstRedis(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	r := rand.New(rand.NewPCG(15, 16))
	var keys []string
	// Random bytes defeat Redis's LZF compression, so the payload length
	// follows the value length across every path's thresholds.
	for i, n := range []int{0, 1, 7, 20, 100, 1000, 5000, 70000, 1 << 20, 3<<20 + 5} {
		k := fmt.Sprintf("str:%d", i)
		if err := rdb.Set(ctx, k, randBytes(r, n), 0).Err(); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	for i := range 300 {
		rdb.RPush(ctx, "list", fmt.Sprint(i*i))
		rdb.HSet(ctx, "hash", fmt.Sprint("f", i), strings.Repeat("v", i))
	}
	keys = append(keys, "list", "hash")

	for _, k := range keys {
		payload, err := rdb.Dump(ctx, k).Bytes()
		if err != nil {
			t.Fatalf("DUMP %s: %v", k, err)
		}
		if len(payload) < 10 {
			t.Fatalf("DUMP %s: payload of %d bytes", k, len(payload))
		}
		body, trailer := payload[:len(payload)-8], binary.LittleEndian.Uint64(payload[len(payload)-8:])
		if trailer == 0 {
			t.Fatalf("DUMP %s: no checksum in payload", k)
		}
		if ref := crc64Ref(0, body); ref != trailer {
			t.Fatalf("DUMP %s: reference CRC %#x, trailer %#x", k, ref, trailer)
		}
		for name, f := range paths() {
			if got := f(0, body); got != trailer {
				t.Errorf("DUMP %s (%d bytes): %s = %#x, trailer %#x", k, len(body), name, got, trailer)
			}
		}
	}
}

//go:build linux

package crc

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// guarded returns a page of memory between two inaccessible pages, so that
// reading a byte before or after it faults: the unsafe word loads of Slot
// and CRC64 must stay inside their input.
func guarded(t *testing.T) []byte {
	t.Helper()
	ps := unix.Getpagesize()
	mem, err := unix.Mmap(-1, 0, 3*ps, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	t.Cleanup(func() { unix.Munmap(mem) })
	if err := unix.Mprotect(mem[:ps], unix.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	if err := unix.Mprotect(mem[2*ps:], unix.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	return mem[ps : 2*ps : 2*ps]
}

func TestNoReadOutsideInput(t *testing.T) {
	page := guarded(t)
	r := rand.New(rand.NewPCG(23, 24))
	alphabet := "{}ab|z\x00\xff"
	for n := range 41 {
		for range 50 {
			// The key at the start of the page and at its end.
			for _, off := range []int{0, len(page) - n} {
				b := page[off : off+n]
				for i := range b {
					b[i] = alphabet[r.IntN(len(alphabet))]
				}
				key := unsafe.String(unsafe.SliceData(b), n)
				if got, want := Slot(key), slotRef(key); got != want {
					t.Fatalf("Slot(%q) = %d, want %d", key, got, want)
				}
			}
		}
	}
	for _, n := range []int{0, 1, 15, 16, 17, 255, 256, 257, 511, 512, 600, 1000} {
		for _, off := range []int{0, len(page) - n} {
			b := page[off : off+n]
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			want := crc64Ref(7, b)
			for name, f := range paths() {
				if got := f(7, b); got != want {
					t.Fatalf("%s(len %d at %d) = %#x, want %#x", name, n, off, got, want)
				}
			}
			if got, want := CRC16(b), crc16Ref(b); got != want {
				t.Fatalf("CRC16(len %d at %d) = %#x, want %#x", n, off, got, want)
			}
		}
	}
}

package crc_test

import (
	"fmt"

	"github.com/scriptgen/scriptgen/crc"
)

func ExampleSlot() {
	// Keys sharing a hash tag share a slot, so one script may touch both.
	fmt.Println(crc.Slot("{user1000}.following"), crc.Slot("{user1000}.followers"))
	fmt.Println(crc.Slot("123456789"))
	// Output:
	// 3443 3443
	// 12739
}

func ExampleCRC64() {
	fmt.Printf("%#x\n", crc.CRC64(0, []byte("123456789")))
	// Incremental, like Redis's crc64(crc, buf, len).
	c := crc.CRC64(0, []byte("1234"))
	fmt.Printf("%#x\n", crc.CRC64(c, []byte("56789")))
	// Output:
	// 0xe9c6d914c4b8d9ca
	// 0xe9c6d914c4b8d9ca
}

func ExampleCombine64() {
	a, b := []byte("1234"), []byte("56789")
	// The CRC of a‖b from the two CRCs and len(b), without the data.
	fmt.Printf("%#x\n", crc.Combine64(crc.CRC64(0, a), crc.CRC64(0, b), int64(len(b))))
	// Output:
	// 0xe9c6d914c4b8d9ca
}

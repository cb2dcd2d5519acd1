package crcgen

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// catalogue holds published parameters and check values from Greg Cook's
// "Catalogue of parametrised CRC algorithms" (reveng).
var catalogue = []struct {
	name  string
	p     Params
	check uint64
}{
	{"CRC-16/XMODEM", Params{Width: 16, Poly: 0x1021}, 0x31c3},
	{"CRC-16/ARC", Params{Width: 16, Poly: 0x8005, Reflect: true}, 0xbb3d},
	{"CRC-32/ISO-HDLC", Params{Width: 32, Poly: 0x04c11db7, Reflect: true, Init: 0xffffffff, XorOut: 0xffffffff}, 0xcbf43926},
	{"CRC-32/ISCSI", Params{Width: 32, Poly: 0x1edc6f41, Reflect: true, Init: 0xffffffff, XorOut: 0xffffffff}, 0xe3069283},
	{"CRC-64/ECMA-182", Params{Width: 64, Poly: 0x42f0e1eba9ea3693}, 0x6c40df5f0b497347},
	{"CRC-64/XZ", Params{Width: 64, Poly: 0x42f0e1eba9ea3693, Reflect: true, Init: ^uint64(0), XorOut: ^uint64(0)}, 0x995dc9bbdf1939fa},
	{"CRC-64/GO-ISO", Params{Width: 64, Poly: 0x1b, Reflect: true, Init: ^uint64(0), XorOut: ^uint64(0)}, 0xb90956c775a41001},
	{"CRC-64/REDIS", Params{Width: 64, Poly: 0xad93d23594c935a9, Reflect: true}, 0xe9c6d914c4b8d9ca},
	// Odd widths exercise the alignment paths of the generated code.
	{"CRC-3/GSM", Params{Width: 3, Poly: 0x3, XorOut: 0x7}, 0x4},
	{"CRC-5/USB", Params{Width: 5, Poly: 0x05, Reflect: true, Init: 0x1f, XorOut: 0x1f}, 0x19},
	{"CRC-8/SMBUS", Params{Width: 8, Poly: 0x07}, 0xf4},
	{"CRC-24/OPENPGP", Params{Width: 24, Poly: 0x864cfb, Init: 0xb704ce}, 0x21cf02},
	{"CRC-40/GSM", Params{Width: 40, Poly: 0x0004820009, XorOut: 0xffffffffff}, 0xd4164fc646},
}

func identName(catalogueName string) string {
	r := strings.NewReplacer("-", "", "/", "")
	return "c" + strings.ToLower(r.Replace(catalogueName))
}

func TestModelCheckValues(t *testing.T) {
	for _, c := range catalogue {
		c.p.Name, c.p.Pkg = "x", "x"
		if got := newModel(c.p).check(); got != c.check {
			t.Errorf("%s: check = %#x, want %#x", c.name, got, c.check)
		}
	}
}

func TestModelCombineCache(t *testing.T) {
	for _, c := range catalogue {
		m := newModel(c.p)
		cache := m.combineCache()
		// Entry [i][d] must equal d·256^i zero bytes fed through the table.
		for _, tc := range []struct{ i, d int }{{0, 1}, {0, 5}, {0, 255}, {1, 1}, {1, 3}} {
			n := tc.d << (8 * tc.i)
			c0 := m.one()
			for range n {
				c0 = m.shiftByte(c0)
			}
			if cache[tc.i][tc.d] != c0 {
				t.Errorf("%s: cache[%d][%d] = %#x, want %#x", c.name, tc.i, tc.d, cache[tc.i][tc.d], c0)
			}
		}
		if got := m.mul(m.xinv(), m.mulx(m.one())); got != m.one() {
			t.Errorf("%s: x^-1 · x = %#x, want 1", c.name, got)
		}
	}
}

func TestBarrettMu(t *testing.T) {
	// floor(x^128/P)·P must leave a remainder of degree < 64: check with
	// the model's reduction of x^128 against mu.
	for _, c := range catalogue {
		if c.p.Width != 64 {
			continue
		}
		mu := barrettMu(c.p.Poly)
		// (x^64 + mu)·(x^64 + poly) = x^128 + rem with deg(rem) < 64; the
		// coefficients of x^64..x^127 of mu·poly must cancel mu·x^64 +
		// poly·x^64.
		hi, _ := clmulRef(mu, c.p.Poly)
		// x^128 + x^64·(mu ^ poly) + mu·poly: coefficients 64..127 are
		// mu ^ poly ^ hi (hi holds bits 64..127 of mu·poly).
		if mu^c.p.Poly^hi != 0 {
			t.Errorf("%s: mu %#x is not floor(x^128/P)", c.name, mu)
		}
	}
}

func clmulRef(a, b uint64) (hi, lo uint64) {
	for i := range 64 {
		if a>>uint(i)&1 != 0 {
			lo ^= b << uint(i)
			if i > 0 {
				hi ^= b >> uint(64-i)
			}
		}
	}
	return hi, lo
}

func TestGenerateDeterministicAndHeader(t *testing.T) {
	p := catalogue[0].p
	p.Name, p.Pkg = "xmodem", "crc"
	a, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(p)
	if !bytes.Equal(a, b) {
		t.Fatal("two renders differ")
	}
	if !bytes.HasPrefix(a, []byte(Header+"\n")) {
		t.Fatalf("output does not start with %q", Header)
	}
}

func TestGenerateRejects(t *testing.T) {
	for _, p := range []Params{
		{Name: "a", Pkg: "a", Width: 0, Poly: 1},
		{Name: "a", Pkg: "a", Width: 65, Poly: 1},
		{Name: "a", Pkg: "a", Width: 16, Poly: 0x1020},
		{Name: "a", Pkg: "a", Width: 16, Poly: 0x11021},
		{Name: "a", Pkg: "a", Width: 16, Poly: 0x1021, Init: 0x10000},
		{Name: "1a", Pkg: "a", Width: 16, Poly: 0x1021},
		{Name: "a", Pkg: "a-b", Width: 16, Poly: 0x1021},
	} {
		if _, err := Generate(p); err == nil {
			t.Errorf("Generate(%+v) succeeded", p)
		}
	}
}

// TestGeneratedCodeCompilesAndChecks builds every catalogue CRC into one
// program and runs it: the generated Update, Checksum and Combine must give
// the published check value and agree with each other on split inputs.
func TestGeneratedCodeCompilesAndChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with the go tool")
	}
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module gencheck\n\ngo 1.22\n")
	var main strings.Builder
	main.WriteString("package main\n\nimport \"fmt\"\n\nfunc main() {\n")
	main.WriteString("\tdata := make([]byte, 70000)\n\tfor i := range data { data[i] = byte(i*7 + i>>8) }\n")
	var want strings.Builder
	for k, c := range catalogue {
		p := c.p
		p.Name, p.Pkg = identName(c.name), "main"
		// Every other CRC takes 16-byte steps, so both loops are built.
		p.Slices = 8 << (k % 2)
		src, err := Generate(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		write(p.Name+".go", string(src))
		n := p.Name
		fmt.Fprintf(&main, "\tfmt.Printf(\"%%s %%#x\\n\", %q, %sChecksum([]byte(\"123456789\")))\n", c.name, n)
		fmt.Fprintf(&want, "%s %#x\n", c.name, c.check)
		// Splits at many points: Update must continue and Combine must join.
		fmt.Fprintf(&main, `	for _, cut := range []int{0, 1, 7, 8, 9, 255, 256, 257, 65535, 65536, 69999, 70000} {
		a, b := data[:cut], data[cut:]
		whole := %[1]sChecksum(data)
		if %[1]sUpdate(%[1]sChecksum(a), b) != whole {
			fmt.Println(%[2]q, "update mismatch at", cut)
		}
		if %[1]sCombine(%[1]sChecksum(a), %[1]sChecksum(b), int64(len(b))) != whole {
			fmt.Println(%[2]q, "combine mismatch at", cut)
		}
	}
`, n, c.name)
	}
	main.WriteString("}\n")
	write("main.go", main.String())
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	if string(out) != want.String() {
		t.Errorf("generated programs printed:\n%s\nwant:\n%s", out, want.String())
	}
}

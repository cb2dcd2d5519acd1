package lualib

import (
	"testing"

	lua "github.com/scriptgen/scriptgen/internal/third_party/gopher-lua"
)

// TestOpen: the four libraries, each answering as Redis's does for a
// known case, and cjson.null told apart. TestCodecsMatchRedis in package
// transactional compares thousands of random calls with a real Redis.
func TestOpen(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	for name, lib := range Open(L) {
		L.SetGlobal(name, lib)
	}
	for expr, want := range map[string]string{
		"cjson.encode({})":                                  "{}",
		"cjson.encode({1, 'a', {x = true}})":                `[1,"a",{"x":true}]`,
		"tostring(cjson.decode('[null]')[1] == cjson.null)": "true",
		"bit.tohex(255)":                                    "000000ff",
		"bit.band(-1, 0xff)":                                "255",
		"struct.pack('>I2', 258) == '\\1\\2'":               "true",
		"struct.unpack('<i4', '\\255\\255\\255\\255')":      "-1",
		"#cmsgpack.pack({1, 2})":                            "3",
		"cmsgpack.unpack(cmsgpack.pack('hi'))":              "hi",
	} {
		if err := L.DoString("return (" + expr + ")"); err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		if got := L.ToStringMeta(L.Get(-1)).String(); got != want {
			t.Errorf("%s = %s, want %s", expr, got, want)
		}
		L.SetTop(0)
	}
	if err := L.DoString("return cjson.null, {}"); err != nil {
		t.Fatal(err)
	}
	if !IsNull(L.Get(-2)) || IsNull(L.Get(-1)) || IsNull(lua.LNil) {
		t.Error("IsNull does not tell cjson.null alone")
	}
}

package script

import (
	"io/fs"
	"path/filepath"
	"reflect"
	"testing"
)

// TestLoader: a run reads each file once, and the helpers are every file
// an include line reaches, through other helpers too.
func TestLoader(t *testing.T) {
	files := map[string]string{
		"d/main.lua":     "--! include: h.lua\nreturn h()\n",
		"d/h.lua":        "--- @include \"inc/deep\"\nlocal function h() return 1 end\n",
		"d/inc/deep.lua": "local deep = 1\n",
		"d/other.lua":    "--- @include \"gone\"\nreturn 1\n",
	}
	reads := map[string]int{}
	ld := NewLoader(func(p string) ([]byte, error) {
		reads[filepath.ToSlash(p)]++
		if src, ok := files[filepath.ToSlash(p)]; ok {
			return []byte(src), nil
		}
		return nil, fs.ErrNotExist
	})
	var scripts []*Script
	for _, p := range []string{"d/main.lua", "d/other.lua"} {
		s, errs, err := ld.Parse(p)
		if err != nil || errs != nil {
			t.Fatal(err, errs)
		}
		scripts = append(scripts, s)
	}
	if again, _, _ := ld.Parse("d/main.lua"); again != scripts[0] {
		t.Error("Parse: a second call parsed the script again")
	}
	if LoaderOf(scripts) != ld {
		t.Error("LoaderOf: not the Loader that parsed the scripts")
	}
	want := map[string]bool{filepath.Join("d", "h.lua"): true, filepath.Join("d", "inc", "deep.lua"): true, filepath.Join("d", "gone.lua"): true}
	for range 2 {
		if got := ld.Helpers(scripts); !reflect.DeepEqual(got, want) {
			t.Errorf("helpers %v, want %v", got, want)
		}
	}
	if _, err := ld.Lua("d/gone.lua"); err == nil {
		t.Error("a missing helper read without error")
	}
	for p, n := range reads {
		if n != 1 {
			t.Errorf("%s read %d times", p, n)
		}
	}
}

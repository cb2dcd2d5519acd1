package scriptrt

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEnforceVersion builds testdata/version, a generated package's version
// check, as generated code of each version around the supported range
// would have it: those in range build, the others fail on the line of the
// side that is too old, naming EnforceVersion.
func TestEnforceVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	orig, err := filepath.Abs(filepath.Join("testdata", "version", "version.go"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for v := MinVersion - 1; v <= MaxVersion+1; v++ {
		src := "package version\n\nimport \"github.com/scriptgen/scriptgen/scriptrt\"\n\nconst (\n" +
			"\t_ = scriptrt.EnforceVersion(" + strconv.Itoa(v) + " - scriptrt.MinVersion)\n" +
			"\t_ = scriptrt.EnforceVersion(scriptrt.MaxVersion - " + strconv.Itoa(v) + ")\n)\n"
		file := filepath.Join(dir, "v"+strconv.Itoa(v)+".go")
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{orig: file}})
		ofile := filepath.Join(dir, "overlay"+strconv.Itoa(v)+".json")
		if err := os.WriteFile(ofile, overlay, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("go", "build", "-overlay", ofile, "./testdata/version").CombinedOutput()
		var wantLine string
		switch {
		case v < MinVersion:
			wantLine = ":6:" // the generated code is too old
		case v > MaxVersion:
			wantLine = ":7:" // the runtime is too old
		}
		if wantLine == "" {
			if err != nil {
				t.Errorf("version %d: %v\n%s", v, err, out)
			}
			continue
		}
		if err == nil || !strings.Contains(string(out), wantLine) || !strings.Contains(string(out), "overflows scriptrt.EnforceVersion") {
			t.Errorf("version %d: want a failure on line %s naming scriptrt.EnforceVersion; got %v\n%s", v, wantLine, err, out)
		}
	}
}

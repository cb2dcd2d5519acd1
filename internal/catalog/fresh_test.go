package catalog

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/scriptgen/scriptgen/internal/script"
)

var update = flag.Bool("update", false, "rewrite generated/ratelimit/README.md")

const readme = "../../generated/ratelimit/README.md"

// TestFresh renders lua/ratelimit's catalogue as `make generate` does and
// compares it with the checked-in page.
func TestFresh(t *testing.T) {
	scripts, errs, err := script.Load("../../lua/ratelimit")
	if err != nil || len(errs) > 0 {
		t.Fatalf("loading the library: %v %v", err, errs)
	}
	got, err := Markdown(scripts, Options{Package: "ratelimit", Source: "lua/ratelimit"})
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(readme, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(readme)
	if err != nil {
		t.Fatalf("%v; run go test ./internal/catalog -update (or make generate)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale; run make generate:\n%s", readme, diff.Diff(readme, want, "rendered", got))
	}
}

package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/scriptgen/scriptgen/internal/script"
	"github.com/scriptgen/scriptgen/lua"
	"github.com/scriptgen/scriptgen/sim"
)

func init() {
	register(&command{name: "sim", summary: "simulate limiters on the virtual clock and plot them", usage: `usage: scriptgen sim [flags] LIMITER...

Sim drives rate-limiter scripts in the embedded engine on its virtual clock
with a described workload, and reports what got through: admitted and denied
requests per interval for every limiter side by side, then per limiter and
caller the totals, the largest burst admitted in any -window, when the first
denial came, and Jain's fairness index over the callers' admitted shares.

A LIMITER is a script, by path or by its name in scriptgen's library, with
its arguments after a colon:

	token_bucket:capacity=10,rate=5,period_ms=1000
	lua/ratelimit/window.lua:limits=[[1000,5],[60000,100]]
	gcra:rate=5,burst=10,period_ms=1000,label=gcra-5

Any script whose returns: has an allowed bool field (or limited bool) is a
limiter. now_ms, when the script takes it, is the caller's clock: virtual
time plus the caller's skew. Arguments not given take the header's default.
Values may use $caller and $req (a unique request number). label= names the
limiter; keys= gives KEYS templates, space-separated, which may use $caller.

The workload is -callers callers each sending -rate requests/s plus -burst
requests at once every -every, caller i's clock skewed by i × -skew and its
first request staggered by i/callers of a request period; or one
-caller per caller, e.g. -caller name=api,rate=20,burst=50,every=10s,skew=-40ms
(fields: ` + sim.CallerFields + `). Requests are spaced exactly, or with
-poisson (poisson=true) at random with exponential gaps drawn from -seed:
either way counts are reproducible to the request. With -shared all callers share the
limiter's keys (one resource); otherwise each caller has its own.

-csv prints one CSV row per limiter, interval and caller instead of the
table. -o writes the plot: FILE.png, FILE.svg, or both for a FILE without
one of those extensions.

Exit status: 0 done, 1 a script failed during the run, 2 bad usage.
`, run: runSim})
}

// callerFlags collects repeated -caller specs.
type callerFlags []sim.Caller

func (c *callerFlags) String() string { return "" }

func (c *callerFlags) Set(v string) error {
	x, err := sim.ParseCaller(v)
	if err != nil {
		return err
	}
	*c = append(*c, x)
	return nil
}

func runSim(e *env, args []string) int {
	// A simulation allocates small short-lived values at a high rate over a
	// small live heap: collecting less often saves ~10-15% of its time.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	fs := e.flags(lookup("sim"))
	var w sim.Workload
	fs.DurationVar(&w.Duration, "duration", 10*time.Second, "virtual `time` to simulate")
	fs.DurationVar(&w.Interval, "interval", 0, "reporting `interval` (default: duration/10)")
	fs.DurationVar(&w.Window, "window", time.Second, "`width` of the window the worst burst is measured in")
	fs.BoolVar(&w.Shared, "shared", false, "all callers share one resource (the same keys)")
	n := fs.Int("callers", 1, "`number` of identical callers")
	rate := fs.Float64("rate", 10, "requests per second of each caller")
	burst := fs.Int("burst", 0, "requests each caller sends at once every -every")
	every := fs.Duration("every", 0, "`period` of bursts (0: one burst at the start)")
	skew := fs.Duration("skew", 0, "clock skew between consecutive callers")
	poisson := fs.Bool("poisson", false, "space each -callers caller's requests randomly (Poisson arrivals) instead of exactly")
	fs.Uint64Var(&w.Seed, "seed", 1, "random `seed` of Poisson arrivals")
	var callers callerFlags
	fs.Var(&callers, "caller", "one caller, as name=…,rate=…,burst=…,every=…,start=…,stop=…,skew=… (repeatable)")
	asCSV := fs.Bool("csv", false, "print CSV instead of the table")
	out := fs.String("o", "", "write the plot to `file` (.png, .svg, or both)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(e.stderr, "scriptgen sim: no limiters given; e.g. scriptgen sim token_bucket:capacity=10,rate=5,period_ms=1000")
		return ExitUsage
	}
	w.Callers = callers
	if len(w.Callers) == 0 {
		if *n < 1 {
			fmt.Fprintln(e.stderr, "scriptgen sim: -callers must be at least 1")
			return ExitUsage
		}
		for i := range *n {
			c := sim.Caller{Rate: *rate, Burst: *burst, Every: *every, Skew: time.Duration(i) * *skew, Poisson: *poisson}
			if *rate > 0 {
				// Staggered over one period: identical callers in lockstep
				// would always arrive in the same order, and the first
				// would starve the others of every contested token.
				c.Start = time.Duration(float64(time.Second) / *rate * float64(i) / float64(*n))
			}
			w.Callers = append(w.Callers, c)
		}
	}
	var limiters []sim.Limiter
	for _, spec := range fs.Args() {
		l, err := parseLimiter(spec)
		if err != nil {
			fmt.Fprintf(e.stderr, "scriptgen sim: %v\n", err)
			return ExitUsage
		}
		limiters = append(limiters, l)
	}
	rep, err := sim.Run(e.ctx, w, limiters...)
	if err != nil {
		fmt.Fprintf(e.stderr, "scriptgen sim: %v\n", err)
		var re *sim.RunError
		if errors.As(err, &re) {
			return ExitFindings
		}
		return ExitUsage
	}
	if *asCSV {
		err = rep.WriteCSV(e.stdout)
	} else {
		err = rep.WriteTable(e.stdout)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "scriptgen sim: %v\n", err)
		return ExitUsage
	}
	if *out != "" {
		if err := writePlots(rep, *out); err != nil {
			fmt.Fprintf(e.stderr, "scriptgen sim: %v\n", err)
			return ExitUsage
		}
	}
	return ExitOK
}

func writePlots(rep *sim.Report, out string) error {
	formats := []string{sim.PNG, sim.SVG}
	base := out
	switch ext := strings.TrimPrefix(filepath.Ext(out), "."); ext {
	case sim.PNG, sim.SVG:
		formats, base = []string{ext}, strings.TrimSuffix(out, "."+ext)
	}
	if dir := filepath.Dir(base); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	for _, f := range formats {
		b, err := rep.Plot(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(base+"."+f, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// parseLimiter reads PATH_OR_NAME[:name=value,...].
func parseLimiter(spec string) (sim.Limiter, error) {
	var l sim.Limiter
	ref, argSpec, _ := strings.Cut(spec, ":")
	kv, err := sim.SplitSpec(argSpec)
	if err != nil {
		return l, fmt.Errorf("%s: %v", ref, err)
	}
	if l.Label = kv["label"]; l.Label != "" {
		delete(kv, "label")
	}
	if keys, ok := kv["keys"]; ok {
		l.Keys = strings.Fields(keys)
		delete(kv, "keys")
	}
	l.Args = kv
	l.Script, err = findScript(ref)
	return l, err
}

// findScript loads a script from a file, or else from the library by name.
func findScript(ref string) (*script.Script, error) {
	if _, err := os.Stat(ref); err == nil {
		ss, errs, err := script.Load(ref)
		if err != nil {
			return nil, err
		}
		if len(errs) > 0 {
			return nil, errs.Err()
		}
		if len(ss) != 1 {
			return nil, fmt.Errorf("%s: want one script, found %d", ref, len(ss))
		}
		return ss[0], nil
	}
	matches, _ := fs.Glob(lua.FS, "*/"+ref+".lua")
	if len(matches) == 0 || strings.ContainsAny(ref, "/*?[\\") {
		return nil, fmt.Errorf("%s: no such file, nor a script of scriptgen's library (%s)", ref, strings.Join(libraryNames(), ", "))
	}
	src, err := fs.ReadFile(lua.FS, matches[0])
	if err != nil {
		return nil, err
	}
	return script.Parse(matches[0], src)
}

func libraryNames() []string {
	var names []string
	matches, _ := fs.Glob(lua.FS, "*/*.lua")
	for _, m := range matches {
		if !script.IsTest(m) {
			names = append(names, strings.TrimSuffix(filepath.Base(m), ".lua"))
		}
	}
	return names
}

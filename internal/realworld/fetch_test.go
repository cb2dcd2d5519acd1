package realworld

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// project is one pinned release and where its scripts are.
type project struct {
	name    string
	version string
	// npm: the package whose tarball holds the scripts under dir; else a
	// Go module whose scripts are redis.NewScript string constants in dir.
	npm bool
	mod string
	dir string
}

var projects = []project{
	{name: "asynq", version: "v0.26.0", mod: "github.com/hibiken/asynq", dir: "internal/rdb"},
	{name: "bullmq", version: "6.7.0", npm: true, dir: "package/dist/cjs/commands"},
	{name: "bull", version: "4.16.5", npm: true, dir: "package/lib/commands"},
	{name: "redisrate", version: "v10.0.1", mod: "github.com/go-redis/redis_rate/v10", dir: "."},
}

func cacheDir(t *testing.T) string {
	if d := os.Getenv("SCRIPTGEN_REALWORLD_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(d, "scriptgen", "realworld")
}

// fetch writes p's scripts into dst, downloading the release into the
// cache the first time.
func (p project) fetch(t *testing.T, dst string) {
	t.Helper()
	if p.npm {
		p.fetchNPM(t, dst)
	} else {
		p.fetchGo(t, dst)
	}
}

func run(t *testing.T, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return out
}

func (p project) fetchNPM(t *testing.T, dst string) {
	cache := cacheDir(t)
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	tgz := filepath.Join(cache, fmt.Sprintf("%s-%s.tgz", p.name, p.version))
	if _, err := os.Stat(tgz); err != nil {
		run(t, cache, nil, "npm", "pack", "--silent", p.name+"@"+p.version)
	}
	f, err := os.Open(tgz)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	n := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rel, ok := strings.CutPrefix(path.Clean(h.Name), p.dir+"/")
		if !ok || !strings.HasSuffix(rel, ".lua") || strings.Contains(rel, "..") || h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(tr, 1<<20))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n == 0 {
		t.Fatalf("%s@%s: no .lua files under %s", p.name, p.version, p.dir)
	}
}

// fetchGo extracts the scripts of a Go module: every string literal
// passed to redis.NewScript in the package at dir, one file per script,
// named after the variable that holds it.
func (p project) fetchGo(t *testing.T, dst string) {
	out := run(t, t.TempDir(), []string{"GOFLAGS=-mod=mod"}, "go", "mod", "download", "-json", p.mod+"@"+p.version)
	var info struct{ Dir string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		t.Fatalf("go mod download %s@%s: %v\n%s", p.mod, p.version, err, out)
	}
	files, err := filepath.Glob(filepath.Join(info.Dir, filepath.FromSlash(p.dir), "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for name, src := range newScripts(file) {
			for seen[name] {
				name += "_"
			}
			seen[name] = true
			if err := os.WriteFile(filepath.Join(dst, name+".lua"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(seen) == 0 {
		t.Fatalf("%s@%s: no redis.NewScript under %s", p.mod, p.version, p.dir)
	}
}

// newScripts maps the variable each redis.NewScript("…") call of file is
// assigned to onto the script's text, its Go doc comment (where asynq
// lists KEYS and ARGV) turned into a leading Lua comment.
func newScripts(file *ast.File) map[string]string {
	out := map[string]string{}
	for _, d := range file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			vs, ok := spec.(*ast.ValueSpec)
			if !ok {
				continue
			}
			doc := vs.Doc
			if doc == nil && len(gd.Specs) == 1 {
				doc = gd.Doc
			}
			for i, v := range vs.Values {
				if src, ok := scriptLit(v); ok && i < len(vs.Names) {
					out[vs.Names[i].Name] = luaComment(doc) + src
				}
			}
		}
	}
	return out
}

func luaComment(doc *ast.CommentGroup) string {
	if doc == nil {
		return ""
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(doc.Text()), "\n") {
		b.WriteString(strings.TrimRight("-- "+l, " ") + "\n")
	}
	return b.String()
}

func scriptLit(e ast.Expr) (string, bool) {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return "", false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "NewScript" {
		return "", false
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// bullmqNode is BullMQ's own client, run by node: a job added, three log
// lines without keepLogs, one with keepLogs 2 (Queue.addJobLog). It
// prints the replies as JSON.
const bullmqNode = `const { Queue } = require('bullmq');
(async () => {
  const q = new Queue('q', { connection: { host: process.env.HOST, port: Number(process.env.PORT) }, prefix: '{bull}' });
  const job = await q.add('j', { a: 1 });
  const replies = [];
  for (const line of ['a', 'b', 'c']) replies.push(await job.log(line));
  replies.push(await q.addJobLog(job.id, 'd', 2));
  console.log(JSON.stringify({ job: job.id, replies }));
  await q.close();
})().catch(e => { console.error(e); process.exit(1); });
`

// bullmqLog runs BullMQ's client (the npm release the scripts came from,
// and the ioredis it needs) against srv, and returns its replies and the
// log list it left, as JSON for the wrapper test.
func bullmqLog(t *testing.T, srv *redistest.Server) string {
	t.Helper()
	dir := filepath.Join(cacheDir(t), "node-bullmq-6.7.0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "bullmq", "package.json")); err != nil {
		run(t, dir, nil, "npm", "install", "--silent", "--no-audit", "--no-fund", "bullmq@6.7.0", "ioredis@5.11.1")
	}
	if err := os.WriteFile(filepath.Join(dir, "log.js"), []byte(bullmqNode), 0o644); err != nil {
		t.Fatal(err)
	}
	host, port, _ := strings.Cut(srv.Addr, ":")
	out := run(t, dir, []string{"HOST=" + host, "PORT=" + port}, "node", "log.js")
	var got struct {
		Job     string
		Replies []int64
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("BullMQ's client printed %q: %v", out, err)
	}
	c := srv.Client(t)
	logs, err := c.LRange(context.Background(), "{bull}:q:"+got.Job+":logs", 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"job": got.Job, "replies": got.Replies, "logs": logs})
	t.Logf("BullMQ 6.7.0's client: %s", b)
	return string(b)
}

package rdb

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/scriptgen/scriptgen/internal/redistest"
)

// TestFileLoadsInRedis writes a keyspace with File as a redis-server's
// dump.rdb and has the server load it: the function library must answer
// FCALL, and every key must come back in its database with the value Dump
// encodes (DUMP answers the same payload) and its expiry to the
// millisecond.
func TestFileLoadsInRedis(t *testing.T) {
	at := time.Now().Add(time.Hour).UnixMilli()
	entries := []Entry{
		{DB: 0, Key: "s", Value: String("hello")},
		{DB: 0, Key: "n", Value: String("12345")},
		{DB: 0, Key: "l", Value: List{"a", "b", "c"}, ExpireMs: at},
		{DB: 0, Key: "h", Value: Hash{{Name: "f", Value: "v"}, {Name: "g", Value: "w"}}},
		{DB: 3, Key: "i", Value: Set{"1", "2", "3"}},
		{DB: 3, Key: "z", Value: ZSet{{Name: "a", Score: 1}, {Name: "b", Score: 2.5}}, ExpireMs: at + 1},
	}
	dir := t.TempDir()
	lib := "#!lua name=filelib\nredis.register_function('f', function() return 7 end)"
	if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), File([]string{lib}, entries), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := redistest.Start(t, "dir "+dir, "dbfilename dump.rdb")
	ctx := context.Background()
	c := srv.Client(t)
	if n, err := c.Do(ctx, "FCALL", "f", "0").Int(); err != nil || n != 7 {
		t.Errorf("FCALL f of the library in the file: %v, %v", n, err)
	}
	for db, want := range map[int]int64{0: 4, 3: 2} {
		if err := c.Do(ctx, "SELECT", db).Err(); err != nil {
			t.Fatal(err)
		}
		if n := c.DBSize(ctx).Val(); n != want {
			t.Errorf("db %d: DBSIZE %d, want %d", db, n, want)
		}
		for _, e := range entries {
			if e.DB != db {
				continue
			}
			got, err := c.Dump(ctx, e.Key).Result()
			if err != nil {
				t.Errorf("db %d: DUMP %s: %v", db, e.Key, err)
				continue
			}
			if !bytes.Equal([]byte(got), Dump(e.Value)) {
				t.Errorf("db %d: DUMP %s = %q, want %q", db, e.Key, got, Dump(e.Value))
			}
			wantAt := e.ExpireMs
			if wantAt == 0 {
				wantAt = -1
			}
			if ms := c.Do(ctx, "PEXPIRETIME", e.Key).Val(); ms != wantAt {
				t.Errorf("db %d: PEXPIRETIME %s = %v, want %d", db, e.Key, ms, wantAt)
			}
		}
	}
}

// TestFileEmpty: a keyspace with no keys nor libraries is the magic, the aux fields, EOF
// and the checksum, which redis-server loads as an empty dataset.
func TestFileEmpty(t *testing.T) {
	f := File(nil, nil)
	if !bytes.HasPrefix(f, []byte("REDIS0010")) || f[len(f)-9] != opEOF {
		t.Fatalf("File(nil) = %q", f)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), f, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := redistest.Start(t, "dir "+dir, "dbfilename dump.rdb")
	c := srv.Client(t)
	if n := c.DBSize(context.Background()).Val(); n != 0 {
		t.Errorf("DBSIZE %d, want 0", n)
	}
	if v := c.Info(context.Background(), "persistence").Val(); !bytes.Contains([]byte(v), []byte("rdb_last_load_keys_loaded:0")) {
		t.Errorf("INFO persistence: no empty load in %q", v)
	}
}

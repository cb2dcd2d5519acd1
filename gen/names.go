package gen

import (
	"go/token"
	"strings"
)

// initialisms are written in upper case in Go names, as golint and the
// standard library do (UserID, not UserId).
var initialisms = map[string]bool{
	"api": true, "ascii": true, "cpu": true, "db": true, "html": true, "http": true, "id": true,
	"ip": true, "json": true, "rpc": true, "sql": true, "tcp": true, "tls": true, "ttl": true,
	"udp": true, "uri": true, "url": true, "utf8": true, "uuid": true, "xml": true,
}

// exported turns a snake_case header name into an exported Go name.
func exported(snake string) string {
	var b strings.Builder
	for _, part := range strings.Split(snake, "_") {
		if part == "" {
			continue
		}
		if initialisms[part] {
			b.WriteString(strings.ToUpper(part))
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// unexported turns a snake_case header name into an unexported Go name.
func unexported(snake string) string {
	e := exported(snake)
	first := strings.SplitN(snake, "_", 2)[0]
	if initialisms[first] {
		return first + e[len(first):]
	}
	return strings.ToLower(e[:1]) + e[1:]
}

// goFileName is the file for a script: name.go, unless the name ends like a
// test or a build constraint (x_test.go, x_linux.go), which the go tool
// would treat specially.
func goFileName(name string) string {
	parts := strings.Split(name, "_")
	last := parts[len(parts)-1]
	if len(parts) > 1 && (last == "test" || knownOS[last] || knownArch[last]) {
		return name + "_script.go"
	}
	return name + ".go"
}

// The GOOS and GOARCH values of go/build's lists (syslist.go).
var (
	knownOS = set("aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js",
		"linux", "nacl", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos")
	knownArch = set("386", "amd64", "amd64p32", "arm", "armbe", "arm64", "arm64be", "loong64", "mips",
		"mipsle", "mips64", "mips64le", "mips64p32", "mips64p32le", "ppc", "ppc64", "ppc64le", "riscv",
		"riscv64", "s390", "s390x", "sparc", "sparc64", "wasm")
)

func set(s ...string) map[string]bool {
	m := make(map[string]bool, len(s))
	for _, x := range s {
		m[x] = true
	}
	return m
}

// validPackage reports whether pkg can name a Go package.
func validPackage(pkg string) bool {
	return token.IsIdentifier(pkg) && !token.IsKeyword(pkg) && pkg != "_" && pkg != "main"
}

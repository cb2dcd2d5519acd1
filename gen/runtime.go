package gen

import (
	"bytes"
	_ "embed"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/scriptgen/scriptgen/scriptrt"
)

// What a generated package holds besides its scripts is the same in every
// package, so it is a template rather than jennifer code: it reads as the
// Go it renders.
//
//go:embed scripts.go.tmpl
var scriptsTemplate string

var scriptsGo = template.Must(template.New("scripts.go").Parse(scriptsTemplate))

// renderScriptsGo renders scripts.go for package pkg, stamped with the
// scriptrt version this generator writes code for.
func renderScriptsGo(pkg string) ([]byte, error) {
	var b bytes.Buffer
	err := scriptsGo.Execute(&b, struct {
		Package string
		Version int
	}{pkg, scriptrt.GenVersion})
	if err != nil {
		return nil, err
	}
	return format.Source(b.Bytes())
}

// runtimeNames are the package-level names scripts.go and library.go
// declare, which a script's names must not take; methods of Scripts have a
// leading dot.
func runtimeNames(scriptsGo []byte) (map[string]bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "scripts.go", scriptsGo, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{"library": true}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil {
				names["."+d.Name.Name] = true
			} else {
				names[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name != "_" {
							names[n.Name] = true
						}
					}
				}
			}
		}
	}
	return names, nil
}

// stringLit is s as raw string literals, so that the Lua in generated files
// reads as Lua: a run of backquotes, which a raw string cannot hold, is an
// interpreted literal between them. Text that Go source cannot hold raw
// (a carriage return, which the compiler drops from raw strings, a NUL, a
// byte-order mark or invalid UTF-8) is one interpreted literal.
func stringLit(s string) jen.Code {
	if s == "" || strings.ContainsAny(s, "\r\x00\ufeff") || !utf8.ValidString(s) {
		return jen.Lit(s)
	}
	var parts []string
	for s != "" {
		i := strings.IndexByte(s, '`')
		switch {
		case i < 0:
			parts, s = append(parts, "`"+s+"`"), ""
		case i > 0:
			parts, s = append(parts, "`"+s[:i]+"`"), s[i:]
		default:
			n := len(s) - len(strings.TrimLeft(s, "`"))
			parts, s = append(parts, strconv.Quote(s[:n])), s[n:]
		}
	}
	return jen.Op(strings.Join(parts, " + "))
}

// groupImports puts the imports of a file jennifer rendered in the three
// groups goimports makes with -local: the standard library, other modules,
// then scriptgen's own packages.
func groupImports(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var decl *ast.GenDecl
	for _, d := range f.Decls {
		if d, ok := d.(*ast.GenDecl); ok && d.Tok == token.IMPORT {
			decl = d
			break
		}
	}
	if decl == nil || len(decl.Specs) < 2 {
		return format.Source(src)
	}
	var groups [3][]string
	for _, s := range decl.Specs {
		s := s.(*ast.ImportSpec)
		p, err := strconv.Unquote(s.Path.Value)
		if err != nil {
			return nil, err
		}
		line := s.Path.Value
		if s.Name != nil {
			line = s.Name.Name + " " + line
		}
		g := 1
		switch {
		case !strings.Contains(strings.SplitN(p, "/", 2)[0], "."):
			g = 0
		case p == modulePath || strings.HasPrefix(p, modulePath+"/"):
			g = 2
		}
		groups[g] = append(groups[g], "\t"+line+"\n")
	}
	var b bytes.Buffer
	b.WriteString("import (\n")
	sep := ""
	for _, g := range groups {
		if len(g) > 0 {
			b.WriteString(sep + strings.Join(g, ""))
			sep = "\n"
		}
	}
	b.WriteString(")")
	from, to := fset.Position(decl.Pos()).Offset, fset.Position(decl.End()).Offset
	out := append(append(append([]byte(nil), src[:from]...), b.Bytes()...), src[to:]...)
	return format.Source(out)
}

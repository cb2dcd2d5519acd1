package gen

import (
	"bytes"
	_ "embed"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"strings"
	"text/template"

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

// stringLit is a raw string literal where one can hold s, so that the Lua in
// generated files reads as Lua.
func stringLit(s string) jen.Code {
	if !strings.Contains(s, "`") && !strings.Contains(s, "\r") {
		return jen.Op("`" + s + "`")
	}
	return jen.Lit(s)
}

package app_test

import (
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// allowedOutside lists the only packages outside the standard library that
// the domain may import.
var allowedOutside = map[string]bool{"github.com/google/uuid": true}

// TestDomainImports holds the dependency rule of the layout: app's root
// package, the domain, imports the standard library and
// github.com/google/uuid only: nothing of this module (its subfolders are
// adapters that import app, never the reverse) and no other library.
func TestDomainImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string][]string{} // import path → files
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range af.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			imports[p] = append(imports[p], f)
		}
	}
	if len(imports) == 0 {
		t.Fatal("found no imports: is the test running in app/?")
	}
	wd, _ := os.Getwd()
	var bad []string
	for p, fs := range imports {
		if allowedOutside[p] {
			continue
		}
		if pkg, err := build.Import(p, wd, build.FindOnly); err != nil || !pkg.Goroot {
			bad = append(bad, p+" (in "+strings.Join(fs, ", ")+")")
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("package app imports %s: the domain may import only the standard library and github.com/google/uuid; move the code that needs it to an adapter under app/ and give app an interface", b)
	}
}

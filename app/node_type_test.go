package app_test

import (
	"cmp"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"nodedesk/app"
)

// The rule of the node-type table: what differs between node types is a
// row of the table (app/node_type.go) or the code of a runner package
// (app/vpcs, and each future app/<emulator>). Nowhere else does code ask
// "is this node a VPCS?"; it asks the table a question (a column, a method
// of NodeType). Comparing two node types with each other is fine.

// tableFile is the one file of package app that may name node types in a
// comparison.
const tableFile = "node_type.go"

// TestNoNodeTypeTests walks every non-test Go file of the module and fails
// on a comparison (==, !=) or a switch case against a node-type constant
// (app.VPCS, Cloud, ...) or its string ("vpcs") outside the table and the
// runner packages.
func TestNoNodeTypeTests(t *testing.T) {
	names, values := nodeTypeConstants(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("found no go.mod above app/: %v", err)
	}
	pkgs := map[string][]*ast.File{} // folder → its non-test files
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go"):
			return nil
		}
		if rel, _ := filepath.Rel(root, p); slices.ContainsFunc(notNodedesk, func(s string) bool { return strings.HasPrefix(filepath.ToSlash(rel), s) }) {
			return nil // not nodedesk's code of a node type (plugin_test.go)
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkgs[filepath.Dir(p)] = append(pkgs[filepath.Dir(p)], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	appDir := filepath.Join(root, "app")
	if len(pkgs[appDir]) == 0 {
		t.Fatal("found no file of package app")
	}
	// A runner package and the packages inside its folder (its test
	// helpers, app/vpcs/vpcstest) are the type's own.
	var runnerDirs []string
	for dir, files := range pkgs {
		if isRunnerPackage(files) {
			runnerDirs = append(runnerDirs, dir)
		}
	}
	var bad []string
	for dir, files := range pkgs {
		if slices.ContainsFunc(runnerDirs, func(r string) bool { return dir == r || strings.HasPrefix(dir, r+string(filepath.Separator)) }) {
			continue
		}
		for _, f := range files {
			file := fset.Position(f.Pos()).Filename
			if dir == appDir && filepath.Base(file) == tableFile {
				continue
			}
			bad = append(bad, typeTests(fset, f, dir == appDir, names, values)...)
		}
	}
	for i, b := range bad {
		if r, err := filepath.Rel(root, b); err == nil {
			bad[i] = r
		}
	}
	slices.Sort(bad)
	if len(bad) > 0 {
		t.Errorf("node types tested outside the node-type table:\n\t%s\nmake each a column of app/node_type.go's kinds (asked through a NodeType method), or move it into the type's runner package",
			strings.Join(bad, "\n\t"))
	}
}

// TestTypeTestsFound holds the walker to what it must find: every way of
// testing a node type, in package app and outside it, and none of the
// comparisons that are fine.
func TestTypeTestsFound(t *testing.T) {
	names, values := nodeTypeConstants(t)
	for _, tc := range []struct {
		name, src string
		inApp     bool
		want      int
		header    string // the file's package and imports, outside app
	}{
		{"equal, qualified", `if n.Type == app.VPCS {}`, false, 1, ""},
		{"not equal, reversed", `if app.Cloud != n.Type {}`, false, 1, ""},
		{"in app", `if n.Type != VPCS || x {}`, true, 1, ""},
		{"switch case", `switch n.Type { case app.QEMU, app.IOU: }`, false, 2, ""},
		{"tagless switch", `switch { case n.Type == app.NAT: }`, false, 1, ""},
		{"string", `if n.Type == "vpcs" {}`, false, 1, ""},
		{"aliased import", `if n.Type == domain.VPCS {}`, false, 1, "package p\nimport domain \"nodedesk/app\"\n"},
		{"another package's VPCS", `if n.Type == other.VPCS {}`, false, 0, ""},
		{"two types", `if a.Type != b.Type {}`, false, 0, ""},
		{"other constant", `if n.ConsoleType == app.ConsoleNone {}`, false, 0, ""},
		{"a local named VPCS outside app", `if x == VPCS {}`, false, 0, ""},
		{"a use, not a test", `f(app.VPCS); m := map[app.NodeType]int{app.Cloud: 1}; _ = m`, false, 0, ""},
		{"a conversion compared", `if t != string(QEMU) {}`, true, 1, ""},
		{"a conversion compared, qualified", `if s.TemplateType == string(app.QEMU) {}`, false, 1, ""},
		{"a string made a type", `if n.Type == app.NodeType("qemu") {}`, false, 1, ""},
		{"a conversion in a switch", `switch t { case string(app.Docker): }`, false, 1, ""},
		{"contained", `if slices.Contains(ts, app.IOU) {}`, false, 1, ""},
		{"folded", `if strings.EqualFold(name, "dynamips") {}`, false, 1, ""},
		{"a conversion used, not compared", `set("template_type", string(app.QEMU))`, false, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			header := cmp.Or(tc.header, "package p\nimport \"nodedesk/app\"\n")
			src := header + "func f() {\n" + tc.src + "\n}\n"
			if tc.inApp {
				src = "package app\nfunc f() {\n" + tc.src + "\n}\n"
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			if got := typeTests(fset, f, tc.inApp, names, values); len(got) != tc.want {
				t.Errorf("found %d tests of a node type (%v), want %d", len(got), got, tc.want)
			}
		})
	}
}

// nodeTypeConstants reads the names of the NodeType constants from the
// table's file, and checks that they are the table's types.
func nodeTypeConstants(t *testing.T) (names, values map[string]bool) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), tableFile, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	names, values = map[string]bool{}, map[string]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "NodeType" {
				for _, n := range vs.Names {
					names[n.Name] = true
				}
			}
		}
	}
	for _, nt := range app.NodeTypes {
		values[string(nt)] = true
	}
	if len(names) == 0 || len(names) != len(app.NodeTypes) {
		t.Fatalf("found %d NodeType constants in %s for %d types in the table", len(names), tableFile, len(app.NodeTypes))
	}
	return names, values
}

// isRunnerPackage reports whether files are a runner package: one with a
// method Runs(app.NodeType) bool, which implements app.Runner.
func isRunnerPackage(files []*ast.File) bool {
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "Runs" || fn.Type.Params.NumFields() != 1 {
				continue
			}
			if sel, ok := fn.Type.Params.List[0].Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "NodeType" {
				return true
			}
		}
	}
	return false
}

// typeTests lists the places (file:line:col) where f compares a value with
// a node-type constant or switches on one. inApp: f is of package app,
// where the constants are unqualified; elsewhere they are selected from
// the import of nodedesk/app.
func typeTests(fset *token.FileSet, f *ast.File, inApp bool, names, values map[string]bool) []string {
	appName := ""
	for _, is := range f.Imports {
		if p, _ := strconv.Unquote(is.Path.Value); p == "nodedesk/app" {
			appName = "app"
			if is.Name != nil {
				appName = is.Name.Name
			}
		}
	}
	var isType func(e ast.Expr) bool
	isType = func(e ast.Expr) bool {
		switch e := ast.Unparen(e).(type) {
		case *ast.CallExpr: // a conversion, string(QEMU) or NodeType("qemu")
			return len(e.Args) == 1 && isConversion(e.Fun) && isType(e.Args[0])
		case *ast.Ident:
			return inApp && names[e.Name]
		case *ast.SelectorExpr:
			x, ok := e.X.(*ast.Ident)
			return ok && appName != "" && x.Name == appName && names[e.Sel.Name]
		case *ast.BasicLit:
			s, err := strconv.Unquote(e.Value)
			return e.Kind == token.STRING && err == nil && values[s]
		}
		return false
	}
	var found []string
	at := func(n ast.Node) { found = append(found, fset.Position(n.Pos()).String()) }
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && (isType(n.X) || isType(n.Y)) {
				at(n)
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if isType(e) {
					at(e)
				}
			}
		case *ast.CallExpr: // a comparison by function: slices.Contains(ts, QEMU), strings.EqualFold(s, "qemu")
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && comparingFuncs[sel.Sel.Name] && slices.ContainsFunc(n.Args, isType) {
				at(n)
			}
		}
		return true
	})
	return found
}

// comparingFuncs are the functions of the standard library that compare
// their arguments: a node type given to one is a test of it.
var comparingFuncs = map[string]bool{"Contains": true, "ContainsFunc": true, "Index": true, "EqualFold": true,
	"HasPrefix": true, "HasSuffix": true, "Compare": true, "Equal": true}

// isConversion reports whether fun, called with one argument, converts
// it: to string, to a NodeType, or to another named string type.
func isConversion(fun ast.Expr) bool {
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		return f.Name == "string" || f.Name == "NodeType" || f.Name == "ImageKind"
	case *ast.SelectorExpr:
		return f.Sel.Name == "NodeType" || f.Sel.Name == "ImageKind"
	}
	return false
}

package app_test

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// An emulator is a plug-in (decision 0059): outside its own folder
// app/<type>/, its code is named in its row (app/node_type.go), its
// properties file (app/node_properties_<type>.go), the list of runners
// (app/emulators) and, when it has routes of its own, api/emulators.go.
// TestEmulatorNamedInFewFiles holds every emulator nodedesk runs to that:
// at most maxEmulatorFiles non-test Go files outside app/<type>/ whose
// code (not comments; strings count) names it.

const maxEmulatorFiles = 4

// notNodedesk are the programs that name an emulator's program without
// being nodedesk's code of its node type: the benchmark runs GNS3's own
// dynamips as GNS3's Ethernet switch, and an IOU image as GNS3 runs it.
var notNodedesk = []string{"bench/gns3/"}

func TestEmulatorNamedInFewFiles(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var emulators []string // the folders of app/ that are runner packages
	for _, e := range []string{"vpcs", "qemu", "docker", "dynamips", "iou"} {
		if _, err := os.Stat(filepath.Join(root, "app", e, "doc.go")); err == nil {
			emulators = append(emulators, e)
		}
	}
	if len(emulators) < 4 {
		t.Fatalf("found %d runner packages (%v); the walk is looking in the wrong place", len(emulators), emulators)
	}
	code := map[string]string{} // file → its code, lower case, comments left out
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && p != root || slices.Contains([]string{"node_modules", "frontend", "build", "testdata"}, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || slices.ContainsFunc(notNodedesk, func(s string) bool { return strings.HasPrefix(rel, s) }) {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		code[filepath.ToSlash(rel)] = strings.ToLower(withoutComments(src))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range emulators {
		named := regexp.MustCompile(`(^|[^a-z])` + e)
		var files []string
		for f, c := range code {
			if !strings.HasPrefix(f, "app/"+e+"/") && named.MatchString(c) {
				files = append(files, f)
			}
		}
		slices.Sort(files)
		if len(files) > maxEmulatorFiles {
			t.Errorf("%s is named in %d files outside app/%s/ (at most %d): %s\nits rules go in its row, its properties file or its runner package",
				e, len(files), e, maxEmulatorFiles, strings.Join(files, ", "))
		}
	}
}

// withoutComments is a Go file's tokens, comments left out.
func withoutComments(src []byte) string {
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", fset.Base(), len(src)), src, nil, 0)
	var b strings.Builder
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return b.String()
		}
		if lit == "" {
			lit = tok.String()
		}
		b.WriteString(lit)
		b.WriteByte(' ')
	}
}

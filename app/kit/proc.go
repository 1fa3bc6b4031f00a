package kit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ProcState is the state letter of /proc/<pid>/stat (R, S, T, Z, ...), or
// "" if there is no such process.
func ProcState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}

// ModuleRoot is the nearest folder at or above dir that holds go.mod:
// where build/ (the test guest, Dynamips) and scripts/ are.
func ModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", errors.New("no go.mod at or above " + dir + ": run the tests inside the nodedesk module")
		}
		d = up
	}
}

// SharedFile is the path of a file of the shared folder's sub-folder
// (fake-ios, fake-iol: free stand-in images for tests): in the folder
// $env names (make test sets it), else in the shared folder beside the
// repository's checkout (../shared). The test fails, saying where it
// looked and what to set, if it is in neither.
func SharedFile(tb testing.TB, env, sub, name string) string {
	tb.Helper()
	var dirs []string
	if d := os.Getenv(env); d != "" {
		dirs = append(dirs, d)
	}
	if wd, err := os.Getwd(); err == nil {
		if root, err := ModuleRoot(wd); err == nil {
			dirs = append(dirs, filepath.Join(root, "..", "shared", sub))
		}
	}
	for _, d := range dirs {
		if fi, err := os.Stat(filepath.Join(d, name)); err == nil && !fi.IsDir() {
			return filepath.Join(d, name)
		}
	}
	tb.Fatalf("the stand-in %s is in none of %v: set %s to the %s folder (make test sets it from SHARED=<the shared folder>, ../shared by default)", name, dirs, env, sub)
	return ""
}

package kit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

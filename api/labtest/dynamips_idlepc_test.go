package labtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"nodedesk/app/dynamips/dynamipstest"
	"nodedesk/app/kit"
)

// TestDynamips_ImageIdlePC: the GNS3 GUI's IOS router wizard asks for an
// image's idle-PC value before any router runs it
// (POST /v2/computes/local/auto_idlepc). nodedesk boots the image in a
// project of its own, finds a value, and leaves neither the project nor
// a dynamips process behind; a missing image is named, a body without
// its keys refused.
func TestDynamips_ImageIdlePC(t *testing.T) {
	l := Start(t, with(dynamipstest.Emulator))
	ios := filepath.Join(l.GNS3Images, "IOS")
	if err := os.MkdirAll(ios, 0o755); err != nil {
		t.Fatal(err)
	}
	image, err := os.ReadFile(dynamipstest.FakeIOS(t, "c7200"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ios, "c7200-wizard.image"), image, 0o644); err != nil {
		t.Fatal(err)
	}

	got := l.Do("POST", "/v2/computes/local/auto_idlepc", map[string]any{"platform": "c7200", "image": "c7200-wizard.image", "ram": 256}).Want(t, 200).JSON(t)
	if v, _ := got["idlepc"].(string); !regexp.MustCompile(`^0x[0-9a-f]{8}$`).MatchString(v) {
		t.Errorf("idlepc %v, want an 8-digit value as the GUI's wizard takes", got["idlepc"])
	}
	for _, p := range l.Do("GET", "/v2/projects", nil).Want(t, 200).List(t) {
		if p["name"] == "AUTOIDLEPC" {
			t.Errorf("the search's project is left: %v", p)
		}
	}
	if pids := dynamipsUnder(filepath.Dir(l.Store.Path())); len(pids) > 0 {
		t.Errorf("dynamips %v still runs after the search", pids)
	}

	e := l.Do("POST", "/v2/computes/local/auto_idlepc", map[string]any{"platform": "c7200", "image": "c7200-absent.image", "ram": 256}).Want(t, 409).JSON(t)
	if !strings.Contains(e["message"].(string), "c7200-absent.image") {
		t.Errorf("a missing image's error does not name it: %v", e["message"])
	}
	l.Do("POST", "/v2/computes/local/auto_idlepc", map[string]any{"platform": "c7200", "ram": 256}).Want(t, 400)
}

// dynamipsUnder lists the live dynamips processes working in a folder
// under dir.
func dynamipsUnder(dir string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cwd, err := os.Readlink(filepath.Join(p, "cwd"))
		exe, _ := os.Readlink(filepath.Join(p, "exe"))
		if err != nil || filepath.Base(exe) != "dynamips" || !strings.HasPrefix(cwd, dir+string(filepath.Separator)) {
			continue
		}
		var pid int
		for _, c := range filepath.Base(p) {
			pid = pid*10 + int(c-'0')
		}
		if st := kit.ProcState(pid); st != "Z" && st != "" {
			pids = append(pids, pid)
		}
	}
	return pids
}

package kit

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// MustHaveVPCS fails the test unless the vpcs simulator is installed.
func MustHaveVPCS(t testing.TB) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/vpcs"); err != nil {
		t.Fatal("the vpcs simulator is not installed: run `make test` (it installs it) or `sudo apt-get install vpcs`")
	}
}

// VPCSPID is the pid of a vpcs process working in dir (a zombie too), or
// 0.
func VPCSPID(dir string) int {
	if pids := vpcsPIDs(dir); len(pids) > 0 {
		return pids[0]
	}
	return 0
}

// LiveVPCSPID is VPCSPID not counting zombies: a process of a nodedesk
// that was killed is reaped by whoever inherits it, which may be late.
func LiveVPCSPID(dir string) int {
	for _, pid := range vpcsPIDs(dir) {
		if ProcState(pid) != "Z" {
			return pid
		}
	}
	return 0
}

// vpcsPIDs lists the vpcs processes working in dir.
func vpcsPIDs(dir string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			if exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); strings.HasSuffix(exe, "vpcs") {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

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

// Host is one started VPCS with its console open.
type Host struct {
	ID   string
	Name string
	IP   string
	Con  *Console
}

// StartHost creates and starts a VPCS named name with address ip/24, and
// opens its console at the prompt.
func (a *API) StartHost(t testing.TB, pid, name, ip string) *Host {
	t.Helper()
	n := a.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": name,
		"properties": map[string]any{"startup_script": fmt.Sprintf("set pcname %s\nip %s/24\n", name, ip)}})
	a.Do("POST", "/v2/projects/"+pid+"/nodes/"+n["node_id"].(string)+"/start", nil).Want(t, 200)
	c := DialConsole(t, "127.0.0.1", int(n["console"].(float64)))
	if !c.Expect(name+">", true, 15*time.Second) {
		t.Fatalf("%s: no prompt: %q", name, c.Seen.String())
	}
	return &Host{ID: n["node_id"].(string), Name: name, IP: ip, Con: c}
}

// Pings reports whether h gets ICMP echo replies from ip within limit.
func (h *Host) Pings(ip string, limit time.Duration) bool {
	h.Con.t.Helper()
	if !h.Con.Run("ping "+ip+" -c 2", "ttl=", limit) { // a reply: "icmp_seq=1 ttl=64 time=0.3 ms"
		return false
	}
	h.Con.Expect(h.Name+">", false, 5*time.Second) // the last reply, so none is read as the next command's
	return true
}

// Silent reports whether h gets no reply from ip in two tries.
func (h *Host) Silent(ip string) bool {
	h.Con.t.Helper()
	h.Con.Drain()
	h.Con.Send("ping " + ip + " -c 2")
	return !h.Con.Expect("ttl=", false, 5*time.Second) // a loss reads "icmp_seq=1 timeout"
}

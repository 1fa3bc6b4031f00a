package kit

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

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
	return a.StartHostVia(t, pid, name, ip, "")
}

// StartHostVia is StartHost with gateway gw as the host's default route
// ("": none).
func (a *API) StartHostVia(t testing.TB, pid, name, ip, gw string) *Host {
	t.Helper()
	n := a.MustCreateNode(pid, map[string]any{"node_type": "vpcs", "name": name,
		"properties": map[string]any{"startup_script": strings.TrimSpace(fmt.Sprintf("set pcname %s\nip %s/24 %s", name, ip, gw)) + "\n"}})
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

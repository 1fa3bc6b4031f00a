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

// Silent reports whether h's ping of ip (two tries) ran and got no
// reply. VPCS must give its verdict on the last try (a timeout, or no
// route or ARP answer), so a ping VPCS dropped while busy, or one still
// waiting, is never taken for silence; no verdict fails the test.
func (h *Host) Silent(ip string) bool {
	h.Con.t.Helper()
	h.Con.Drain()
	out, end := h.Con.RunToEnd("ping "+ip+" -c 2", []string{
		"icmp_seq=2 ttl=",                 // a reply to the last try: "84 bytes from … icmp_seq=2 ttl=64"
		"icmp_seq=2 timeout",              // no reply to it: "10.0.0.2 icmp_seq=2 timeout"
		"host (" + ip + ") not reachable", // no ARP answer
		"No gateway found",                // off-link without a default route
		"Destination host unreachable",    // a router said so
	}, 15*time.Second)
	if end == "" {
		h.Con.t.Fatalf("%s: VPCS gave no verdict on ping %s within 15 s (dropped or still running): %q", h.Name, ip, Printable(out))
	}
	// The rest up to the prompt, kept in Seen, so none is read as the
	// next command's.
	h.Con.readUntil(func(seen string) bool { return strings.HasSuffix(strings.TrimRight(seen, " \r\n"), h.Name+">") }, false, time.Now().Add(5*time.Second))
	return !strings.Contains(out, "ttl=")
}

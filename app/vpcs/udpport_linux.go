package vpcs

import (
	"fmt"
	"os"
	"strings"
)

// udpSockets is the set of sockets ("socket:[inode]", as /proc/PID/fd
// links read) bound to a UDP port on any address of this machine's
// network namespace, IPv4 or IPv6.
func udpSockets(port int) map[string]bool {
	out := map[string]bool{}
	suffix := fmt.Sprintf(":%04X", port)
	for _, f := range []string{"/proc/net/udp", "/proc/net/udp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		lines := strings.Split(string(b), "\n")
		for _, l := range lines[1:] { // the first is the heading
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
			fs := strings.Fields(l)
			if len(fs) > 9 && strings.HasSuffix(fs[1], suffix) {
				out["socket:["+fs[9]+"]"] = true
			}
		}
	}
	return out
}

// holdsUDP reports whether process pid has a socket bound to UDP port;
// known is false where that cannot be read (no /proc).
func holdsUDP(pid, port int) (held, known bool) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return false, false
	}
	socks := udpSockets(port)
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && socks[l] {
			return true, true
		}
	}
	return false, true
}

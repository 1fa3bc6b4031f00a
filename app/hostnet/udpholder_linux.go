package hostnet

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// UDPHolder names the processes of this machine that hold UDP port on
// any address, IPv4 or IPv6, as "pid N (name)", comma-separated: found
// by the socket inodes of /proc/net/udp{,6} in the links of /proc/*/fd.
// It is "" when none can be seen (a process of another user, or of
// another network namespace).
func UDPHolder(port int) string {
	socks := UDPSockets(port)
	if len(socks) == 0 {
		return ""
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	var out []string
	for _, dir := range procs {
		pid, err := strconv.Atoi(filepath.Base(dir))
		if err != nil {
			continue
		}
		fds, _ := os.ReadDir(dir + "/fd")
		for _, fd := range fds {
			if l, err := os.Readlink(dir + "/fd/" + fd.Name()); err == nil && socks[l] {
				comm, _ := os.ReadFile(dir + "/comm")
				out = append(out, fmt.Sprintf("pid %d (%s)", pid, strings.TrimSpace(string(comm))))
				break
			}
		}
	}
	return strings.Join(out, ", ")
}

// UDPSockets is the set of sockets ("socket:[inode]", as /proc/PID/fd
// links read) bound to UDP port on any address of this machine's network
// namespace, IPv4 or IPv6.
func UDPSockets(port int) map[string]bool {
	socks := map[string]bool{}
	eachUDPSocket(func(p int, sock string) {
		if p == port {
			socks[sock] = true
		}
	})
	return socks
}

// OwnUDPPorts lists the UDP ports from lo to hi (both included) that
// sockets of this process are bound to, in increasing order.
func OwnUDPPorts(lo, hi int) []int {
	own := map[string]bool{}
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if l, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil {
			own[l] = true
		}
	}
	seen := map[int]bool{}
	eachUDPSocket(func(port int, sock string) {
		if own[sock] && port >= lo && port <= hi {
			seen[port] = true
		}
	})
	var out []int
	for p := range seen {
		out = append(out, p)
	}
	sort.Ints(out)
	return out
}

// eachUDPSocket calls fn with the local port and the socket ("socket:[inode]")
// of each UDP socket of /proc/net/udp and udp6 (this network namespace's).
func eachUDPSocket(fn func(port int, sock string)) {
	for _, f := range []string{"/proc/net/udp", "/proc/net/udp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n")[1:] { // the first is the heading
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
			fs := strings.Fields(l)
			if len(fs) <= 9 {
				continue
			}
			i := strings.LastIndexByte(fs[1], ':')
			if port, err := strconv.ParseUint(fs[1][i+1:], 16, 16); err == nil {
				fn(int(port), "socket:["+fs[9]+"]")
			}
		}
	}
}

package vpcs

import (
	"fmt"
	"nodedesk/app/hostnet"
	"os"
)

// holdsUDP reports whether process pid has a socket bound to UDP port;
// known is false where that cannot be read (no /proc).
func holdsUDP(pid, port int) (held, known bool) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return false, false
	}
	socks := hostnet.UDPSockets(port)
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && socks[l] {
			return true, true
		}
	}
	return false, true
}

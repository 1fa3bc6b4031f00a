//go:build !linux

package hostnet

// UDPHolder names the processes that hold UDP port; without /proc, none
// can be seen: "".
func UDPHolder(port int) string { return "" }

// OwnUDPPorts lists the UDP ports from lo to hi this process is bound to;
// without /proc, none can be seen.
func OwnUDPPorts(lo, hi int) []int { return nil }

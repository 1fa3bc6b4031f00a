//go:build !linux

package hostnet

// UDPHolder names the processes that hold UDP port; without /proc, none
// can be seen: "".
func UDPHolder(port int) string { return "" }

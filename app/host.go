package app

import (
	"net"
	"strconv"
	"strings"
)

// SystemInterfaces lists this machine's network interfaces as a cloud node
// shows them: loopback is "special", tap devices are of type tap.
func SystemInterfaces() []HostInterface {
	ifaces, err := net.Interfaces()
	if err != nil {
		return []HostInterface{}
	}
	out := make([]HostInterface, 0, len(ifaces))
	for _, i := range ifaces {
		out = append(out, hostInterfaceOf(i))
	}
	return out
}

// hostInterfaceOf is the one rule of an interface's type and specialness:
// loopback is special, a tap device is of type tap.
func hostInterfaceOf(i net.Interface) HostInterface {
	t := "ethernet"
	if strings.HasPrefix(i.Name, "tap") {
		t = "tap"
	}
	return HostInterface{Name: i.Name, Special: i.Flags&net.FlagLoopback != 0, Type: t}
}

// TestBind reports whether a port is free on this machine by binding it
// for a moment, as GNS3 does when it allocates: a TCP console port on
// consoleHost (where consoles listen), a UDP link port on 127.0.0.1 (where
// nodes and the data plane exchange frames).
func TestBind(consoleHost string) func(network string, port int) bool {
	return func(network string, port int) bool {
		switch network {
		case "tcp":
			ln, err := net.Listen("tcp", net.JoinHostPort(consoleHost, strconv.Itoa(port)))
			if err != nil {
				return false
			}
			_ = ln.Close()
		case "udp":
			c, err := net.ListenPacket("udp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err != nil {
				return false
			}
			_ = c.Close()
		}
		return true
	}
}

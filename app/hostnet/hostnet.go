// Package hostnet is this machine's network as the Service asks about it:
// its interfaces (for new clouds and for a GNS3 controller that looks at
// this compute) and whether a port is free (for console and UDP port
// allocation). main.go gives its functions to app.Config; package app
// keeps the rules (which interface is special, of type tap) and never
// probes the machine itself.
package hostnet

import (
	"net"
	"slices"
	"strconv"
	"strings"

	"nodedesk/app"
)

// Interfaces lists this machine's network interfaces as a cloud node shows
// them (app.Config.HostInterfaces).
func Interfaces() []app.HostInterface {
	ifaces, err := net.Interfaces()
	if err != nil {
		return []app.HostInterface{}
	}
	out := make([]app.HostInterface, 0, len(ifaces))
	for _, i := range ifaces {
		out = append(out, app.HostInterfaceOf(i.Name, i.Flags&net.FlagLoopback != 0))
	}
	return out
}

// NetworkInterfaces lists this machine's interfaces, sorted by name, with
// their first IPv4 address, as a GNS3 compute describes them
// (app.Config.NetworkInterfaces).
func NetworkInterfaces() []app.NetworkInterface {
	ifaces, err := net.Interfaces()
	if err != nil {
		return []app.NetworkInterface{}
	}
	out := make([]app.NetworkInterface, 0, len(ifaces))
	for _, i := range ifaces {
		h := app.HostInterfaceOf(i.Name, i.Flags&net.FlagLoopback != 0)
		n := app.NetworkInterface{ID: i.Name, Name: i.Name, MACAddress: i.HardwareAddr.String(), Type: h.Type, Special: h.Special}
		addrs, _ := i.Addrs()
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil {
				n.IPAddress, n.Netmask = ipn.IP.String(), net.IP(ipn.Mask).String()
				break
			}
		}
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b app.NetworkInterface) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// PortFree reports whether a port is free on this machine by binding it
// for a moment, as GNS3 does when it allocates (app.Config.PortFree): a
// TCP console port on consoleHost (where consoles listen), a UDP link port
// on every address. Nodes and the data plane exchange frames on 127.0.0.1,
// but VPCS binds its port on every address, which fails when any address
// of this machine has the port taken: a port free on 127.0.0.1 alone would
// give VPCS a link it cannot hear.
func PortFree(consoleHost string) func(network string, port int) bool {
	return func(network string, port int) bool {
		switch network {
		case "tcp":
			ln, err := net.Listen("tcp", net.JoinHostPort(consoleHost, strconv.Itoa(port)))
			if err != nil {
				return false
			}
			_ = ln.Close()
		case "udp":
			c, err := net.ListenPacket("udp", ":"+strconv.Itoa(port))
			if err != nil {
				return false
			}
			_ = c.Close()
		}
		return true
	}
}

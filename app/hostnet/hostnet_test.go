package hostnet_test

import (
	"net"
	"runtime"
	"testing"

	"nodedesk/app/hostnet"
)

func TestPortFree(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	free := hostnet.PortFree("127.0.0.1")
	if free("tcp", port) {
		t.Error("a port with a listener reads as free")
	}
	ln.Close()
	if !free("tcp", port) {
		t.Error("a closed port reads as taken")
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if free("udp", pc.LocalAddr().(*net.UDPAddr).Port) {
		t.Error("a bound UDP port reads as free")
	}
}

// TestPortFree_UDPOnAnotherAddress: a UDP port another program holds on
// an address other than 127.0.0.1 is taken, since VPCS binds its link
// port on every address and would not get it.
func TestPortFree_UDPOnAnotherAddress(t *testing.T) {
	var addr net.IP
	ifaces, _ := net.InterfaceAddrs()
	for _, a := range ifaces {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() {
			addr = ipn.IP
			break
		}
	}
	if addr == nil {
		addr = net.IPv4(127, 0, 0, 2) // all of 127/8 is this machine's, and not 127.0.0.1
	}
	pc, err := net.ListenPacket("udp", net.JoinHostPort(addr.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if hostnet.PortFree("127.0.0.1")("udp", pc.LocalAddr().(*net.UDPAddr).Port) {
		t.Errorf("a UDP port held on %s reads as free", addr)
	}
}

// TestInterfaces: loopback is listed, special, as the cloud's rule says.
func TestInterfaces(t *testing.T) {
	var lo bool
	for _, i := range hostnet.Interfaces() {
		if i.Name == "lo" {
			lo = i.Special && i.Type == "ethernet"
		}
	}
	if !lo {
		t.Errorf("interfaces %v: want lo, special, of type ethernet", hostnet.Interfaces())
	}
	nis := hostnet.NetworkInterfaces()
	for i, n := range nis {
		if n.Name == "lo" && (n.IPAddress != "127.0.0.1" || n.Netmask != "255.0.0.0" || !n.Special) {
			t.Errorf("lo = %+v; want 127.0.0.1/255.0.0.0, special", n)
		}
		if i > 0 && nis[i-1].Name > n.Name {
			t.Errorf("network interfaces not sorted by name: %s before %s", nis[i-1].Name, n.Name)
		}
	}
}

// TestOwnUDPPorts: the lab tests' guard sees a port this process binds,
// and no longer once it is closed.
func TestOwnUDPPorts(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("SKIP: sockets are read from /proc (Linux)")
	}
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := c.LocalAddr().(*net.UDPAddr).Port
	if got := hostnet.OwnUDPPorts(port, port); len(got) != 1 || got[0] != port {
		t.Fatalf("OwnUDPPorts(%d, %d) = %v while bound", port, port, got)
	}
	c.Close()
	if got := hostnet.OwnUDPPorts(port, port); len(got) != 0 {
		t.Fatalf("OwnUDPPorts(%d, %d) = %v once closed", port, port, got)
	}
}

package natgw

import (
	"crypto/sha256"
	"encoding/binary"
	"net"

	"github.com/containers/gvisor-tap-vsock/pkg/tap"
	"github.com/insomniacslk/dhcp/dhcpv4"
	"github.com/insomniacslk/dhcp/iana"
	"gvisor.dev/gvisor/pkg/tcpip/header"
)

// Leases that survive a restart, without storing them: gvisor-tap-vsock's
// pool hands out the first free address, so a restarted gateway (nodedesk
// restarted, the NAT node re-created) would give the lab's hosts their
// addresses in a new order. Before a client's first DHCP message reaches
// the server, the gateway reserves it an address: the one it asks for
// (option 50, as a client that had a lease asks again), if free; else one
// picked by a hash of its MAC (as dnsmasq picks them), the next free one
// after it if taken. A host thus gets the same address after a restart.

// firstHost and lastHost bound the addresses leased: .2–.254.
const firstHost, lastHost = 2, 254

// leasable says whether host n of Subnet may be leased: one of .2–.254
// but .224–.239. VPCS 0.5b2 (Debian's vpcs package, which nodedesk runs)
// drops every UDP datagram sent to it when its own address ends in
// 224–239: it tests the address for multicast in network byte order
// (upv4, src/packets.c), so its UDP pings through the gateway would all
// time out. GNS3's later VPCS builds test it right; no lab loses anything
// by the 16 addresses skipped.
func leasable(n int) bool { return n >= firstHost && n <= lastHost && (n < 224 || n > 239) }

// leaseNet is the network part of Subnet (a /24), whose hosts are leased.
var leaseNet = func() net.IP {
	_, n, err := net.ParseCIDR(Subnet)
	if err != nil {
		panic(err)
	}
	return n.IP.To4()
}()

// hostAddr is host n of Subnet.
func hostAddr(n int) net.IP { return net.IPv4(leaseNet[0], leaseNet[1], leaseNet[2], byte(n)) }

// reserveLease reserves, in pool, the address of the DHCP client whose
// request f (a frame of the lab) is, if it has none yet.
func reserveLease(pool *tap.IPPool, f []byte) {
	const eth = header.EthernetMinimumSize
	if len(f) < eth+header.IPv4MinimumSize || header.Ethernet(f).Type() != header.IPv4ProtocolNumber {
		return
	}
	ip := header.IPv4(f[eth:])
	if !ip.IsValid(len(f)-eth) || ip.TransportProtocol() != header.UDPProtocolNumber || ip.More() || ip.FragmentOffset() != 0 {
		return
	}
	hl, tl := int(ip.HeaderLength()), int(ip.TotalLength())
	if tl < hl+header.UDPMinimumSize {
		return
	}
	u := header.UDP(f[eth+hl : eth+tl])
	if u.DestinationPort() != 67 {
		return
	}
	// A BOOTREQUEST of an Ethernet client (the parser checks DHCP's magic
	// cookie).
	m, err := dhcpv4.FromBytes(u[header.UDPMinimumSize:])
	if err != nil || m.OpCode != dhcpv4.OpcodeBootRequest || m.HWType != iana.HWTypeEthernet || len(m.ClientHWAddr) != 6 {
		return
	}
	mac := m.ClientHWAddr.String()
	leases := pool.Leases()
	for _, l := range leases {
		if l == mac {
			return
		}
	}
	free := func(n int) bool {
		_, taken := leases[hostAddr(n).String()]
		return leasable(n) && !taken
	}
	if req := m.RequestedIPAddress().To4(); req != nil && req.Mask(net.CIDRMask(24, 32)).Equal(leaseNet) && free(int(req[3])) {
		pool.Reserve(req, mac)
		return
	}
	h := sha256.Sum256([]byte(mac))
	span := lastHost - firstHost + 1
	start := int(binary.BigEndian.Uint32(h[:]) % uint32(span))
	for i := range span {
		if n := firstHost + (start+i)%span; free(n) {
			pool.Reserve(hostAddr(n), mac)
			return
		}
	}
	// Full: the server answers as it can.
}

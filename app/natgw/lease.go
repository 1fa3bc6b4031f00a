package natgw

import (
	"crypto/sha256"
	"encoding/binary"
	"net"

	"github.com/containers/gvisor-tap-vsock/pkg/tap"
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
	if tl < hl+header.UDPMinimumSize+240 {
		return
	}
	u := header.UDP(f[eth+hl : eth+tl])
	d := []byte(u[header.UDPMinimumSize:])
	// A BOOTREQUEST of an Ethernet client, with DHCP's magic cookie.
	if u.DestinationPort() != 67 || d[0] != 1 || d[1] != 1 || d[2] != 6 || binary.BigEndian.Uint32(d[236:]) != 0x63825363 {
		return
	}
	mac := net.HardwareAddr(d[28:34]).String()
	leases := pool.Leases()
	for _, m := range leases {
		if m == mac {
			return
		}
	}
	free := func(n int) bool {
		_, taken := leases[net.IPv4(192, 168, 122, byte(n)).String()]
		return n >= firstHost && n <= lastHost && !taken
	}
	if req := requested(d[240:]); req != nil && req[0] == 192 && req[1] == 168 && req[2] == 122 && free(int(req[3])) {
		pool.Reserve(req, mac)
		return
	}
	h := sha256.Sum256([]byte(mac))
	span := lastHost - firstHost + 1
	start := int(binary.BigEndian.Uint32(h[:]) % uint32(span))
	for i := range span {
		if n := firstHost + (start+i)%span; free(n) {
			pool.Reserve(net.IPv4(192, 168, 122, byte(n)), mac)
			return
		}
	}
	// Full: the server answers as it can.
}

// requested is the address a DHCP message's options ask for (option 50),
// or nil.
func requested(opts []byte) net.IP {
	for i := 0; i < len(opts); {
		switch code := opts[i]; code {
		case 0: // pad
			i++
			continue
		case 255: // end
			return nil
		}
		if i+1 >= len(opts) || i+2+int(opts[i+1]) > len(opts) {
			return nil
		}
		if opts[i] == 50 && opts[i+1] == 4 {
			return net.IPv4(opts[i+2], opts[i+3], opts[i+4], opts[i+5]).To4()
		}
		i += 2 + int(opts[i+1])
	}
	return nil
}

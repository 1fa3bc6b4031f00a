package natgw

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/net/icmp"
	"golang.org/x/net/ipv4"
	"gvisor.dev/gvisor/pkg/tcpip"
	csum "gvisor.dev/gvisor/pkg/tcpip/checksum"
	"gvisor.dev/gvisor/pkg/tcpip/header"
)

// Outbound ICMP echo: gvisor-tap-vsock v0.8.9 has no ICMP forwarder, and
// the pinned gVisor, spoofing and promiscuous, would itself answer an echo
// to any address — a reply from a host that may not exist. So the echo
// requests a lab sends beyond the gateway never reach the stack: the
// gateway pings their destination from a host socket of this process and
// sends the lab the real reply, with the addresses, ident and sequence the
// lab used. An echo to the gateway's own address is the stack's, which
// answers it once.

const (
	// maxPings bounds the echoes in flight per gateway; more are dropped.
	maxPings = 64
	// pingWait bounds the wait for one echo's reply.
	pingWait = 5 * time.Second
)

// icmpNetworks are the host sockets an echo is tried on, in order: an
// unprivileged ICMP socket ("ping socket": net.ipv4.ping_group_range must
// include the process's group, even for root), then a raw socket
// (CAP_NET_RAW). Tests narrow it.
var icmpNetworks = []string{"udp4", "ip4:icmp"}

// echo is an echo request of the lab, bound beyond the gateway.
type echo struct {
	srcMAC   tcpip.LinkAddress
	src, dst tcpip.Address
	ident    uint16
	seq      uint16
	data     []byte
}

// pinger carries a gateway's outbound echoes.
type pinger struct {
	g      *Gateway
	log    *slog.Logger
	slots  chan struct{} // one per echo in flight
	warned atomic.Bool
}

// echoBeyond tells whether frame, to the gateway's MAC, is an IPv4 echo
// request the stack must not see: one to an address beyond the gateway,
// which the pinger forwards (if it has room), or one to another lab
// address or the host's loopback, which is dropped. Echoes to the
// gateway, broadcasts and multicasts are left to the stack.
func (p *pinger) echoBeyond(f []byte) bool {
	const eth = header.EthernetMinimumSize
	if len(f) < eth+header.IPv4MinimumSize || header.Ethernet(f).Type() != header.IPv4ProtocolNumber {
		return false
	}
	ip := header.IPv4(f[eth:])
	if !ip.IsValid(len(f)-eth) || ip.TransportProtocol() != header.ICMPv4ProtocolNumber {
		return false
	}
	hl, tl := int(ip.HeaderLength()), int(ip.TotalLength())
	if ip.More() || ip.FragmentOffset() != 0 || tl < hl+header.ICMPv4MinimumSize {
		return false // fragments: the stack reassembles, and answers
	}
	m := header.ICMPv4(f[eth+hl : eth+tl])
	if m.Type() != header.ICMPv4Echo || m.Code() != 0 {
		return false
	}
	dst := ip.DestinationAddress()
	switch {
	case dst == p.g.gw, dst == header.IPv4Broadcast, dst == p.g.subnet.Broadcast(), header.IsV4MulticastAddress(dst):
		return false
	case p.g.subnet.Contains(dst), martian(dst):
		return true // not the host's to answer: dropped, as the stack would answer it falsely
	}
	if !ip.IsChecksumValid() || csum.Checksum(m, 0) != 0xffff {
		return true // corrupt: dropped
	}
	select {
	case p.slots <- struct{}{}:
	default:
		return true // too many in flight: dropped
	}
	e := &echo{srcMAC: header.Ethernet(f).SourceAddress(), src: ip.SourceAddress(), dst: dst,
		ident: m.Ident(), seq: m.Sequence(), data: append([]byte(nil), m.Payload()...)}
	p.g.wg.Add(1)
	go func() {
		defer p.g.wg.Done()
		defer func() { <-p.slots }()
		p.forward(e)
	}()
	return true
}

// martian tells whether dst is an address no packet of the lab may reach
// on the host: its loopback or "this network" (0.0.0.0/8).
func martian(dst tcpip.Address) bool {
	b := dst.As4()
	return b[0] == 127 || b[0] == 0
}

// forward pings e's destination from the host and hands the lab the reply,
// if one comes within pingWait and before the gateway closes.
func (p *pinger) forward(e *echo) {
	conn, raw, err := listenICMP()
	if err != nil {
		p.warn(err)
		return
	}
	defer conn.Close()
	stop := context.AfterFunc(p.g.ctx, func() { conn.Close() })
	defer stop()

	to := net.IP(e.dst.AsSlice())
	var addr net.Addr = &net.UDPAddr{IP: to}
	if raw {
		addr = &net.IPAddr{IP: to}
	}
	req, err := (&icmp.Message{Type: ipv4.ICMPTypeEcho, Body: &icmp.Echo{ID: int(e.ident), Seq: int(e.seq), Data: e.data}}).Marshal(nil)
	if err != nil {
		return
	}
	if _, err := conn.WriteTo(req, addr); err != nil {
		return // no route on the host, for one: no reply, as from a lost packet
	}
	_ = conn.SetReadDeadline(time.Now().Add(pingWait))
	buf := make([]byte, 64<<10)
	for {
		n, from, err := conn.ReadFrom(buf)
		if err != nil {
			return // deadline, or the gateway closed
		}
		b := buf[:n]
		if raw { // a raw socket reads the IP header too, and every ICMP message of the host
			if n < header.IPv4MinimumSize || int(header.IPv4(b).HeaderLength()) > n {
				continue
			}
			b = b[header.IPv4(b).HeaderLength():]
		}
		if !sameIP(from, to) || len(b) < header.ICMPv4MinimumSize {
			continue
		}
		m := header.ICMPv4(b)
		// A ping socket's echo carries the socket's ident, and the kernel
		// gives it only its own replies; a raw socket keeps the lab's.
		if m.Type() != header.ICMPv4EchoReply || m.Sequence() != e.seq || (raw && m.Ident() != e.ident) {
			continue
		}
		p.reply(e, m.Payload())
		return
	}
}

// sameIP tells whether a socket's peer address is ip.
func sameIP(a net.Addr, ip net.IP) bool {
	switch a := a.(type) {
	case *net.UDPAddr:
		return a.IP.Equal(ip)
	case *net.IPAddr:
		return a.IP.Equal(ip)
	}
	return false
}

// listenICMP opens the first host ICMP socket of icmpNetworks this process
// may open; raw tells whether it is a raw one.
func listenICMP() (c *icmp.PacketConn, raw bool, err error) {
	errs := []error{}
	for _, n := range icmpNetworks {
		c, err := icmp.ListenPacket(n, "0.0.0.0")
		if err == nil {
			return c, n == "ip4:icmp", nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		errs = append(errs, errors.New("no ICMP socket allowed"))
	}
	return nil, false, errors.Join(errs...)
}

// warn logs, once per gateway, that its lab's pings beyond the gateway are
// dropped, and how to allow them.
func (p *pinger) warn(err error) {
	if p.warned.Swap(true) || p.log == nil {
		return
	}
	exe, e := os.Executable()
	if e != nil {
		exe = "/path/to/nodedesk"
	}
	p.log.Warn("natgw: the NAT node cannot ping beyond its gateway, so the lab's pings to the host's network get no reply "+
		"(pings of the gateway itself, TCP, UDP, DHCP and DNS work). Allow unprivileged ICMP sockets with: "+
		`sudo sysctl -w net.ipv4.ping_group_range="0 2147483647"`+" — or grant raw sockets with: sudo setcap cap_net_raw,cap_net_admin+ep "+exe,
		"node", p.g.nodeID, "err", err)
}

// reply sends the lab the echo reply to e, from e's destination, with the
// host's reply's data.
func (p *pinger) reply(e *echo, data []byte) {
	const eth, iph = header.EthernetMinimumSize, header.IPv4MinimumSize
	n := eth + iph + header.ICMPv4MinimumSize + len(data)
	if n > eth+MTU {
		return
	}
	f := make([]byte, n)
	header.Ethernet(f).Encode(&header.EthernetFields{SrcAddr: p.g.mac, DstAddr: e.srcMAC, Type: header.IPv4ProtocolNumber})
	ip := header.IPv4(f[eth:])
	ip.Encode(&header.IPv4Fields{TotalLength: uint16(n - eth), ID: uint16(p.g.ipID.Add(1)), TTL: 64,
		Protocol: uint8(header.ICMPv4ProtocolNumber), SrcAddr: e.dst, DstAddr: e.src})
	ip.SetChecksum(^ip.CalculateChecksum())
	m := header.ICMPv4(f[eth+iph:])
	m.SetType(header.ICMPv4EchoReply)
	m.SetIdent(e.ident)
	m.SetSequence(e.seq)
	copy(m[header.ICMPv4MinimumSize:], data)
	m.SetChecksum(^csum.Checksum(m, 0))
	select {
	case <-p.g.done:
		return
	default:
	}
	p.g.out(f)
}

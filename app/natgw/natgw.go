// Package natgw is the NAT node's gateway: a user-mode router between a
// lab's Ethernet segment and the host's network, on gVisor's netstack as
// containers/gvisor-tap-vsock assembles it (no root, no libvirt, no TAP).
// On 192.168.122.0/24, libvirt's default network that GNS3 users expect,
// the gateway 192.168.122.1 answers ARP and ping, leases .2–.254 but
// .224–.239 by DHCP (leasable; one hour; a host gets the same address
// after a restart, see reserveLease), answers DNS by the host's
// resolver, and carries the lab's TCP, UDP and pings to the host's network
// from host sockets of this process (pings: see pinger);
// TCP and UDP to the gateway's own address reach the host's services that
// listen on its network addresses, never a loopback-only one unless the
// owner allows the host's loopback (see hostTarget), and never the ports
// the owner refuses (nodedesk's API).
//
// It is an adapter: app/dataplane wraps a Gateway as the NAT node's
// Engine; app never imports it.
package natgw

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/containers/gvisor-tap-vsock/pkg/services/dhcp"
	"github.com/containers/gvisor-tap-vsock/pkg/services/dns"
	"github.com/containers/gvisor-tap-vsock/pkg/services/forwarder"
	"github.com/containers/gvisor-tap-vsock/pkg/tap"
	"github.com/containers/gvisor-tap-vsock/pkg/types"
	mdns "github.com/miekg/dns"
	"github.com/sirupsen/logrus"
	"gvisor.dev/gvisor/pkg/buffer"
	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/adapters/gonet"
	"gvisor.dev/gvisor/pkg/tcpip/header"
	"gvisor.dev/gvisor/pkg/tcpip/network/arp"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv4"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
	"gvisor.dev/gvisor/pkg/tcpip/transport/icmp"
	"gvisor.dev/gvisor/pkg/tcpip/transport/tcp"
	"gvisor.dev/gvisor/pkg/tcpip/transport/udp"
)

// The network every NAT node serves, as libvirt's default one.
const (
	Subnet    = "192.168.122.0/24"
	GatewayIP = "192.168.122.1"
	MTU       = 1500
	// queueLen bounds the frames waiting for the stack; more are dropped.
	queueLen = 256
)

var quietOnce sync.Once

// quiet keeps gvisor-tap-vsock's logrus logging (its global logger) off
// nodedesk's stderr but for errors.
func quiet() {
	quietOnce.Do(func() {
		logrus.SetLevel(logrus.PanicLevel)
		logrus.SetOutput(io.Discard)
	})
}

// MAC is the gateway's Ethernet address for the NAT node id: locally
// administered, stable across restarts, distinct per node.
func MAC(nodeID string) net.HardwareAddr {
	h := sha256.Sum256([]byte("nodedesk-nat:" + nodeID))
	return net.HardwareAddr{0x02, h[0], h[1], h[2], h[3], h[4]}
}

// Config is what a Gateway needs from its owner.
type Config struct {
	// NodeID names the NAT node; the gateway's MAC derives from it.
	NodeID string
	// Out sends a frame the gateway emits into the lab. It is called from
	// the gateway's goroutines, never keeps frame, and must not block for
	// long.
	Out func(frame []byte)
	// Refused tells whether a port of the host must not be reached, at the
	// gateway's address (the host's loopback) or at any of the host's own
	// addresses (nodedesk's own API: the lab must not drive it). It is
	// asked at each new TCP or UDP flow.
	Refused func(port uint16) bool
	// HostLoopback lets the gateway's address reach the host's loopback
	// (127.0.0.1), so services that listen there only; false: only those
	// that listen on the host's network addresses. SetHostLoopback changes
	// it later.
	HostLoopback bool
	// Log receives the gateway's warnings (nil: none).
	Log *slog.Logger
}

// isHostAddress reports whether dst is an address of one of this machine's
// interfaces: a flow there reaches the host as surely as one to the
// gateway's address, so the same ports are refused. Asked once per new
// flow; an error reading the interfaces counts as "not the host's".
func isHostAddress(dst tcpip.Address) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	ip := net.IP(dst.AsSlice())
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// Gateway is one running NAT gateway. Create it with New; Input feeds it
// the frames of the lab, Close stops it.
type Gateway struct {
	nodeID string
	mac    tcpip.LinkAddress
	gw     tcpip.Address
	subnet tcpip.Subnet
	ping   *pinger
	ipID   atomic.Uint32 // IPv4 ids of the echo replies the gateway forges
	// hostLoopback: the gateway's address reaches the host's loopback.
	hostLoopback atomic.Bool
	ctx          context.Context
	cancel       context.CancelFunc // ends the gateway's host sockets
	out          func([]byte)
	in           chan []byte
	stack        *stack.Stack
	ep           *tap.LinkEndpoint
	pool         *tap.IPPool // the DHCP leases
	dhcp         *dhcp.Server
	dnsU         net.PacketConn
	dnsT         net.Listener

	done     chan struct{}
	injected chan struct{} // closed when inject has returned
	closed   sync.Once
	wg       sync.WaitGroup
}

// New starts a gateway.
func New(c Config) (*Gateway, error) {
	quiet()
	if c.Out == nil {
		return nil, errors.New("natgw: no output")
	}
	refused := c.Refused
	if refused == nil {
		refused = func(uint16) bool { return false }
	}
	mac := MAC(c.NodeID)
	_, subnet, err := net.ParseCIDR(Subnet)
	if err != nil {
		return nil, err
	}
	gwIP := net.ParseIP(GatewayIP).To4()
	sub, err := tcpip.NewSubnet(tcpip.AddrFromSlice(subnet.IP.To4()), tcpip.MaskFromBytes(subnet.Mask))
	if err != nil {
		return nil, err
	}
	g := &Gateway{nodeID: c.NodeID, mac: tcpip.LinkAddress(mac), gw: tcpip.AddrFrom4Slice(gwIP), subnet: sub, out: c.Out,
		in: make(chan []byte, queueLen), done: make(chan struct{}), injected: make(chan struct{})}
	g.ctx, g.cancel = context.WithCancel(context.Background())
	g.hostLoopback.Store(c.HostLoopback)
	g.ping = &pinger{g: g, log: c.Log, slots: make(chan struct{}, maxPings)}

	pool := tap.NewIPPool(subnet)
	pool.Reserve(gwIP, mac.String())
	pool.Reserve(hostAddr(255), "ff:ff:ff:ff:ff:ff") // the broadcast address is no lease
	g.pool = pool
	ep, err := tap.NewLinkEndpoint(false, MTU, mac.String(), GatewayIP, nil)
	if err != nil {
		return nil, err
	}
	ep.Connect(g)
	g.ep = ep

	s := stack.New(stack.Options{
		NetworkProtocols:   []stack.NetworkProtocolFactory{ipv4.NewProtocol, arp.NewProtocol},
		TransportProtocols: []stack.TransportProtocolFactory{tcp.NewProtocol, udp.NewProtocol, icmp.NewProtocol4},
	})
	g.stack = s
	fail := func(err error) (*Gateway, error) {
		close(g.injected) // inject never started
		g.Close()
		return nil, fmt.Errorf("natgw: %w", err)
	}
	if err := s.CreateNIC(1, ep); err != nil {
		return fail(errors.New(err.String()))
	}
	if err := s.AddProtocolAddress(1, tcpip.ProtocolAddress{Protocol: ipv4.ProtocolNumber,
		AddressWithPrefix: g.gw.WithPrefix()}, stack.AddressProperties{}); err != nil {
		return fail(errors.New(err.String()))
	}
	// Spoofing and promiscuous: the stack takes flows to any address (the
	// host's network) and answers from it.
	s.SetSpoofing(1, true)
	s.SetPromiscuousMode(1, true)
	s.SetRouteTable([]tcpip.Route{{Destination: sub, NIC: 1}})

	// TCP and UDP flows leave from host sockets; the gateway's address
	// means the host, at the address hostTarget picks. UDP goes through
	// gvisor-tap-vsock's forwarder, whose NAT map is set to that address
	// for each new flow (its handler reads the map before HandlePacket
	// returns; udpMu keeps one flow's address from another's); TCP through
	// the gateway's own (tcpForwarder). Echoes beyond the gateway never
	// reach the stack (see pinger; the stack itself answers the gateway's
	// pings, once).
	var natMu, udpMu sync.Mutex
	nat := map[tcpip.Address]tcpip.Address{}
	tcpF := g.tcpForwarder(s)
	udpF := forwarder.UDP(s, nat, &natMu, false)
	// A handler returning false leaves the packet to the stack: no endpoint
	// there, so TCP is reset and UDP dropped — a refusal.
	allowed := func(id stack.TransportEndpointID) bool {
		dst := id.LocalAddress
		if dst == g.gw || isHostAddress(dst) {
			// The host itself, at the gateway's address or at one of its
			// own addresses: its refused ports stay refused.
			return !refused(id.LocalPort)
		}
		// Another lab address is not the host's; the host's loopback is
		// reached at the gateway's address only, when allowed.
		return !sub.Contains(dst) && !martian(dst)
	}
	s.SetTransportProtocolHandler(tcp.ProtocolNumber, func(id stack.TransportEndpointID, pkt *stack.PacketBuffer) bool {
		return allowed(id) && tcpF.HandlePacket(id, pkt)
	})
	s.SetTransportProtocolHandler(udp.ProtocolNumber, func(id stack.TransportEndpointID, pkt *stack.PacketBuffer) bool {
		if !allowed(id) {
			return false
		}
		udpMu.Lock()
		defer udpMu.Unlock()
		if id.LocalAddress == g.gw {
			to, ok := g.hostTarget("udp", id.LocalPort)
			if !ok {
				return false
			}
			natMu.Lock()
			nat[g.gw] = to
			natMu.Unlock()
		}
		return udpF.HandlePacket(id, pkt)
	})

	// DNS on the gateway, answered by the host's resolver.
	gwAddr := tcpip.FullAddress{NIC: 1, Addr: g.gw, Port: 53}
	g.dnsU, err = gonet.DialUDP(s, &gwAddr, nil, ipv4.ProtocolNumber)
	if err != nil {
		return fail(err)
	}
	g.dnsT, err = gonet.ListenTCP(s, gwAddr, ipv4.ProtocolNumber)
	if err != nil {
		return fail(err)
	}
	dnsSrv, err := dns.NewWithUpstreamResolver(compressed{g.dnsU}, g.dnsT, nil, hostResolver{&net.Resolver{}})
	if err != nil {
		return fail(err)
	}
	g.dhcp, err = dhcp.New(&types.Configuration{Subnet: Subnet, GatewayIP: GatewayIP, MTU: MTU}, s, pool)
	if err != nil {
		return fail(err)
	}
	g.wg.Add(3)
	go func() { defer g.wg.Done(); _ = dnsSrv.Serve() }()
	go func() { defer g.wg.Done(); _ = dnsSrv.ServeTCP() }()
	go func() { defer g.wg.Done(); _ = g.dhcp.Serve() }()
	go func() { defer close(g.injected); g.inject() }()
	return g, nil
}

// hostResolver answers the lab's DNS questions as the host's programs look
// names up. A question names a rooted name ("localhost."), and Go's
// resolver takes a rooted name straight to the DNS servers, past
// /etc/hosts; the name is asked without its root dot, so the host's hosts
// file answers first (and its search list applies, as for its programs).
type hostResolver struct{ *net.Resolver }

// LookupIPAddr looks the name up without its root dot.
func (r hostResolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	if h := strings.TrimSuffix(host, "."); h != "" {
		host = h
	}
	return r.Resolver.LookupIPAddr(ctx, host)
}

// compressed sends the DNS server's UDP answers with their names
// compressed (RFC 1035 4.1.4), as real servers do; gvisor-tap-vsock's
// does not, and VPCS reads an answer's name only as a pointer to the
// question's: an uncompressed answer is "Cannot resolve" to it.
type compressed struct{ net.PacketConn }

// WriteTo sends b, a DNS message, compressed.
func (c compressed) WriteTo(b []byte, addr net.Addr) (int, error) {
	var m mdns.Msg
	if m.Unpack(b) == nil {
		m.Compress = true
		if p, err := m.Pack(); err == nil && len(p) <= len(b) {
			if _, err := c.PacketConn.WriteTo(p, addr); err != nil {
				return 0, err
			}
			return len(b), nil
		}
	}
	return c.PacketConn.WriteTo(b, addr)
}

// SetHostLoopback sets whether the gateway's address reaches the host's
// loopback (Config.HostLoopback), for the flows that start from now on.
func (g *Gateway) SetHostLoopback(on bool) { g.hostLoopback.Store(on) }

// MAC returns the gateway's Ethernet address.
func (g *Gateway) MAC() net.HardwareAddr { return net.HardwareAddr(g.mac) }

// Input hands the gateway a frame of the lab. It never blocks and does not
// keep frame: a frame for another station is ignored (the lab's switches
// deliver it; the gateway never reflects it), one the queue has no room
// for is dropped.
func (g *Gateway) Input(frame []byte) {
	if len(frame) < header.EthernetMinimumSize || len(frame) > header.EthernetMinimumSize+MTU+4 {
		return
	}
	dst := tcpip.LinkAddress(frame[:6])
	if dst != g.mac && dst != header.EthernetBroadcastAddress {
		return
	}
	select {
	case <-g.done:
		return
	default:
	}
	select {
	case g.in <- append([]byte(nil), frame...):
	default: // full: dropped, as a busy router drops
	}
}

// inject delivers the queued frames to the stack until Close.
func (g *Gateway) inject() {
	for {
		select {
		case <-g.done:
			return
		case f := <-g.in:
			if g.ping.echoBeyond(f) {
				continue
			}
			reserveLease(g.pool, f)
			eth := header.Ethernet(f)
			data := buffer.MakeWithData(f)
			data.TrimFront(header.EthernetMinimumSize)
			pkt := stack.NewPacketBuffer(stack.PacketBufferOptions{Payload: data})
			g.ep.DeliverNetworkPacket(eth.Type(), pkt)
			pkt.DecRef()
		}
	}
}

// DeliverNetworkPacket is the link endpoint's output (tap.NetworkSwitch):
// a frame the stack sends, with its Ethernet header, goes to the lab.
func (g *Gateway) DeliverNetworkPacket(_ tcpip.NetworkProtocolNumber, pkt *stack.PacketBuffer) {
	select {
	case <-g.done:
		return
	default:
	}
	v := pkt.ToView()
	frame := v.AsSlice()
	dhcpUnicast(frame)
	g.out(frame)
	v.Release()
}

// dhcpUnicast addresses a DHCP reply broadcast by the server to the
// client's MAC, in place, unless the client asked for a broadcast (RFC 2131
// 4.1: a server unicasts to chaddr when the broadcast bit is clear, as
// dnsmasq does). The IP destination stays 255.255.255.255. VPCS takes IPv4
// only when the frame is addressed to its MAC: without this it never sees
// the offer.
func dhcpUnicast(f []byte) {
	const eth = header.EthernetMinimumSize
	if len(f) < eth+header.IPv4MinimumSize || tcpip.LinkAddress(f[:6]) != header.EthernetBroadcastAddress ||
		header.Ethernet(f).Type() != header.IPv4ProtocolNumber {
		return
	}
	ip := header.IPv4(f[eth:])
	ihl := int(ip.HeaderLength())
	if ip.TransportProtocol() != header.UDPProtocolNumber || len(f) < eth+ihl+header.UDPMinimumSize+44 {
		return
	}
	u := header.UDP(f[eth+ihl:])
	d := f[eth+ihl+header.UDPMinimumSize:]
	if u.SourcePort() != 67 || u.DestinationPort() != 68 || d[0] != 2 || d[1] != 1 || d[2] != 6 {
		return // not a BOOTREPLY for an Ethernet client
	}
	if d[10]&0x80 != 0 {
		return // the client asked for a broadcast
	}
	copy(f[:6], d[28:34])
}

// Close stops the gateway: its DHCP and DNS servers, the frames queued,
// the stack and its flows. It waits for them; Input after Close is
// ignored.
func (g *Gateway) Close() {
	g.closed.Do(func() {
		close(g.done)
		// No frame may be on its way into the stack while it closes: a
		// delivery into a closing stack can wait for it for ever.
		<-g.injected
		g.cancel() // the echoes in flight end
		if g.dhcp != nil {
			_ = g.dhcp.Underlying.Close()
		}
		if g.dnsU != nil {
			_ = g.dnsU.Close()
		}
		if g.dnsT != nil {
			_ = g.dnsT.Close()
		}
		g.stack.Close()
		g.stack.Wait()
		g.wg.Wait()
	})
}

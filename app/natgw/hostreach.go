package natgw

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"io"
	"net"
	"os"
	"strconv"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/adapters/gonet"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
	"gvisor.dev/gvisor/pkg/tcpip/transport/tcp"
	"gvisor.dev/gvisor/pkg/waiter"
)

// What the gateway's own address reaches on the host.
//
// By default it is what libvirt's virbr0 reaches: the services that listen
// on one of the host's network addresses or on all of them, never one that
// listens on the loopback only (a database, another program's admin port,
// another nodedesk's API). A flow to the gateway's address on a port goes
// to a non-loopback address of the host that a socket on that port is
// bound to (a wildcard socket: the host's first non-loopback IPv4
// address), so the kernel itself keeps loopback-only sockets out of reach.
// With the host's loopback allowed (the NAT node's allow_host_loopback),
// it goes to 127.0.0.1, as before.

// loopback is the host's loopback address.
var loopback = tcpip.AddrFrom4([4]byte{127, 0, 0, 1})

// hostTarget is the host address a new flow of proto ("tcp" or "udp") to
// the gateway's address on port goes to, or false when nothing on the
// host may take it.
func (g *Gateway) hostTarget(proto string, port uint16) (tcpip.Address, bool) {
	if g.hostLoopback.Load() {
		return loopback, true
	}
	bound, err := boundAddrs(proto, port)
	if err != nil {
		// No socket table to read (not Linux): the host's own address
		// reaches what listens there or on every address.
		return firstHostAddr()
	}
	wildcard := false
	for _, ip := range bound {
		switch {
		case ip.IsUnspecified():
			wildcard = true
		case ip.To4() != nil && !ip.IsLoopback():
			return tcpip.AddrFrom4Slice(ip.To4()), true
		}
	}
	if wildcard {
		return firstHostAddr()
	}
	return tcpip.Address{}, false
}

// firstHostAddr is the first non-loopback IPv4 address of this machine's
// interfaces, or false when it has none.
func firstHostAddr() (tcpip.Address, bool) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return tcpip.Address{}, false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if v4 := n.IP.To4(); v4 != nil && !v4.IsLoopback() && !v4.IsLinkLocalUnicast() {
				return tcpip.AddrFrom4Slice(v4), true
			}
		}
	}
	return tcpip.Address{}, false
}

// boundAddrs lists the local addresses of the host's sockets that serve
// port: TCP sockets listening on it, UDP sockets bound to it and not
// connected; from Linux's socket tables (/proc/net), IPv4 and IPv6 (an
// IPv4-mapped address as its IPv4 address). An error: no table to read.
func boundAddrs(proto string, port uint16) ([]net.IP, error) {
	state := "0A" // TCP_LISTEN
	if proto == "udp" {
		state = "07" // TCP_CLOSE: an unconnected UDP socket
	}
	var out []net.IP
	for _, file := range []string{"/proc/net/" + proto, "/proc/net/" + proto + "6"} {
		f, err := os.Open(file)
		if err != nil {
			if file[len(file)-1] == '6' {
				continue // no IPv6
			}
			return nil, err
		}
		out = append(out, socketTable(f, state, port)...)
		f.Close()
	}
	return out, nil
}

// socketTable reads one of Linux's socket tables (/proc/net/tcp and its
// kin: "sl local_address rem_address st ...", an address as hex words of
// the host's byte order, then ":" and the port in hex) and returns the
// local addresses of the sockets in state on port.
func socketTable(r io.Reader, state string, port uint16) []net.IP {
	var out []net.IP
	sc := bufio.NewScanner(r)
	sc.Scan() // the heading
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) < 4 || string(f[3]) != state {
			continue
		}
		addr, p, ok := bytes.Cut(f[1], []byte(":"))
		if !ok {
			continue
		}
		if n, err := strconv.ParseUint(string(p), 16, 16); err != nil || uint16(n) != port {
			continue
		}
		raw, err := hex.DecodeString(string(addr))
		if err != nil || (len(raw) != 4 && len(raw) != 16) {
			continue
		}
		ip := make(net.IP, len(raw))
		for i := 0; i < len(raw); i += 4 {
			binary.BigEndian.PutUint32(ip[i:], binary.NativeEndian.Uint32(raw[i:]))
		}
		out = append(out, ip)
	}
	return out
}

// tcpForwarder carries the lab's TCP connections out from host sockets:
// to the address the lab dialled, or, for the gateway's own address, to
// hostTarget's. A connection the host refuses (or nothing may take) is
// reset, as the host would reset it.
func (g *Gateway) tcpForwarder(s *stack.Stack) *tcp.Forwarder {
	return tcp.NewForwarder(s, 0, 64, func(r *tcp.ForwarderRequest) {
		id := r.ID()
		to := id.LocalAddress
		if to == g.gw {
			var ok bool
			if to, ok = g.hostTarget("tcp", id.LocalPort); !ok {
				r.Complete(true)
				return
			}
		}
		d := net.Dialer{Timeout: 30 * time.Second}
		out, err := d.DialContext(g.ctx, "tcp", net.JoinHostPort(to.String(), strconv.Itoa(int(id.LocalPort))))
		if err != nil {
			r.Complete(true)
			return
		}
		var wq waiter.Queue
		ep, terr := r.CreateEndpoint(&wq)
		r.Complete(false)
		if terr != nil {
			out.Close()
			return
		}
		splice(g.ctx, gonet.NewTCPConn(&wq, ep), out.(*net.TCPConn))
	})
}

// splice copies between the lab's connection and the host's until both
// directions end (each end's close half-closes the other) or ctx ends.
func splice(ctx context.Context, lab *gonet.TCPConn, host *net.TCPConn) {
	stop := context.AfterFunc(ctx, func() { lab.Close(); host.Close() })
	defer stop()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(host, lab)
		_ = host.CloseWrite()
	}()
	_, _ = io.Copy(lab, host)
	_ = lab.CloseWrite()
	<-done
	lab.Close()
	host.Close()
}

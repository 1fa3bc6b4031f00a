package natgw

import (
	"bytes"
	"encoding/binary"
	"net"
	"runtime"
	"testing"
	"time"
)

// arpRequest is a broadcast ARP request from mac/ip for target.
func arpRequest(mac net.HardwareAddr, ip, target net.IP) []byte {
	f := make([]byte, 42)
	copy(f[0:6], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	copy(f[6:12], mac)
	binary.BigEndian.PutUint16(f[12:], 0x0806)
	binary.BigEndian.PutUint16(f[14:], 1)      // Ethernet
	binary.BigEndian.PutUint16(f[16:], 0x0800) // IPv4
	f[18], f[19] = 6, 4
	binary.BigEndian.PutUint16(f[20:], 1) // request
	copy(f[22:28], mac)
	copy(f[28:32], ip.To4())
	copy(f[38:42], target.To4())
	return f
}

// icmpEcho is an IPv4 echo request from src to dst in a frame to dstMAC.
func icmpEcho(dstMAC, srcMAC net.HardwareAddr, src, dst net.IP) []byte {
	f := make([]byte, 14+20+8)
	copy(f[0:6], dstMAC)
	copy(f[6:12], srcMAC)
	binary.BigEndian.PutUint16(f[12:], 0x0800)
	ip := f[14:34]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], 28)
	ip[8], ip[9] = 64, 1
	copy(ip[12:16], src.To4())
	copy(ip[16:20], dst.To4())
	binary.BigEndian.PutUint16(ip[10:], checksum(ip))
	icmp := f[34:]
	icmp[0] = 8
	binary.BigEndian.PutUint16(icmp[4:], 0x1234)
	binary.BigEndian.PutUint16(icmp[6:], 1)
	binary.BigEndian.PutUint16(icmp[2:], checksum(icmp))
	return f
}

func checksum(b []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(b); i += 2 {
		s += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		s += uint32(b[len(b)-1]) << 8
	}
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	return ^uint16(s)
}

// TestGateway_AnswersOnlyItsOwnFrames: the gateway answers ARP for its
// address and a ping to its MAC, but a frame to another station's MAC is
// ignored, never reflected (the hairpin trap of tap.Switch).
func TestGateway_AnswersOnlyItsOwnFrames(t *testing.T) {
	out := make(chan []byte, 16)
	g, err := New(Config{NodeID: "n1", Out: func(f []byte) {
		select {
		case out <- append([]byte(nil), f...):
		default:
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if !bytes.Equal(g.MAC(), MAC("n1")) || bytes.Equal(MAC("n1"), MAC("n2")) || g.MAC()[0]&2 == 0 {
		t.Fatalf("gateway MAC %s (n2: %s): not per node or not locally administered", g.MAC(), MAC("n2"))
	}
	pc := net.HardwareAddr{0x02, 0, 0, 0, 0, 0x10}
	pcIP, gw := net.IPv4(192, 168, 122, 10), net.ParseIP(GatewayIP)
	next := func() []byte {
		select {
		case f := <-out:
			return f
		case <-time.After(10 * time.Second): // a bound, not a speed: a loaded machine is slow
			return nil
		}
	}

	g.Input(arpRequest(pc, pcIP, gw))
	r := next()
	if r == nil || !bytes.Equal(r[0:6], pc) || binary.BigEndian.Uint16(r[12:]) != 0x0806 || !bytes.Equal(r[28:32], gw.To4()) {
		t.Fatalf("no ARP reply for the gateway: % x", r)
	}

	// A ping to another station's MAC: nothing comes back.
	other := net.HardwareAddr{0x02, 0, 0, 0, 0, 0x20}
	g.Input(icmpEcho(other, pc, pcIP, gw))
	select {
	case f := <-out:
		t.Fatalf("a frame for %s got an answer or was reflected: % x", other, f)
	case <-time.After(300 * time.Millisecond):
	}

	// The same ping to the gateway's MAC is answered, once.
	g.Input(icmpEcho(g.MAC(), pc, pcIP, gw))
	r = next()
	if r == nil || binary.BigEndian.Uint16(r[12:]) != 0x0800 || r[14+9] != 1 || r[34] != 0 || !bytes.Equal(r[14+12:14+16], gw.To4()) {
		t.Fatalf("no echo reply from the gateway: % x", r)
	}
	select {
	case f := <-out:
		t.Fatalf("a second frame after the echo reply: % x", f)
	case <-time.After(300 * time.Millisecond):
	}
}

// TestGateway_InputNeverBlocks: while the stack cannot send (its output
// is held), a flood of frames is dropped, not waited for: the fabric's
// worker that calls Input is never held up by the gateway.
func TestGateway_InputNeverBlocks(t *testing.T) {
	hold := make(chan struct{})
	g, err := New(Config{NodeID: "n1", Out: func([]byte) { <-hold }})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	defer close(hold) // before Close: the stack's output must return first
	f := arpRequest(net.HardwareAddr{2, 0, 0, 0, 0, 1}, net.IPv4(192, 168, 122, 9), net.ParseIP(GatewayIP))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 * queueLen { // each answered by an ARP reply the held output keeps
			g.Input(f)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // a liveness bound, far above any machine's time
		t.Fatalf("Input waited on the gateway: %d inputs not done after 30 s", 100*queueLen)
	}
}

// TestGateway_CloseLeaksNoGoroutine: starting and closing gateways leaves
// the goroutine count where it was (DHCP, DNS, injection and the stack's
// own goroutines all end), and Input after Close is harmless.
func TestGateway_CloseLeaksNoGoroutine(t *testing.T) {
	warm, err := New(Config{NodeID: "warm", Out: func([]byte) {}}) // package-level goroutines, once
	if err != nil {
		t.Fatal(err)
	}
	warm.Close()
	time.Sleep(100 * time.Millisecond)
	before := runtime.NumGoroutine()
	for i := range 5 {
		g, err := New(Config{NodeID: string(rune('a' + i)), Out: func([]byte) {}})
		if err != nil {
			t.Fatal(err)
		}
		g.Input(arpRequest(net.HardwareAddr{2, 0, 0, 0, 0, 1}, net.IPv4(192, 168, 122, 9), net.ParseIP(GatewayIP)))
		time.Sleep(20 * time.Millisecond)
		g.Close()
		g.Close() // twice is fine
		g.Input(arpRequest(net.HardwareAddr{2, 0, 0, 0, 0, 1}, net.IPv4(192, 168, 122, 9), net.ParseIP(GatewayIP)))
	}
	var now int
	for range 250 { // bounded (5 s): goroutines may take a moment to return
		if now = runtime.NumGoroutine(); now <= before+2 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	t.Fatalf("%d goroutines before 5 gateways, %d after they closed:\n%s", before, now, buf[:runtime.Stack(buf, true)])
}

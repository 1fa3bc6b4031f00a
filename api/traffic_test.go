package api

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Bad traffic loses nothing: frames sent by the test itself, over a
// cloud's UDP tunnels (the same seam a process on another machine would
// use), into nodedesk's switches. Only 127.0.0.1.

// udpPeer is the test's end of a cloud's UDP tunnel.
type udpPeer struct {
	conn  *net.UDPConn
	lport int // the cloud's end: the port nodedesk binds
}

// newUDPPeer binds the test's end on 127.0.0.1 and picks a free port for
// nodedesk's end.
func newUDPPeer(t *testing.T) *udpPeer {
	t.Helper()
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	free, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	lport := free.LocalAddr().(*net.UDPAddr).Port
	free.Close()
	return &udpPeer{conn: conn, lport: lport}
}

// port is the cloud port that tunnels to p.
func (p *udpPeer) port(n int) map[string]any {
	return map[string]any{"name": "UDP tunnel " + string(rune('1'+n)), "port_number": n, "type": "udp",
		"lport": p.lport, "rhost": "127.0.0.1", "rport": p.conn.LocalAddr().(*net.UDPAddr).Port}
}

// send sends one datagram into the lab.
func (p *udpPeer) send(t *testing.T, b []byte) {
	t.Helper()
	if _, err := p.conn.WriteToUDP(b, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: p.lport}); err != nil {
		t.Fatal(err)
	}
}

// receive returns the datagrams p gets until none arrives for quiet, or
// until limit.
func (p *udpPeer) receive(quiet, limit time.Duration) [][]byte {
	var got [][]byte
	buf := make([]byte, 65536)
	for end := time.Now().Add(limit); time.Now().Before(end); {
		_ = p.conn.SetReadDeadline(time.Now().Add(quiet))
		n, err := p.conn.Read(buf)
		if err != nil {
			return got
		}
		got = append(got, append([]byte(nil), buf[:n]...))
	}
	return got
}

// cloudTunnels creates a cloud whose ports tunnel to peers, port i to
// peers[i].
func (ts *testServer) cloudTunnels(t *testing.T, pid string, peers ...*udpPeer) string {
	t.Helper()
	ports := make([]any, len(peers))
	for i, p := range peers {
		ports[i] = p.port(i)
	}
	return ts.mustCreateNode(pid, map[string]any{"node_type": "cloud",
		"properties": map[string]any{"ports_mapping": ports}})["node_id"].(string)
}

// ethFrame is an Ethernet frame from src to dst carrying payload (padded to
// the 60-byte minimum).
func ethFrame(dst, src net.HardwareAddr, payload []byte) []byte {
	f := make([]byte, 0, max(60, 14+len(payload)))
	f = append(f, dst...)
	f = append(f, src...)
	f = binary.BigEndian.AppendUint16(f, 0x88b5) // local experimental ethertype
	f = append(f, payload...)
	for len(f) < 60 {
		f = append(f, 0)
	}
	return f
}

var (
	macA      = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x0a}
	macB      = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x0b}
	broadcast = net.HardwareAddr{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
)

// holds reports whether one of frames contains marker.
func holds(frames [][]byte, marker string) bool {
	for _, f := range frames {
		if bytes.Contains(f, []byte(marker)) {
			return true
		}
	}
	return false
}

func TestDataPlane_BadDatagrams(t *testing.T) {
	ts := mustOpenServerWith(t, testOptions{fabric: true})
	pid := ts.mustCreateProject("lab")
	a, b := newUDPPeer(t), newUDPPeer(t)
	cloud := ts.cloudTunnels(t, pid, a, b)
	sw := mustCreateSwitch(ts, t, pid, nil)
	ts.link(t, pid, cloud, 0, sw, 0)
	ts.link(t, pid, cloud, 1, sw, 1)

	// A good frame crosses the switch from a to b.
	a.send(t, ethFrame(broadcast, macA, []byte("hello")))
	if !holds(b.receive(300*time.Millisecond, 5*time.Second), "hello") {
		t.Fatal("a frame sent into the cloud's tunnel did not cross the switch")
	}

	// Runts (shorter than an Ethernet header), an empty datagram, a giant
	// (larger than the largest jumbo frame), garbage, and a datagram from
	// an address that is not the tunnel's peer: none crosses, none stops
	// nodedesk.
	a.send(t, nil)
	a.send(t, []byte{1})
	a.send(t, []byte("runt-13bytes"))
	giant := ethFrame(broadcast, macA, bytes.Repeat([]byte{0xee}, 12000))
	copy(giant[len(giant)-5:], "giant")
	a.send(t, giant)
	garbage := make([]byte, 1500)
	for i := range garbage {
		garbage[i] = byte(i * 7919)
	}
	a.send(t, garbage)
	stranger := newUDPPeer(t)
	stranger.lport = a.lport // another socket sending to a's tunnel
	stranger.send(t, ethFrame(broadcast, macA, []byte("stranger")))
	a.send(t, ethFrame(broadcast, macA, []byte("after")))

	got := b.receive(300*time.Millisecond, 5*time.Second)
	for _, bad := range []string{"runt", "giant", "stranger"} {
		if holds(got, bad) {
			t.Errorf("a %s datagram crossed the switch", bad)
		}
	}
	if !holds(got, "after") {
		t.Fatalf("after bad datagrams a good frame no longer crosses: got %d frames", len(got))
	}
	ts.do("GET", "/v2/projects/"+pid+"/nodes", nil).want(t, 200)
}

func TestDataPlane_BroadcastStorm(t *testing.T) {
	ts := mustOpenServerWith(t, testOptions{fabric: true})
	pid := ts.mustCreateProject("lab")
	src, dst := newUDPPeer(t), newUDPPeer(t)
	cloud := ts.cloudTunnels(t, pid, src, dst)
	// A switching loop: two switches linked twice (no spanning tree, as
	// in GNS3). Every broadcast goes round it.
	sw1, sw2 := mustCreateSwitch(ts, t, pid, nil), mustCreateSwitch(ts, t, pid, nil)
	ts.link(t, pid, sw1, 1, sw2, 1)
	ts.link(t, pid, sw1, 2, sw2, 2)
	ts.link(t, pid, cloud, 0, sw1, 0)
	ts.link(t, pid, cloud, 1, sw2, 0)

	// While the storm rages the API answers every request.
	stop := make(chan struct{})
	var answered atomic.Int64
	var apiErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		client := &http.Client{Timeout: 5 * time.Second}
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			resp, err := client.Get(ts.url + "/v2/projects/" + pid + "/nodes")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode != 200 {
					err = errors.New(resp.Status)
				}
			}
			if err != nil {
				apiErr = err
				return
			}
			answered.Add(1)
		}
	}()

	// 2,000 broadcasts, sent in at most 2 s.
	const sent = 2000
	received := make(chan int, 1)
	go func() { received <- len(dst.receive(time.Second, 20*time.Second)) }()
	deadline := time.Now().Add(2 * time.Second)
	for i := 0; i < sent && time.Now().Before(deadline); i++ {
		src.send(t, ethFrame(broadcast, macA, []byte("storm")))
		if i%100 == 99 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	n := <-received // the storm has died down: nothing for a second
	close(stop)
	wg.Wait()
	if apiErr != nil {
		t.Fatalf("the API failed during the storm: %v", apiErr)
	}
	if answered.Load() == 0 {
		t.Fatal("the API answered no request during the storm")
	}
	// Each broadcast goes round the loop, but a bounded number of times:
	// it reaches dst at least once, and becomes at most 256 frames.
	if n < sent/2 || n > sent*256 {
		t.Errorf("dst got %d frames for %d broadcasts: want at least one each and a bounded number", n, sent)
	}
	t.Logf("%d broadcasts in a loop: %d frames out of the loop, %d API answers meanwhile", sent, n, answered.Load())

	// The storm is over: a frame crosses, and nothing else comes.
	src.send(t, ethFrame(broadcast, macA, []byte("calm")))
	if got := dst.receive(500*time.Millisecond, 5*time.Second); !holds(got, "calm") || len(got) > 256 {
		t.Fatalf("after the storm, one broadcast brought %d frames", len(got))
	}
}

// TestCloudTunnelPorts: a tunnel's lport is a host port: two tunnels never
// share one, and one held elsewhere is refused when it is given.
func TestCloudTunnelPorts(t *testing.T) {
	ts := mustOpenServerWith(t, testOptions{fabric: true})
	pid := ts.mustCreateProject("lab")
	a := newUDPPeer(t)
	cloud := ts.cloudTunnels(t, pid, a) // the fabric binds a.lport now
	tunnel := func(n, lport int) map[string]any {
		return map[string]any{"name": fmt.Sprintf("udp%d", n), "port_number": n, "type": "udp", "lport": lport, "rhost": "127.0.0.1", "rport": 9}
	}
	create := func(ports ...any) response {
		return ts.do("POST", "/v2/projects/"+pid+"/nodes", map[string]any{"node_type": "cloud", "properties": map[string]any{"ports_mapping": ports}})
	}
	held := newUDPPeer(t) // its conn's port is held by this test
	heldPort := held.conn.LocalAddr().(*net.UDPAddr).Port
	free := newUDPPeer(t).lport
	for _, tc := range []struct {
		name   string
		r      response
		status int
		field  string
	}{
		{"two tunnels of one cloud", create(tunnel(0, free), tunnel(1, free)), 400, "properties.ports_mapping.1.lport"},
		{"another cloud's tunnel", create(tunnel(0, a.lport)), 409, "properties.ports_mapping.0.lport"},
		{"another program's port", create(tunnel(0, heldPort)), 409, "properties.ports_mapping.0.lport"},
	} {
		e := tc.r.want(t, tc.status).json(t)
		if e["field"] != tc.field {
			t.Errorf("%s: field %v, want %s (%v)", tc.name, e["field"], tc.field, e["message"])
		}
	}
	// A cloud keeps its own tunnel through an edit.
	path := "/v2/projects/" + pid + "/nodes/" + cloud
	ts.do("PUT", path, map[string]any{"name": "Uplink"}).want(t, 200)
	ts.do("PUT", path, map[string]any{"properties": map[string]any{"ports_mapping": []any{a.port(0), tunnel(1, free)}}}).want(t, 200)
}

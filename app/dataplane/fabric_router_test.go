package dataplane

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"nodedesk/app"
)

// A Frame Relay switch inside a running fabric, with routers of the
// test's own: no local node speaks Frame Relay. Each router is a
// process-run node with one port (a VPCS stands in for it) whose UDP pair is a
// socket of the test.

// router is the test's end of a router node's UDP pair.
type router struct {
	node *app.Node
	conn *net.UDPConn // bound to the node's UDPPorts[0]
	lab  *net.UDPAddr // nodedesk's end: UDPPorts[1]
}

func newRouter(t *testing.T, name string) *router {
	t.Helper()
	conn := listenLoopback(t)
	theirs := freeUDPPort(t)                                                              // nodedesk's end
	n := &app.Node{ID: "router-" + name, Name: name, Type: app.VPCS, Status: app.Started, // one port, as a one-port router has
		UDPPorts: []int{conn.LocalAddr().(*net.UDPAddr).Port, theirs}}
	return &router{node: n, conn: conn, lab: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: theirs}}
}

// exchange sends frame from r into the lab and returns the next frame that
// to receives (within 2 s), or nil.
func (r *router) exchange(t *testing.T, frame []byte, to *router) []byte {
	t.Helper()
	if _, err := r.conn.WriteToUDP(frame, r.lab); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, MaxFrame)
	_ = to.conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, err := to.conn.Read(buf)
	if err != nil {
		return nil
	}
	return buf[:n]
}

// serialLink is a link from r's port to port of the Frame Relay switch fr.
func serialLink(id string, r *router, fr *app.Node, port int) *app.Link {
	return &app.Link{ID: id, LinkType: "serial", Nodes: []app.LinkEnd{
		{NodeID: r.node.ID, AdapterNumber: 0, PortNumber: 0},
		{NodeID: fr.ID, AdapterNumber: 0, PortNumber: port},
	}}
}

func TestFabric_FrameRelayWithLMI(t *testing.T) {
	f := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer f.Close()
	fr := &app.Node{ID: "frsw", Name: "FRSW1", Type: app.FrameRelaySwitch,
		Properties: app.Properties{Mappings: map[string]string{"1:102": "2:201", "2:201": "1:102"}}}
	r1, r2 := newRouter(t, "R1"), newRouter(t, "R2")
	capture := filepath.Join(t.TempDir(), "captures", "R1_FRSW1.pcap")
	l1 := serialLink("l1", r1, fr, 1)
	l1.Capturing, l1.CaptureFilePath, l1.CaptureDataLinkType = true, &capture, "DLT_FRELAY"
	f.Load([]*app.Node{fr, r1.node, r2.node}, []*app.Link{l1, serialLink("l2", r2, fr, 2)})

	// A frame on DLCI 102 from R1 reaches R2 on DLCI 201, and back.
	ip := []byte{0x03, 0xcc, 0x45, 0x00, 0x00, 0x14}
	if got, want := r1.exchange(t, frFrame(102, 0, 0, ip...), r2), frFrame(201, 0, 0, ip...); !bytes.Equal(got, want) {
		t.Fatalf("R2 got %x, want %x", got, want)
	}
	if got, want := r2.exchange(t, frFrame(201, 0, 0, ip...), r1), frFrame(102, 0, 0, ip...); !bytes.Equal(got, want) {
		t.Fatalf("R1 got %x, want %x", got, want)
	}
	// A DLCI with no circuit goes nowhere.
	if got := r1.exchange(t, frFrame(103, 0, 0, ip...), r2); got != nil {
		t.Fatalf("a frame on an unmapped DLCI reached R2: %x", got)
	}

	// Each router's LMI full status enquiry is answered with its own PVC
	// active, in the variant it asked in.
	for _, tc := range []struct {
		r       *router
		enquiry []byte
		want    []int
	}{
		{r1, ansiEnquiry(lmiReportFull, 1, 0), []int{102}},
		{r1, q933Enquiry(lmiReportFull, 2, 1), []int{102}},
		{r2, ciscoEnquiry(lmiReportFull, 1, 0), []int{201}},
	} {
		reply := tc.r.exchange(t, tc.enquiry, tc.r)
		if len(reply) < 7 || reply[5] != 0x7d {
			t.Fatalf("%s: no STATUS (0x7d) in answer to its enquiry: %x", tc.r.node.Name, reply)
		}
		if got := decodeActivePVCs(t, reply); !slices.Equal(got, tc.want) {
			t.Errorf("%s: LMI lists active PVCs %v, want %v", tc.r.node.Name, got, tc.want)
		}
	}

	// The capture of R1's link is a Frame Relay pcap holding the frames.
	f.Close()
	raw, err := os.ReadFile(capture)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := pcapgo.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("capture is not a pcap file: %v", err)
	}
	if rd.LinkType() != layers.LinkTypeFRelay {
		t.Errorf("capture link type %v, want Frame Relay (DLT_FRELAY)", rd.LinkType())
	}
	n := 0
	for {
		if _, _, err := rd.ReadPacketData(); err != nil {
			break
		}
		n++
	}
	if n < 5 { // two data frames, the unmapped one, two enquiries and their answers
		t.Errorf("capture holds %d frames, want the data frames and the LMI exchanges", n)
	}
}

// A flood into a link with a long delay holds back a bounded number of
// frames: the rest are dropped, as a full queue drops them.
func TestFabric_DelayQueueBounded(t *testing.T) {
	f := NewFabric("127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer f.Close()
	r1, r2 := newRouter(t, "R1"), newRouter(t, "R2")
	l := &app.Link{ID: "l", LinkType: "ethernet", Filters: map[string]json.RawMessage{"delay": json.RawMessage(`[2000, 0]`)}, Nodes: []app.LinkEnd{
		{NodeID: r1.node.ID}, {NodeID: r2.node.ID}}}
	f.Load([]*app.Node{r1.node, r2.node}, []*app.Link{l})
	w := f.topo.Load().links["l"]

	frame := make([]byte, 64)
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; i < 3*maxDelayed && time.Now().Before(deadline) && f.Dropped.Load() == 0; i++ {
		if _, err := r1.conn.WriteToUDP(frame, r1.lab); err != nil {
			t.Fatal(err)
		}
		if i%100 == 99 {
			time.Sleep(time.Millisecond) // let the reader keep up: the kernel would drop instead
		}
	}
	time.Sleep(50 * time.Millisecond)
	if got := w.delayed.Load(); got > maxDelayed {
		t.Fatalf("the link holds %d delayed frames, more than its bound %d", got, maxDelayed)
	}
	if f.Dropped.Load() == 0 {
		t.Fatalf("no frame dropped after %d held back: the delay queue is not bounded", w.delayed.Load())
	}
}

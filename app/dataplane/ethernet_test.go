package dataplane

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"
)

// ethT0 is the arrival time of the tests' first frame.
const ethT0 = int64(1_700_000_000 * time.Second)

// ethHost is the test host n's MAC address.
func ethHost(n byte) []byte { return []byte{0x02, 0, 0, 0, 0, n} }

var (
	ethBcast = []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	ethMcast = []byte{0x01, 0x00, 0x5e, 0x00, 0x00, 0x05}
)

// ethFrame builds an untagged IPv4 frame from src to dst carrying payload.
func ethFrame(dst, src []byte, payload ...byte) []byte {
	f := slices.Concat(dst, src, []byte{0x08, 0x00}, payload)
	if len(payload) == 0 {
		f = append(f, 0xaa, 0xbb, 0xcc, 0xdd)
	}
	return f
}

// ethTag returns frame with the tag (tpid, tci) inserted after its source
// address.
func ethTag(frame []byte, tpid, tci uint16) []byte {
	t := binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, tpid), tci)
	return slices.Concat(frame[:12], t, frame[12:])
}

// newEthOut returns an Out big enough for any test.
func newEthOut() *Out { return NewOut(64, 8*(MaxFrame+tagLen)) }

// ethSend gives frame to e on port at time now and returns copies of what
// e emitted, by port. e may neither modify frame nor emit twice on a port.
func ethSend(tb testing.TB, e Engine, port int, frame []byte, now int64) map[int][]byte {
	tb.Helper()
	out := newEthOut()
	out.Reset(now)
	orig := bytes.Clone(frame)
	e.Input(port, frame, out)
	if !bytes.Equal(frame, orig) {
		tb.Fatalf("Input modified its frame")
	}
	got := map[int][]byte{}
	for _, em := range out.Frames() {
		if _, dup := got[em.Port]; dup {
			tb.Fatalf("port %d emitted twice", em.Port)
		}
		got[em.Port] = bytes.Clone(em.Frame)
	}
	return got
}

// ethDiff reports the difference between two emissions, or "".
func ethDiff(got, want map[int][]byte) string {
	if maps.EqualFunc(got, want, bytes.Equal) {
		return ""
	}
	return fmt.Sprintf("got\n%s\nwant\n%s", ethDump(got), ethDump(want))
}

// ethDump shows an emission, by port, in hex.
func ethDump(m map[int][]byte) string {
	var b bytes.Buffer
	for _, p := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "  port %d: % x\n", p, m[p])
	}
	return b.String()
}

func TestEthernet_ParseTPID(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		in   *string
		want uint16
		ok   bool
	}{
		{nil, 0x8100, true},
		{str(""), 0x8100, true},
		{str("0x8100"), 0x8100, true},
		{str("0x88A8"), 0x88a8, true},
		{str("0x88a8"), 0x88a8, true},
		{str("0x9100"), 0x9100, true},
		{str("0x9200"), 0x9200, true},
		{str("0x0800"), 0, false},
		{str("88A8"), 0, false},
		{str("0x88A80"), 0, false},
	}
	for _, tt := range tests {
		got, ok := parseTPID(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseTPID(%v) = %#x, %v; want %#x, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestEthernet_TagHelpers(t *testing.T) {
	f := ethFrame(ethHost(2), ethHost(1), 1, 2, 3)
	tagged := ethTag(f, 0x88a8, 0xa00a)
	out := newEthOut()
	if got := pushTag(out, f, 0x88a8, 0xa00a); !bytes.Equal(got, tagged) {
		t.Errorf("pushTag = % x, want % x", got, tagged)
	}
	if got := popTag(out, tagged); !bytes.Equal(got, f) {
		t.Errorf("popTag = % x, want % x", got, f)
	}
	if got := retag(out, tagged, 0x8100, 7); !bytes.Equal(got, ethTag(f, 0x8100, 7)) {
		t.Errorf("retag = % x", got)
	}
	if k := macKey(4094, ethHost(9)); k>>48 != 4094 || !bytes.Equal(keyMAC(k), ethHost(9)) {
		t.Errorf("macKey/keyMAC round trip: %#x, %v", k, keyMAC(k))
	}
	full := NewOut(1, 0)
	if pushTag(full, f, 0x8100, 1) != nil || popTag(full, tagged) != nil || retag(full, tagged, 0x8100, 1) != nil {
		t.Error("a full arena must give nil")
	}
	if full.Dropped != 3 {
		t.Errorf("Dropped = %d, want 3", full.Dropped)
	}
}

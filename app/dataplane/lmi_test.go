package dataplane

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// The enquiries a router sends, written from the standards' layouts:
// address, UI (0x03), protocol discriminator, call reference 0,
// STATUS ENQUIRY (0x75), [ANSI locking shift 0x95], report type element
// (id, length 1, type), link integrity element (id, length 2, send
// sequence number, receive sequence number).

// ansiEnquiry is an ANSI T1.617 Annex D STATUS ENQUIRY on DLCI 0.
func ansiEnquiry(report, ssn, rsn byte) []byte {
	return []byte{0x00, 0x01, 0x03, 0x08, 0x00, 0x75, 0x95, 0x01, 0x01, report, 0x03, 0x02, ssn, rsn}
}

// q933Enquiry is an ITU-T Q.933 Annex A STATUS ENQUIRY on DLCI 0.
func q933Enquiry(report, ssn, rsn byte) []byte {
	return []byte{0x00, 0x01, 0x03, 0x08, 0x00, 0x75, 0x51, 0x01, report, 0x53, 0x02, ssn, rsn}
}

// ciscoEnquiry is a Cisco LMI STATUS ENQUIRY on DLCI 1023.
func ciscoEnquiry(report, ssn, rsn byte) []byte {
	return []byte{0xfc, 0xf1, 0x03, 0x09, 0x00, 0x75, 0x01, 0x01, report, 0x03, 0x02, ssn, rsn}
}

// lmiMappings put DLCIs 50, 101 and 102 on port 1 and one DLCI on each of
// ports 2, 3 and 4.
var lmiMappings = map[string]string{"1:101": "2:201", "1:102": "3:301", "4:50": "1:50"}

func TestLMI_StatusReply(t *testing.T) {
	tests := []struct {
		name    string
		enquiry []byte
		want    []byte
		pvcs    []int // the PVCs the reply lists, decoded by the standard's layout
	}{
		{"ANSI full status", ansiEnquiry(0, 0x21, 0), []byte{
			0x00, 0x01, 0x03, 0x08, 0x00, 0x7d, 0x95,
			0x01, 0x01, 0x00,
			0x03, 0x02, 0x01, 0x21,
			0x07, 0x03, 0x03, 0x90, 0x82, // DLCI 50 = 000011 0010
			0x07, 0x03, 0x06, 0xa8, 0x82, // DLCI 101 = 000110 0101
			0x07, 0x03, 0x06, 0xb0, 0x82, // DLCI 102 = 000110 0110
		}, []int{50, 101, 102}},
		{"ANSI link integrity", ansiEnquiry(1, 0x21, 0), []byte{
			0x00, 0x01, 0x03, 0x08, 0x00, 0x7d, 0x95, 0x01, 0x01, 0x01, 0x03, 0x02, 0x01, 0x21,
		}, nil},
		{"Q.933 full status", q933Enquiry(0, 0x21, 0), []byte{
			0x00, 0x01, 0x03, 0x08, 0x00, 0x7d,
			0x51, 0x01, 0x00,
			0x53, 0x02, 0x01, 0x21,
			0x57, 0x03, 0x03, 0x90, 0x82,
			0x57, 0x03, 0x06, 0xa8, 0x82,
			0x57, 0x03, 0x06, 0xb0, 0x82,
		}, []int{50, 101, 102}},
		{"Q.933 link integrity", q933Enquiry(1, 0x21, 0), []byte{
			0x00, 0x01, 0x03, 0x08, 0x00, 0x7d, 0x51, 0x01, 0x01, 0x53, 0x02, 0x01, 0x21,
		}, nil},
		{"Cisco full status", ciscoEnquiry(0, 0x21, 0), []byte{
			0xfc, 0xf1, 0x03, 0x09, 0x00, 0x7d,
			0x01, 0x01, 0x00,
			0x03, 0x02, 0x01, 0x21,
			0x07, 0x06, 0x00, 0x32, 0x02, 0x00, 0x00, 0x00, // DLCI 50, active, bandwidth 0
			0x07, 0x06, 0x00, 0x65, 0x02, 0x00, 0x00, 0x00,
			0x07, 0x06, 0x00, 0x66, 0x02, 0x00, 0x00, 0x00,
		}, []int{50, 101, 102}},
		{"Cisco link integrity", ciscoEnquiry(1, 0x21, 0), []byte{
			0xfc, 0xf1, 0x03, 0x09, 0x00, 0x7d, 0x01, 0x01, 0x01, 0x03, 0x02, 0x01, 0x21,
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFR(t, lmiMappings)
			got := input(f, 1, tt.enquiry)
			if len(got) != 1 || got[0].Port != 1 {
				t.Fatalf("emitted %x, want one reply on port 1", got)
			}
			if !bytes.Equal(got[0].Frame, tt.want) {
				t.Fatalf("reply\n %x\nwant\n %x", got[0].Frame, tt.want)
			}
			if pvcs := decodeActivePVCs(t, got[0].Frame); !slices.Equal(pvcs, tt.pvcs) {
				t.Fatalf("active PVCs %v, want %v", pvcs, tt.pvcs)
			}
		})
	}
}

// decodeActivePVCs reads the active PVCs of a STATUS, as a router would:
// ANSI/Q.933 elements of length 3 (DLCI high 6 bits in octet 3, low 4
// bits in bits 7-4 of octet 4), Cisco elements of length 6 (DLCI in 16
// bits), the active bit 0x02 of the status octet.
func decodeActivePVCs(t *testing.T, reply []byte) []int {
	t.Helper()
	ies := reply[6:]
	if reply[6] == 0x95 {
		ies = reply[7:]
	}
	var dlcis []int
	for len(ies) >= 2 {
		id, size := ies[0], int(ies[1])
		if len(ies) < 2+size {
			t.Fatalf("element %x overruns the reply", ies)
		}
		b := ies[2 : 2+size]
		switch {
		case (id == 0x07 || id == 0x57) && size == 3 && b[2]&0x02 != 0:
			dlcis = append(dlcis, int(b[0]&0x3f)<<4|int(b[1]&0x78)>>3)
		case id == 0x07 && size == 6 && b[2]&0x02 != 0:
			dlcis = append(dlcis, int(b[0])<<8|int(b[1]))
		}
		ies = ies[2+size:]
	}
	return dlcis
}

func TestLMI_PortsListOwnPVCs(t *testing.T) {
	f := newFR(t, lmiMappings)
	for port, want := range map[int][]int{1: {50, 101, 102}, 2: {201}, 3: {301}, 4: {50}} {
		for _, enq := range [][]byte{ansiEnquiry(0, 1, 0), q933Enquiry(0, 1, 0), ciscoEnquiry(0, 1, 0)} {
			got := input(f, port, enq)
			if len(got) != 1 || got[0].Port != port {
				t.Fatalf("port %d: emitted %x", port, got)
			}
			if pvcs := decodeActivePVCs(t, got[0].Frame); !slices.Equal(pvcs, want) {
				t.Fatalf("port %d: PVCs %v, want %v", port, pvcs, want)
			}
		}
	}
}

func TestLMI_Sequence(t *testing.T) {
	f := newFR(t, lmiMappings)
	steps := []struct {
		ssn, rsn byte // the router's
		send     byte // the switch's send sequence number
		resyncs  uint64
	}{
		{1, 0, 1, 0},
		{2, 1, 2, 0},
		{3, 1, 2, 1}, // the router missed our 2: follow it
		{4, 2, 3, 1},
		{5, 254, 255, 2},
		{6, 255, 1, 2}, // 0 is skipped
		{7, 1, 2, 2},
		{255, 2, 3, 2}, // the router's numbers are echoed as they are
	}
	for i, s := range steps {
		got := input(f, 1, ansiEnquiry(lmiReportLIV, s.ssn, s.rsn))
		if len(got) != 1 {
			t.Fatalf("step %d: emitted %x", i, got)
		}
		r := got[0].Frame
		if r[12] != s.send || r[13] != s.ssn {
			t.Fatalf("step %d: link integrity %x %x, want %x %x", i, r[12], r[13], s.send, s.ssn)
		}
		if st := f.LMIStats()[0]; st.Resyncs != s.resyncs {
			t.Fatalf("step %d: resyncs %d, want %d", i, st.Resyncs, s.resyncs)
		}
	}
	want := LMIStats{Port: 1, Variant: LMIANSI, LinkIntegrity: uint64(len(steps)), Resyncs: 2, SendSeq: 3, ReceiveSeq: 255}
	if st := f.LMIStats()[0]; st != want {
		t.Fatalf("stats %+v, want %+v", st, want)
	}
	// Each dialect has its own sequence: a first Cisco enquiry is no resync.
	got := input(f, 1, ciscoEnquiry(lmiReportFull, 1, 0))
	if len(got) != 1 || got[0].Frame[11] != 1 || got[0].Frame[12] != 1 {
		t.Fatalf("Cisco reply %x", got)
	}
	want = LMIStats{Port: 1, Variant: LMICisco, FullStatus: 1, LinkIntegrity: uint64(len(steps)), Resyncs: 2, SendSeq: 1, ReceiveSeq: 1}
	if st := f.LMIStats()[0]; st != want {
		t.Fatalf("stats %+v, want %+v", st, want)
	}
}

func TestLMI_Accepted(t *testing.T) {
	tests := []struct {
		name    string
		enquiry []byte
		report  byte
	}{
		{"unknown element after both is ignored", append(ansiEnquiry(0, 1, 0), 0x09, 0x01, 0x00), 0},
		{"link integrity before report type", []byte{0x00, 0x01, 0x03, 0x08, 0x00, 0x75, 0x95, 0x03, 0x02, 0x01, 0x00, 0x01, 0x01, 0x01}, 1},
		{"two trailing bytes", append(q933Enquiry(1, 1, 0), 0xff, 0xff), 1},
		{"C/R, FECN, BECN and DE set", []byte{0xfe, 0xff, 0x03, 0x09, 0x00, 0x75, 0x01, 0x01, 0x00, 0x03, 0x02, 0x01, 0x00}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFR(t, lmiMappings)
			got := input(f, 1, tt.enquiry)
			if len(got) != 1 || got[0].Frame[5] != lmiStatus {
				t.Fatalf("emitted %x, want a STATUS", got)
			}
			st := f.LMIStats()[0]
			if tt.report == 0 && st.FullStatus != 1 || tt.report == 1 && st.LinkIntegrity != 1 {
				t.Fatalf("stats %+v, want one answer of report type %d", st, tt.report)
			}
		})
	}
}

func TestLMI_Garbage(t *testing.T) {
	ansi := ansiEnquiry(0, 1, 0)
	with := func(b []byte, i int, v byte) []byte { b = slices.Clone(b); b[i] = v; return b }
	tests := []struct {
		name  string
		frame []byte
	}{
		{"header only", ansi[:6]},
		{"locking shift only", ansi[:7]},
		{"report element cut", ansi[:9]},
		{"no link integrity", ansi[:10]},
		{"link integrity cut", ansi[:13]},
		{"not UI", with(ansi, 2, 0x13)},
		{"Cisco PD on DLCI 0", with(ansi, 3, 0x09)},
		{"other PD", with(ansi, 3, 0xcc)},
		{"call reference 1", with(ansi, 4, 0x01)},
		{"a STATUS, not an enquiry", with(ansi, 5, 0x7d)},
		{"report type 2 (single PVC)", with(ansi, 9, 0x02)},
		{"report type 0xff", with(ansi, 9, 0xff)},
		{"report element of length 2", []byte{0x00, 0x01, 0x03, 0x08, 0x00, 0x75, 0x95, 0x01, 0x02, 0x00, 0x00, 0x03, 0x02, 0x01, 0x00}},
		{"link integrity of length 1", []byte{0x00, 0x01, 0x03, 0x08, 0x00, 0x75, 0x95, 0x01, 0x01, 0x00, 0x03, 0x01, 0x01}},
		{"element overruns", []byte{0x00, 0x01, 0x03, 0x08, 0x00, 0x75, 0x95, 0x01, 0x01, 0x00, 0x03, 0x09, 0x01, 0x00}},
		{"report twice", []byte{0x00, 0x01, 0x03, 0x08, 0x00, 0x75, 0x95, 0x01, 0x01, 0x00, 0x01, 0x01, 0x00, 0x03, 0x02, 0x01, 0x00}},
		{"link integrity twice", append(slices.Clone(ansi), 0x03, 0x02, 0x01, 0x00)},
		{"unknown element first", []byte{0x00, 0x01, 0x03, 0x08, 0x00, 0x75, 0x95, 0x09, 0x00, 0x00, 0x01, 0x01, 0x00, 0x03, 0x02, 0x01, 0x00}},
		{"ANSI elements without the locking shift", []byte{0x00, 0x01, 0x03, 0x08, 0x00, 0x75, 0x01, 0x01, 0x00, 0x03, 0x02, 0x01, 0x00}},
		{"Q.933 elements after the locking shift", []byte{0x00, 0x01, 0x03, 0x08, 0x00, 0x75, 0x95, 0x51, 0x01, 0x00, 0x53, 0x02, 0x01, 0x00}},
		{"ANSI on DLCI 1023", append([]byte{0xfc, 0xf1}, ansi[2:]...)},
		{"Cisco with ANSI PD", with(ciscoEnquiry(0, 1, 0), 3, 0x08)},
		{"Cisco with locking shift", []byte{0xfc, 0xf1, 0x03, 0x09, 0x00, 0x75, 0x95, 0x01, 0x01, 0x00, 0x03, 0x02, 0x01, 0x00}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFR(t, lmiMappings)
			if got := input(f, 1, tt.frame); len(got) != 0 {
				t.Fatalf("answered %x with %x", tt.frame, got)
			}
			if st := f.LMIStats()[0]; st.Invalid != 1 || st.FullStatus+st.LinkIntegrity != 0 || st.SendSeq != 0 {
				t.Fatalf("stats %+v, want one invalid frame and no answer", st)
			}
		})
	}
}

func TestLMI_RandomGarbageNeverPanics(t *testing.T) {
	f := newFR(t, lmiMappings)
	rng := rand.New(rand.NewPCG(1, 2))
	out := NewOut(8, 2*MaxFrame)
	prefixes := [][]byte{ansiEnquiry(0, 1, 0)[:7], q933Enquiry(0, 1, 0)[:6], ciscoEnquiry(0, 1, 0)[:6]}
	for i := range 5000 {
		frame := slices.Clone(prefixes[i%len(prefixes)])
		for range rng.IntN(24) {
			frame = append(frame, byte(rng.IntN(4)*0x50+rng.IntN(4)))
		}
		frame = frame[:rng.IntN(len(frame)+1)]
		out.Reset(0)
		f.Input(1+i%4, frame, out)
		for _, e := range out.Frames() {
			if len(e.Frame) < 13 || e.Frame[5] != lmiStatus {
				t.Fatalf("%x answered with %x", frame, e.Frame)
			}
		}
	}
}

func TestLMIVariant_String(t *testing.T) {
	for v, want := range map[LMIVariant]string{LMINone: "none", LMIANSI: "ansi", LMIQ933: "q933a", LMICisco: "cisco", 9: "none"} {
		if got := v.String(); got != want {
			t.Errorf("%d: %q, want %q", v, got, want)
		}
	}
}

package dataplane

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"nodedesk/app"
)

func swAccess(vlan int) app.SwitchPort { return app.SwitchPort{Type: "access", VLAN: vlan} }
func swDot1Q(vlan int) app.SwitchPort  { return app.SwitchPort{Type: "dot1q", VLAN: vlan} }

// swQinQ is a Q-in-Q port; ethertype "" leaves it nil.
func swQinQ(vlan int, ethertype string) app.SwitchPort {
	p := app.SwitchPort{Type: "qinq", VLAN: vlan}
	if ethertype != "" {
		p.Ethertype = &ethertype
	}
	return p
}

// ethSwitchNode is a switch node whose ports_mapping is ports.
func ethSwitchNode(ports ...app.SwitchPort) *app.Node {
	for i := range ports {
		ports[i].Name, ports[i].PortNumber = fmt.Sprintf("Ethernet%d", i), i
	}
	return &app.Node{Type: "ethernet_switch", Properties: app.Properties{SwitchPorts: ports}}
}

// newEthSwitch returns a switch configured with ports.
func newEthSwitch(ports ...app.SwitchPort) *EthernetSwitch {
	s := NewEthernetSwitch()
	s.Configure(ethSwitchNode(ports...))
	return s
}

// ethStep is one frame given to a switch and what it must emit.
type ethStep struct {
	name  string
	in    int
	frame []byte
	at    time.Duration // after ethT0
	want  map[int][]byte
}

// ethRun plays steps on e in order.
func ethRun(t *testing.T, e Engine, steps []ethStep) {
	t.Helper()
	for i, st := range steps {
		got := ethSend(t, e, st.in, st.frame, ethT0+int64(st.at))
		if d := ethDiff(got, st.want); d != "" {
			t.Errorf("step %d (%s): %s", i, st.name, d)
		}
	}
}

// noFrames is the empty emission.
var noFrames = map[int][]byte{}

func TestEthernetSwitch_Learning(t *testing.T) {
	aBcast := ethFrame(ethBcast, ethHost(1))
	aMcast := ethFrame(ethMcast, ethHost(1))
	aToB, bToA := ethFrame(ethHost(2), ethHost(1)), ethFrame(ethHost(1), ethHost(2))
	eToA := ethFrame(ethHost(1), ethHost(5))
	ethRun(t, newEthSwitch(swAccess(1), swAccess(1), swAccess(1)), []ethStep{
		{"unknown unicast floods", 0, aToB, 0, map[int][]byte{1: aToB, 2: aToB}},
		{"learnt source gets unicast", 1, bToA, 0, map[int][]byte{0: bToA}},
		{"both learnt", 0, aToB, 0, map[int][]byte{1: aToB}},
		{"broadcast floods", 0, aBcast, 0, map[int][]byte{1: aBcast, 2: aBcast}},
		{"multicast floods", 1, aMcast, 0, map[int][]byte{0: aMcast, 2: aMcast}},
		{"station moves", 2, aToB, 0, map[int][]byte{1: aToB}},
		{"to its new port", 1, bToA, 0, map[int][]byte{2: bToA}},
		{"destination on input port dropped", 2, eToA, 0, noFrames},
	})
}

func TestEthernetSwitch_GroupSourceNotLearnt(t *testing.T) {
	s := newEthSwitch(swAccess(1), swAccess(1))
	f := ethFrame(ethBcast, ethMcast)
	ethRun(t, s, []ethStep{{"floods", 0, f, 0, map[int][]byte{1: f}}})
	if tab := s.MACTable(ethT0); len(tab) != 0 {
		t.Errorf("learnt a group address: %v", tab)
	}
}

func TestEthernetSwitch_EmitsInputFrame(t *testing.T) {
	s := newEthSwitch(swAccess(1), swAccess(1), swDot1Q(1), swDot1Q(1))
	for _, tt := range []struct {
		in    int
		frame []byte
	}{
		{0, ethFrame(ethBcast, ethHost(1))},
		{2, ethTag(ethFrame(ethBcast, ethHost(1)), 0x8100, 0x6000|7)},
	} {
		out := newEthOut()
		s.Input(tt.in, tt.frame, out)
		unchanged := 0
		for _, em := range out.Frames() {
			if bytes.Equal(em.Frame, tt.frame) {
				unchanged++
				if &em.Frame[0] != &tt.frame[0] {
					t.Errorf("port %d -> %d: unchanged frame copied", tt.in, em.Port)
				}
			}
		}
		if unchanged == 0 {
			t.Errorf("port %d: no frame sent unchanged", tt.in)
		}
	}
}

func TestEthernetSwitch_VLANIsolation(t *testing.T) {
	// 0, 1: access 10; 2, 3: access 20; 4: trunk, native VLAN 1.
	s := newEthSwitch(swAccess(10), swAccess(10), swAccess(20), swAccess(20), swDot1Q(1))
	a10, a20 := ethFrame(ethBcast, ethHost(1)), ethFrame(ethBcast, ethHost(1), 20)
	cToA := ethFrame(ethHost(1), ethHost(3))
	dToA := ethFrame(ethHost(1), ethHost(4))
	ethRun(t, s, []ethStep{
		{"VLAN 10 broadcast", 0, a10, 0, map[int][]byte{1: a10, 4: ethTag(a10, 0x8100, 10)}},
		{"VLAN 20 unicast to A of VLAN 10 floods in 20", 2, cToA, 0, map[int][]byte{3: cToA, 4: ethTag(cToA, 0x8100, 20)}},
		{"same MAC in VLAN 20", 3, a20, 0, map[int][]byte{2: a20, 4: ethTag(a20, 0x8100, 20)}},
		{"A of VLAN 20", 2, cToA, 0, map[int][]byte{3: cToA}},
		{"A of VLAN 10", 1, dToA, 0, map[int][]byte{0: dToA}},
	})
	want := []MACEntry{
		{VLAN: 10, MAC: ethHost(1), Port: 0},
		{VLAN: 10, MAC: ethHost(4), Port: 1},
		{VLAN: 20, MAC: ethHost(1), Port: 3},
		{VLAN: 20, MAC: ethHost(3), Port: 2},
	}
	if got := s.MACTable(ethT0); !slices.EqualFunc(got, want, sameMACEntry) {
		t.Errorf("MACTable = %v, want %v", got, want)
	}
}

// sameMACEntry compares two MAC table entries.
func sameMACEntry(a, b MACEntry) bool {
	return a.VLAN == b.VLAN && bytes.Equal(a.MAC, b.MAC) && a.Port == b.Port && a.Age == b.Age
}

func TestEthernetSwitch_Trunk(t *testing.T) {
	f := ethFrame(ethBcast, ethHost(1))
	// 0: access 10; 1: access 1; 2: trunk native 1; 3: trunk native 10;
	// 4: access 20.
	ports := []app.SwitchPort{swAccess(10), swAccess(1), swDot1Q(1), swDot1Q(10), swAccess(20)}
	tests := []struct {
		name  string
		in    int
		frame []byte
		want  map[int][]byte
	}{
		{"access 10 tagged on trunk, native elsewhere", 0, f,
			map[int][]byte{2: ethTag(f, 0x8100, 10), 3: f}},
		{"access 1 tagged on trunk, native elsewhere", 1, f,
			map[int][]byte{2: f, 3: ethTag(f, 0x8100, 1)}},
		{"untagged on trunk is native VLAN", 2, f,
			map[int][]byte{1: f, 3: ethTag(f, 0x8100, 1)}},
		{"tagged 10 popped on access and native", 2, ethTag(f, 0x8100, 10),
			map[int][]byte{0: f, 3: f}},
		{"tagged 20 keeps tag and priority", 3, ethTag(f, 0x8100, 0xa000|20),
			map[int][]byte{2: ethTag(f, 0x8100, 0xa000|20), 4: f}},
		{"tagged with own native VLAN", 2, ethTag(f, 0x8100, 1),
			map[int][]byte{1: f, 3: ethTag(f, 0x8100, 1)}},
		{"priority tag joins native VLAN, priority kept", 2, ethTag(f, 0x8100, 0xa000),
			map[int][]byte{1: f, 3: ethTag(f, 0x8100, 0xa000|1)}},
		{"0x88A8 tag read as a VLAN tag", 2, ethTag(f, 0x88a8, 10),
			map[int][]byte{0: f, 3: f}},
		{"0x9100 tag kept between trunks", 3, ethTag(f, 0x9100, 20),
			map[int][]byte{2: ethTag(f, 0x9100, 20), 4: f}},
		{"VID 4095 dropped", 2, ethTag(f, 0x8100, 4095), noFrames},
		{"VLAN with no port", 2, ethTag(f, 0x8100, 99),
			map[int][]byte{3: ethTag(f, 0x8100, 99)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ethSend(t, newEthSwitch(ports...), tt.in, tt.frame, ethT0)
			if d := ethDiff(got, tt.want); d != "" {
				t.Error(d)
			}
		})
	}
}

func TestEthernetSwitch_TrunkUnicast(t *testing.T) {
	// 0: access 10; 1: trunk native 1; 2: access 10.
	s := newEthSwitch(swAccess(10), swDot1Q(1), swAccess(10))
	aToB, bToA := ethFrame(ethHost(2), ethHost(1)), ethFrame(ethHost(1), ethHost(2))
	ethRun(t, s, []ethStep{
		{"B behind the trunk", 1, ethTag(bToA, 0x8100, 10), 0, map[int][]byte{0: bToA, 2: bToA}},
		{"A answers B: pushed", 0, aToB, 0, map[int][]byte{1: ethTag(aToB, 0x8100, 10)}},
		{"B to A: popped", 1, ethTag(bToA, 0x8100, 10), 0, map[int][]byte{0: bToA}},
		{"B in VLAN 1 is another entry", 1, bToA, 0, noFrames},
	})
}

func TestEthernetSwitch_AccessTaggedFrame(t *testing.T) {
	// dynamips takes a tagged frame on an access port as a frame of the
	// access VLAN: it crosses access ports as it is and trunks under a
	// second tag.
	s := newEthSwitch(swAccess(10), swAccess(10), swAccess(20), swDot1Q(1))
	f := ethTag(ethFrame(ethBcast, ethHost(1)), 0x8100, 20)
	ethRun(t, s, []ethStep{
		{"tagged on access", 0, f, 0, map[int][]byte{1: f, 3: ethTag(f, 0x8100, 10)}},
	})
}

func TestEthernetSwitch_QinQ(t *testing.T) {
	for _, et := range []struct {
		name string
		tpid uint16
	}{{"", 0x8100}, {"0x8100", 0x8100}, {"0x88A8", 0x88a8}, {"0x9100", 0x9100}, {"0x9200", 0x9200}} {
		t.Run("ethertype "+et.name, func(t *testing.T) {
			// 0: qinq 30; 1: trunk native 1; 2: trunk native 30;
			// 3: access 30; 4: qinq 30, 0x88A8; 5: access 31.
			s := newEthSwitch(swQinQ(30, et.name), swDot1Q(1), swDot1Q(30), swAccess(30), swQinQ(30, "0x88A8"), swAccess(31))
			cust := ethTag(ethFrame(ethBcast, ethHost(1)), 0x8100, 100)
			outer := ethTag(cust, et.tpid, 30)
			reply := ethTag(ethFrame(ethHost(1), ethHost(2)), 0x8100, 100)
			ethRun(t, s, []ethStep{
				{"customer frame enters the tunnel", 0, cust, 0,
					map[int][]byte{1: outer, 2: outer, 3: cust, 4: cust}},
				{"untagged frame dropped", 0, ethFrame(ethBcast, ethHost(1)), 0, noFrames},
				{"outer tag popped at the tunnel", 1, ethTag(reply, et.tpid, 30), 0,
					map[int][]byte{0: reply}},
				{"from access to tunnel", 3, cust, 0,
					map[int][]byte{0: cust, 1: ethTag(cust, 0x8100, 30), 2: cust, 4: cust}},
			})
		})
	}
}

func TestEthernetSwitch_QinQBothEnds(t *testing.T) {
	// Two switches joined by a trunk: a tunnel port on each side.
	a := newEthSwitch(swQinQ(30, "0x88A8"), swDot1Q(1))
	b := newEthSwitch(swDot1Q(1), swQinQ(30, "0x88A8"))
	cust := ethTag(ethFrame(ethBcast, ethHost(1)), 0x8100, 100)
	onTrunk := ethSend(t, a, 0, cust, ethT0)[1]
	if d := ethDiff(ethSend(t, b, 0, onTrunk, ethT0), map[int][]byte{1: cust}); d != "" {
		t.Error(d)
	}
}

func TestEthernetSwitch_Aging(t *testing.T) {
	s := newEthSwitch(swAccess(1), swAccess(1), swAccess(1))
	aBcast, bToA, aToB := ethFrame(ethBcast, ethHost(1)), ethFrame(ethHost(1), ethHost(2)), ethFrame(ethHost(2), ethHost(1))
	sec := time.Second
	ethRun(t, s, []ethStep{
		{"A heard", 0, aBcast, 0, map[int][]byte{1: aBcast, 2: aBcast}},
		{"A known until 300 s", 1, bToA, 299*sec + 999*time.Millisecond, map[int][]byte{0: bToA}},
		{"A aged at 300 s", 1, bToA, 300 * sec, map[int][]byte{0: bToA, 2: bToA}},
		{"B refreshed by its frames, A heard again", 0, aToB, 599 * sec, map[int][]byte{1: aToB}},
		{"A known again", 1, bToA, 600 * sec, map[int][]byte{0: bToA}},
	})
}

func TestEthernetSwitch_MACTable(t *testing.T) {
	s := newEthSwitch(swAccess(20), swAccess(10), swDot1Q(1))
	sec := time.Second
	ethRun(t, s, []ethStep{
		{"", 0, ethFrame(ethBcast, ethHost(9)), 0, map[int][]byte{2: ethTag(ethFrame(ethBcast, ethHost(9)), 0x8100, 20)}},
		{"", 1, ethFrame(ethBcast, ethHost(3)), 10 * sec, map[int][]byte{2: ethTag(ethFrame(ethBcast, ethHost(3)), 0x8100, 10)}},
		{"", 2, ethFrame(ethBcast, ethHost(2)), 100 * sec, map[int][]byte{}},
		{"", 2, ethTag(ethFrame(ethBcast, ethHost(1)), 0x8100, 20), 200 * sec, map[int][]byte{0: ethFrame(ethBcast, ethHost(1))}},
	})
	tests := []struct {
		at   time.Duration
		want []MACEntry
	}{
		{200 * sec, []MACEntry{
			{VLAN: 1, MAC: ethHost(2), Port: 2, Age: 100 * sec},
			{VLAN: 10, MAC: ethHost(3), Port: 1, Age: 190 * sec},
			{VLAN: 20, MAC: ethHost(1), Port: 2, Age: 0},
			{VLAN: 20, MAC: ethHost(9), Port: 0, Age: 200 * sec},
		}},
		{300 * sec, []MACEntry{
			{VLAN: 1, MAC: ethHost(2), Port: 2, Age: 200 * sec},
			{VLAN: 10, MAC: ethHost(3), Port: 1, Age: 290 * sec},
			{VLAN: 20, MAC: ethHost(1), Port: 2, Age: 100 * sec},
		}},
		{500*sec - 1, []MACEntry{{VLAN: 20, MAC: ethHost(1), Port: 2, Age: 300*sec - 1}}},
		{500 * sec, []MACEntry{}},
	}
	for _, tt := range tests {
		if got := s.MACTable(ethT0 + int64(tt.at)); !slices.EqualFunc(got, tt.want, sameMACEntry) {
			t.Errorf("MACTable(+%v) = %v, want %v", tt.at, got, tt.want)
		}
	}
	s.ClearMACTable()
	if got := s.MACTable(ethT0); len(got) != 0 {
		t.Errorf("after ClearMACTable: %v", got)
	}
	aToB := ethFrame(ethHost(9), ethHost(1))
	ethRun(t, s, []ethStep{{"cleared: floods", 0, aToB, 0, map[int][]byte{2: ethTag(aToB, 0x8100, 20)}}})
}

func TestEthernetSwitch_Reconfigure(t *testing.T) {
	s := newEthSwitch(swAccess(10), swAccess(10), swAccess(10), swDot1Q(1), swQinQ(10, "0x88A8"))
	for p := range 5 {
		f := ethFrame(ethBcast, ethHost(byte(p+1)))
		if p == 3 {
			f = ethTag(f, 0x8100, 10)
		}
		if p == 4 {
			f = ethTag(f, 0x8100, 100)
		}
		ethSend(t, s, p, f, ethT0)
	}
	if got := len(s.MACTable(ethT0)); got != 5 {
		t.Fatalf("%d addresses learnt, want 5", got)
	}
	// Port 0 unchanged, 1 moves to VLAN 20, 2 becomes a trunk, 3 keeps its
	// type and VLAN, 4 changes only its ethertype, 5 is new.
	s.Configure(ethSwitchNode(swAccess(10), swAccess(20), swDot1Q(10), swDot1Q(1), swQinQ(10, "0x9100"), swAccess(10)))
	want := []MACEntry{
		{VLAN: 10, MAC: ethHost(1), Port: 0},
		{VLAN: 10, MAC: ethHost(4), Port: 3},
		{VLAN: 10, MAC: ethHost(5), Port: 4},
	}
	if got := s.MACTable(ethT0); !slices.EqualFunc(got, want, sameMACEntry) {
		t.Errorf("after reconfigure: %v, want %v", got, want)
	}
	toB, toQ := ethFrame(ethHost(2), ethHost(1)), ethFrame(ethHost(5), ethHost(1))
	cust := ethTag(ethFrame(ethBcast, ethHost(5)), 0x8100, 7)
	ethRun(t, s, []ethStep{
		{"forgotten address floods in new layout", 0, toB, 0,
			map[int][]byte{2: toB, 3: ethTag(toB, 0x8100, 10), 4: toB, 5: toB}},
		{"kept address", 0, toQ, 0, map[int][]byte{4: toQ}},
		{"new ethertype used", 4, cust, 0,
			map[int][]byte{0: cust, 2: ethTag(cust, 0x9100, 10), 3: ethTag(cust, 0x9100, 10), 5: cust}},
	})
	s.Configure(ethSwitchNode(swAccess(10), swAccess(20)))
	want = want[:1]
	if got := s.MACTable(ethT0); !slices.EqualFunc(got, want, sameMACEntry) {
		t.Errorf("after removing ports: %v, want %v", got, want)
	}
	ethRun(t, s, []ethStep{
		{"removed port", 3, ethFrame(ethBcast, ethHost(4)), 0, noFrames},
		{"alone in its VLAN", 1, ethFrame(ethBcast, ethHost(2)), 0, noFrames},
	})
}

func TestEthernetSwitch_Drops(t *testing.T) {
	f := ethFrame(ethBcast, ethHost(1))
	big := slices.Concat(f, make([]byte, MaxFrame-len(f)))
	giant := append(slices.Clone(big), 0)
	junk := bytes.Repeat([]byte{0xff}, 20)
	str := func(s string) *string { return &s }
	// 0, 1: access 1; 2: trunk native 1; 3: qinq 1; then misconfigured ports.
	s := newEthSwitch(swAccess(1), swAccess(1), swDot1Q(1), swQinQ(1, ""),
		app.SwitchPort{Type: "isl", VLAN: 1}, swAccess(0), swAccess(4095), swDot1Q(5000),
		app.SwitchPort{Type: "qinq", VLAN: 1, Ethertype: str("0x0800")})
	tests := []struct {
		name  string
		in    int
		frame []byte
		want  map[int][]byte
	}{
		{"empty", 0, nil, noFrames},
		{"runt", 0, f[:13], noFrames},
		{"header only", 0, f[:14], map[int][]byte{1: f[:14], 2: f[:14], 3: f[:14]}},
		{"largest", 0, big, map[int][]byte{1: big, 2: big, 3: big}},
		{"giant", 0, giant, noFrames},
		{"truncated tag on trunk", 2, ethTag(f, 0x8100, 1)[:16], noFrames},
		{"truncated tag on qinq", 3, ethTag(f, 0x8100, 1)[:17], noFrames},
		{"garbage on access", 0, junk, map[int][]byte{1: junk, 2: junk, 3: junk}},
		{"negative port", -1, f, noFrames},
		{"port out of range", 9, f, noFrames},
		{"unknown type", 4, f, noFrames},
		{"VLAN 0", 5, f, noFrames},
		{"VLAN 4095", 6, f, noFrames},
		{"VLAN 5000", 7, f, noFrames},
		{"unknown ethertype", 8, ethTag(f, 0x8100, 1), noFrames},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := ethDiff(ethSend(t, s, tt.in, tt.frame, ethT0), tt.want); d != "" {
				t.Error(d)
			}
		})
	}
	if got := s.MACTable(ethT0); len(got) != 1 || got[0].Port != 0 {
		t.Errorf("MACTable = %v, want host 1 on port 0 alone", got)
	}
}

func TestEthernetSwitch_ArenaFull(t *testing.T) {
	s := newEthSwitch(swAccess(10), swAccess(10), swDot1Q(1), swDot1Q(1))
	f := ethFrame(ethBcast, ethHost(1))
	out := NewOut(8, len(f)+tagLen) // room for one tag push only
	out.Reset(ethT0)
	s.Input(0, f, out)
	ports := []int{}
	for _, em := range out.Frames() {
		ports = append(ports, em.Port)
	}
	if !slices.Equal(ports, []int{1, 2, 3}) || out.Dropped != 0 {
		t.Errorf("emitted on %v, %d dropped; want 1, 2, 3 and the tagged frame built once", ports, out.Dropped)
	}
	out = NewOut(8, 0)
	out.Reset(ethT0)
	s.Input(0, f, out)
	if len(out.Frames()) != 1 || out.Dropped != 2 {
		t.Errorf("no arena: %d emitted, %d dropped; want 1, 2", len(out.Frames()), out.Dropped)
	}
}

func TestEthernetSwitch_Concurrent(t *testing.T) {
	layouts := []*app.Node{
		ethSwitchNode(swAccess(10), swAccess(10), swDot1Q(1), swQinQ(10, "0x88A8")),
		ethSwitchNode(swAccess(10), swAccess(20), swDot1Q(10), swAccess(10), swAccess(10)),
		ethSwitchNode(swDot1Q(1), swDot1Q(1)),
	}
	frames := [][]byte{
		ethFrame(ethBcast, ethHost(1)),
		ethFrame(ethHost(2), ethHost(1)),
		ethFrame(ethHost(1), ethHost(2)),
		ethTag(ethFrame(ethHost(3), ethHost(4)), 0x8100, 10),
		ethTag(ethFrame(ethHost(4), ethHost(3)), 0x88a8, 20),
		ethFrame(ethHost(5), ethHost(6))[:13],
	}
	s := NewEthernetSwitch()
	s.Configure(layouts[0])
	var inputs, control sync.WaitGroup
	done := make(chan struct{})
	for g := range 4 {
		inputs.Go(func() {
			out := newEthOut()
			for i := range 5000 {
				out.Reset(ethT0 + int64(i)*int64(time.Second))
				s.Input((g+i)%5, frames[(g*7+i)%len(frames)], out)
				for _, em := range out.Frames() {
					if em.Port < 0 || em.Port >= 5 || len(em.Frame) < ethHdrLen {
						t.Errorf("emitted %d bytes on port %d", len(em.Frame), em.Port)
						return
					}
				}
			}
		})
	}
	control.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			s.Configure(layouts[i%len(layouts)])
			s.MACTable(ethT0 + int64(i)*int64(time.Second))
			if i%10 == 0 {
				s.ClearMACTable()
			}
		}
	})
	inputs.Wait()
	close(done)
	control.Wait()
}

func TestEthernetSwitch_TableFull(t *testing.T) {
	s := newEthSwitch(swAccess(1), swAccess(1))
	src := func(i int) []byte { return []byte{0x0a, 0, 0, byte(i >> 16), byte(i >> 8), byte(i)} }
	out := newEthOut()
	for i := range macTableMax + 10 {
		out.Reset(ethT0)
		s.Input(0, ethFrame(ethBcast, src(i)), out)
	}
	if got := len(s.MACTable(ethT0)); got != macTableMax {
		t.Fatalf("%d addresses, want the table's bound %d", got, macTableMax)
	}
	// Once the others age out, a new address is learnt.
	later := ethT0 + int64(MACAging)
	out.Reset(later)
	s.Input(1, ethFrame(ethBcast, ethHost(1)), out)
	if got := s.MACTable(later); len(got) != 1 || got[0].Port != 1 {
		t.Errorf("after aging: %v", got)
	}
}

// ethSwitchHotPaths are the frames of the hot path, for ethSwitchHot.
func ethSwitchHotPaths() []struct {
	name  string
	in    int
	frame []byte
} {
	return []struct {
		name  string
		in    int
		frame []byte
	}{
		{"learnt unicast", 0, ethFrame(ethHost(2), ethHost(1), make([]byte, 500)...)},
		{"flood", 0, ethFrame(ethBcast, ethHost(1), make([]byte, 500)...)},
		{"tag push", 0, ethFrame(ethHost(3), ethHost(1), make([]byte, 500)...)},
		{"tag pop", 2, ethTag(ethFrame(ethHost(1), ethHost(3), make([]byte, 500)...), 0x8100, 10)},
	}
}

// ethSwitchHot is a switch that has learnt hosts 1 on port 0 and 2 on port
// 1 (access 10) and host 3 behind trunk port 2, with ports of other VLANs
// and types to flood to.
func ethSwitchHot() *EthernetSwitch {
	s := newEthSwitch(swAccess(10), swAccess(10), swDot1Q(1), swAccess(20), swQinQ(10, "0x88A8"), swDot1Q(10), swAccess(10), swAccess(10))
	out := newEthOut()
	for _, w := range []struct {
		in    int
		frame []byte
	}{{0, ethFrame(ethBcast, ethHost(1))}, {1, ethFrame(ethBcast, ethHost(2))}, {2, ethTag(ethFrame(ethBcast, ethHost(3)), 0x8100, 10)}} {
		out.Reset(ethT0)
		s.Input(w.in, w.frame, out)
	}
	return s
}

func TestEthernetSwitch_ZeroAllocs(t *testing.T) {
	s, out := ethSwitchHot(), newEthOut()
	for _, tt := range ethSwitchHotPaths() {
		allocs := testing.AllocsPerRun(200, func() {
			out.Reset(ethT0)
			s.Input(tt.in, tt.frame, out)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per frame", tt.name, allocs)
		}
		if len(out.Frames()) == 0 {
			t.Errorf("%s: nothing emitted", tt.name)
		}
	}
}

func BenchmarkEthernetSwitchInput(b *testing.B) {
	for _, tt := range ethSwitchHotPaths() {
		b.Run(tt.name, func(b *testing.B) {
			s, out := ethSwitchHot(), newEthOut()
			b.ReportAllocs()
			b.SetBytes(int64(len(tt.frame)))
			for b.Loop() {
				out.Reset(ethT0)
				s.Input(tt.in, tt.frame, out)
			}
		})
	}
}

func BenchmarkEthernetSwitchInputParallel(b *testing.B) {
	s, tt := ethSwitchHot(), ethSwitchHotPaths()[0]
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		out := newEthOut()
		for pb.Next() {
			out.Reset(ethT0)
			s.Input(tt.in, tt.frame, out)
		}
	})
}

func FuzzEthernetSwitchInput(f *testing.F) {
	f.Add(0, ethFrame(ethBcast, ethHost(1)))
	f.Add(2, ethTag(ethFrame(ethHost(1), ethHost(2)), 0x8100, 10))
	f.Add(4, ethTag(ethFrame(ethBcast, ethHost(1)), 0x88a8, 0))
	f.Add(4, ethTag(ethFrame(ethBcast, ethHost(1)), 0x9100, 4095)[:17])
	s := newEthSwitch(swAccess(10), swAccess(20), swDot1Q(1), swDot1Q(10), swQinQ(10, "0x88A8"))
	out := newEthOut()
	f.Fuzz(func(t *testing.T, port int, frame []byte) {
		out.Reset(ethT0)
		orig := bytes.Clone(frame)
		s.Input(port, frame, out)
		if !bytes.Equal(frame, orig) {
			t.Fatal("Input modified its frame")
		}
		for _, em := range out.Frames() {
			if em.Port == port || em.Port < 0 || em.Port >= 5 {
				t.Fatalf("input on %d emitted on %d", port, em.Port)
			}
			if d := len(em.Frame) - len(frame); d < -tagLen || d > tagLen {
				t.Fatalf("%d bytes in, %d out", len(frame), len(em.Frame))
			}
		}
	})
}

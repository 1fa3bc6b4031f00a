package dataplane

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestSwitchShell_Commands(t *testing.T) {
	s := newEthSwitch(swAccess(10), swAccess(20), swDot1Q(1))
	out := NewOut(8, 4*MaxFrame)
	out.Reset(time.Now().UnixNano())
	s.Input(0, ethFrame(ethBcast, ethHost(0xa), make([]byte, 46)...), out)
	tests := []struct {
		line string
		want []string // in the output, in order
	}{
		{"show mac address-table", []string{"VLAN", "MAC address", "10", "02:00:00:00:00:0a", "Ethernet0", "1 address;"}},
		{"sh mac add vlan 20", []string{"0 addresses"}},
		{"sh mac add vlan 5000", []string{"not a VLAN id"}},
		{"show interfaces", []string{"Ethernet0", "access", "10", "1", "60", "Ethernet2", "dot1q"}},
		{"show vlan", []string{"1", "Ethernet2 (trunk, native)", "10", "Ethernet0", "20", "Ethernet1", "Trunks"}},
		{"sh", []string{"Incomplete", `"show mac address-table" or "show interfaces" or "show vlan"`}},
		{"c", []string{"Incomplete", `"clear mac address-table" or "clear counters"`}},
		{"frobnicate", []string{"Unknown command"}},
		{"show vlan now", []string{"takes no arguments"}},
		{"clear counters", []string{"Counters cleared"}},
		{"?", []string{"show mac address-table [vlan <id>]", "exit"}},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := runSwitchCommand(s, &b, tt.line); err != nil {
			b.WriteString(err.Error())
		}
		got := b.String()
		rest := got
		for _, w := range tt.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%q: output lacks %q (in order):\n%s", tt.line, w, got)
				break
			}
			rest = rest[i+len(w):]
		}
	}
	if c := s.Counters()[0]; c.InFrames != 0 {
		t.Errorf("after clear counters, Ethernet0 shows %d frames in", c.InFrames)
	}
	if err := runSwitchCommand(s, &bytes.Buffer{}, "exit"); err != errExit {
		t.Errorf("exit: %v", err)
	}
}

func TestSwitchShell_Complete(t *testing.T) {
	for line, want := range map[string]string{
		"sh":         "show ",
		"show m":     "show mac ",
		"show mac a": "show mac address-table ",
		"cl":         "clear ",
		"clear ":     "", // mac or counters: ambiguous
		"show mac x": "",
		"show vlan ": "",
	} {
		got, pos, ok := completeSwitchCommand(line, len(line), '\t')
		if want == "" {
			if ok {
				t.Errorf("%q completed to %q, want nothing", line, got)
			}
			continue
		}
		if !ok || got != want || pos != len(want) {
			t.Errorf("%q completed to %q (%v), want %q", line, got, ok, want)
		}
	}
}

func TestWrapList(t *testing.T) {
	got := wrapList([]string{"Ethernet0", "Ethernet1", "Ethernet2", "Ethernet3", "Ethernet4", "Ethernet5"}, 32)
	want := []string{"Ethernet0, Ethernet1, Ethernet2,", "Ethernet3, Ethernet4, Ethernet5"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrapList = %q, want %q", got, want)
	}
}

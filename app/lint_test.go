package app_test

import (
	"cmp"
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"nodedesk/app"
	"nodedesk/store/storetest"
)

// lintLab builds a project on a real store for lint's tests: nodes by
// name, their configuration files, switch ports, links.
type lintLab struct {
	t     *testing.T
	svc   *app.Service
	st    app.Store
	pid   string
	nodes map[string]*app.Node
}

func newLintLab(t *testing.T) *lintLab {
	t.Helper()
	st := storetest.Open(t)
	svc := app.NewService(app.Config{Store: st, Events: app.NewBroker(), DataDir: t.TempDir(),
		HostInterfaces: hostInterfaces, PortFree: everyPortFree})
	return &lintLab{t: t, svc: svc, st: st, pid: mustCreateProject(t, svc, "lint").ID, nodes: map[string]*app.Node{}}
}

// node makes a node of type typ named name with properties props (JSON;
// "" for the defaults).
func (l *lintLab) node(typ app.NodeType, name, props string) *app.Node {
	l.t.Helper()
	c := app.NodeCreate{Type: typ, NodeUpdate: app.NodeUpdate{Name: app.Some(name)}}
	if props != "" {
		u, err := app.DecodeProperties(typ, []byte(props))
		if err != nil {
			l.t.Fatalf("properties of %s: %v", name, err)
		}
		c.Properties = u
	}
	n := mustCreateNode(l.t, l.svc, l.pid, c)
	l.nodes[name] = n
	return n
}

// pc makes a VPCS named name with script as its startup script.
func (l *lintLab) pc(name, script string) *app.Node {
	l.t.Helper()
	raw, _ := json.Marshal(map[string]string{"startup_script": script})
	return l.node(app.VPCS, name, string(raw))
}

// file writes a file of a node's folder.
func (l *lintLab) file(name, path, content string) {
	l.t.Helper()
	if err := l.svc.WriteNodeFile(context.Background(), ref(l.nodes[name]), path, []byte(content)); err != nil {
		l.t.Fatalf("writing %s of %s: %v", path, name, err)
	}
}

// router makes a c7200 Dynamips router with a serial adapter in slot 1
// and config as its startup config.
func (l *lintLab) router(name, config string) *app.Node {
	l.t.Helper()
	n := l.node(app.Dynamips, name, `{"platform":"c7200","slot1":"PA-4T+"}`)
	l.file(name, app.DynamipsStartupConfig(n.DynamipsID()), config)
	return n
}

// ports gives switch name its ports_mapping: "access:10", "dot1q:1",
// "qinq:100" (its ethertype 0x8100; "qinq:100:0x88a8" another), one per
// port, named Ethernet0, Ethernet1, ...
func (l *lintLab) ports(name string, modes ...string) {
	l.t.Helper()
	var ps []map[string]any
	for i, m := range modes {
		kind, rest, _ := strings.Cut(m, ":")
		vlan, ethertype, _ := strings.Cut(rest, ":")
		v, _ := strconv.Atoi(vlan)
		p := map[string]any{"name": "Ethernet" + strconv.Itoa(i), "port_number": i, "type": kind, "vlan": v}
		if kind == "qinq" {
			p["ethertype"] = cmp.Or(ethertype, "0x8100")
		}
		ps = append(ps, p)
	}
	raw, _ := json.Marshal(map[string]any{"ports_mapping": ps})
	u, err := app.DecodeProperties(app.EthernetSwitch, raw)
	if err != nil {
		l.t.Fatal(err)
	}
	if _, err := l.svc.UpdateNode(context.Background(), ref(l.nodes[name]), app.NodeUpdate{Properties: u}); err != nil {
		l.t.Fatalf("ports of %s: %v", name, err)
	}
}

// link joins port a/ap of node an to port b/bp of node bn ("PC1", 0, 0).
func (l *lintLab) link(an string, aa, ap int, bn string, ba, bp int) *app.Link {
	l.t.Helper()
	lk, err := l.svc.CreateLink(context.Background(), l.pid, app.LinkUpdate{Nodes: app.Some([]app.LinkEnd{
		{NodeID: l.nodes[an].ID, AdapterNumber: aa, PortNumber: ap}, {NodeID: l.nodes[bn].ID, AdapterNumber: ba, PortNumber: bp}})})
	if err != nil {
		l.t.Fatalf("link %s %d/%d – %s %d/%d: %v", an, aa, ap, bn, ba, bp, err)
	}
	return lk
}

func (l *lintLab) lint() []app.LintFinding {
	l.t.Helper()
	rep, err := l.svc.Lint(context.Background(), l.pid)
	if err != nil {
		l.t.Fatalf("Lint: %v", err)
	}
	for _, f := range rep.Findings {
		if f.NodeIDs == nil || f.LinkIDs == nil || f.Message == "" || (f.Severity != app.SeverityError && f.Severity != app.SeverityWarning) {
			l.t.Errorf("finding %+v breaks the contract (nil lists, no message, unknown severity)", f)
		}
	}
	return rep.Findings
}

func (l *lintLab) addresses() []app.HostAddress {
	l.t.Helper()
	as, err := l.svc.HostAddresses(context.Background(), l.pid)
	if err != nil {
		l.t.Fatalf("HostAddresses: %v", err)
	}
	return as
}

// ids are the ids of the named nodes.
func (l *lintLab) ids(names ...string) []string {
	var ids []string
	for _, n := range names {
		ids = append(ids, l.nodes[n].ID)
	}
	slices.Sort(ids)
	return ids
}

// withCode are the findings of one rule.
func withCode(fs []app.LintFinding, code string) []app.LintFinding {
	var out []app.LintFinding
	for _, f := range fs {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

// TestLintRules builds, for each rule, a lab with the fault and the same
// lab without it: the rule finds the fault, names its nodes and links and
// says what to do, and finds nothing in the lab that works.
func TestLintRules(t *testing.T) {
	type want struct {
		code, severity string
		nodes          []string // names
		links          int      // how many link ids
		says           []string // what the message must say
	}
	for _, tc := range []struct {
		name  string
		build func(l *lintLab, fault bool)
		want  want
	}{
		{"duplicate address", func(l *lintLab, fault bool) {
			l.node(app.EthernetSwitch, "SW1", "")
			l.pc("PC1", "set pcname PC1\nip 10.0.0.1/24 10.0.0.254\n")
			second := "ip 10.0.0.2 255.255.255.0 10.0.0.254"
			if fault {
				second = "ip 10.0.0.1 10.0.0.254 24"
			}
			l.pc("PC2", second)
			l.link("PC1", 0, 0, "SW1", 0, 0)
			l.link("PC2", 0, 0, "SW1", 0, 1)
		}, want{app.LintDuplicateAddress, app.SeverityError, []string{"PC1", "PC2"}, 2,
			[]string{"10.0.0.1 is configured on PC1 (line 2 of startup.vpc) and PC2 (line 1 of startup.vpc)", "Give each its own address"}}},

		{"subnet mismatch", func(l *lintLab, fault bool) {
			l.node(app.EthernetSwitch, "SW1", "")
			l.pc("PC1", "ip 10.0.1.1/24 10.0.1.254")
			l.pc("PC2", "ip 10.0.1.2/24 10.0.1.254")
			third := "ip 10.0.1.3/24 10.0.1.254"
			if fault {
				third = "ip 10.0.2.3/24 10.0.2.254"
			}
			l.pc("PC3", third)
			for i, pc := range []string{"PC1", "PC2", "PC3"} {
				l.link(pc, 0, 0, "SW1", 0, i)
			}
		}, want{app.LintSubnetMismatch, app.SeverityWarning, []string{"PC3", "PC1"}, 1,
			[]string{"PC3 (10.0.2.3/24) is on the same segment as PC1 (10.0.1.1/24) but in another subnet", "without a router", "10.0.1.0/24"}}},

		{"wrong mask", func(l *lintLab, fault bool) {
			l.node(app.EthernetHub, "HUB1", "")
			l.pc("PC1", "ip 10.0.1.1/24")
			l.pc("PC2", "ip 10.0.1.2/24")
			third := "ip 10.0.1.3/24"
			if fault {
				third = "ip 10.0.1.3/16"
			}
			l.pc("PC3", third)
			for i, pc := range []string{"PC1", "PC2", "PC3"} {
				l.link(pc, 0, 0, "HUB1", 0, i)
			}
		}, want{app.LintSubnetMismatch, app.SeverityWarning, []string{"PC3", "PC1"}, 1,
			[]string{"PC3 (10.0.1.3/16)", "another mask", "/24"}}},

		{"gateway off subnet", func(l *lintLab, fault bool) {
			gw := "10.0.1.254"
			if fault {
				gw = "10.0.2.254"
			}
			l.pc("PC1", "ip 10.0.1.1/24 "+gw)
			l.router("R1", "!\nhostname R1\ninterface FastEthernet0/0\n ip address 10.0.1.254 255.255.255.0\n!\nend\n")
			l.link("PC1", 0, 0, "R1", 0, 0)
		}, want{app.LintGatewayOffSubnet, app.SeverityError, []string{"PC1"}, 1,
			[]string{"PC1's gateway 10.0.2.254 is outside its subnet 10.0.1.0/24", "VPCS refuses", "such as R1's 10.0.1.254"}}},

		{"wrong VLAN on one switch", func(l *lintLab, fault bool) {
			l.node(app.EthernetSwitch, "SW1", "")
			second := "access:10"
			if fault {
				second = "access:20"
			}
			l.ports("SW1", "access:10", second)
			l.pc("PC1", "ip 10.0.0.1/24")
			l.pc("PC2", "ip 10.0.0.2/24")
			l.link("PC1", 0, 0, "SW1", 0, 0)
			l.link("PC2", 0, 0, "SW1", 0, 1)
		}, want{app.LintVLANNotOnTrunk, app.SeverityError, []string{"PC1", "PC2"}, 2,
			[]string{"PC1's frames are in VLAN 10 at SW1 (Ethernet0); PC2's are in VLAN 20 at SW1 (Ethernet1)", "one VLAN"}}},

		{"access port against a trunk", func(l *lintLab, fault bool) {
			l.node(app.EthernetSwitch, "SW1", "")
			l.node(app.EthernetSwitch, "SW2", "")
			l.ports("SW1", "access:10", "dot1q:1")
			far := "dot1q:1"
			if fault {
				far = "access:10"
			}
			l.ports("SW2", "access:20", far)
			l.pc("PC1", "ip 10.0.0.1/24")
			l.pc("PC2", "ip 10.0.0.2/24")
			l.pc("PC3", "ip 10.0.0.3/24") // in VLAN 10 on SW2: the trunk carries it
			l.ports("SW2", "access:10", far, "access:10")
			l.link("PC1", 0, 0, "SW1", 0, 0)
			l.link("PC2", 0, 0, "SW2", 0, 0)
			l.link("PC3", 0, 0, "SW2", 0, 2)
			l.link("SW1", 0, 1, "SW2", 0, 1)
		}, want{app.LintVLANNotOnTrunk, app.SeverityError, []string{"PC1", "PC2", "SW1", "SW2"}, 1,
			[]string{"SW1 Ethernet1 (dot1q trunk, native VLAN 1) to SW2 Ethernet1 (access, VLAN 10)", "do not match", "dot1q trunk at both ends"}}},

		{"VLAN not on the link between switches", func(l *lintLab, fault bool) {
			l.node(app.EthernetSwitch, "SW1", "")
			l.node(app.EthernetSwitch, "SW2", "")
			between := "dot1q:1"
			if fault {
				between = "access:1"
			}
			l.ports("SW1", "access:10", between)
			l.ports("SW2", "access:10", between)
			l.pc("PC1", "ip 10.0.0.1/24")
			l.pc("PC2", "ip 10.0.0.2/24")
			l.link("PC1", 0, 0, "SW1", 0, 0)
			l.link("PC2", 0, 0, "SW2", 0, 0)
			l.link("SW1", 0, 1, "SW2", 0, 1)
		}, want{app.LintVLANNotOnTrunk, app.SeverityError, []string{"PC1", "PC2", "SW1", "SW2"}, 1,
			[]string{"PC1's frames are in VLAN 10 at SW1 (Ethernet0); PC2's are in VLAN 10 at SW2 (Ethernet0)",
				"The link from SW1 Ethernet1 (access, VLAN 1) to SW2 Ethernet1 (access, VLAN 1) does not carry VLAN 10"}}},

		{"Frame Relay switches disagree", func(l *lintLab, fault bool) {
			far := `{"mappings":{"1:102":"2:201"}}`
			if fault {
				far = `{"mappings":{"1:103":"2:201"}}`
			}
			l.node(app.FrameRelaySwitch, "FRSW1", `{"mappings":{"1:101":"2:102"}}`)
			l.node(app.FrameRelaySwitch, "FRSW2", far)
			l.link("FRSW1", 0, 2, "FRSW2", 0, 1)
		}, want{app.LintDLCIAsymmetric, app.SeverityError, []string{"FRSW1", "FRSW2"}, 1,
			[]string{"carries DLCIs 102 on FRSW1's side but 103 on FRSW2's", "Map the same DLCIs on both ports"}}},

		{"router's DLCI not mapped", func(l *lintLab, fault bool) {
			dlci := "101"
			if fault {
				dlci = "102"
			}
			l.node(app.FrameRelaySwitch, "FRSW1", `{"mappings":{"1:101":"2:201"}}`)
			l.router("R1", "!\nhostname R1\n!\ninterface Serial1/0\n ip address 10.0.0.1 255.255.255.0\n encapsulation frame-relay\n frame-relay map ip 10.0.0.2 "+dlci+" broadcast\n no frame-relay inverse-arp\n!\nend\n")
			l.link("R1", 1, 0, "FRSW1", 0, 1)
		}, want{app.LintDLCIAsymmetric, app.SeverityError, []string{"R1", "FRSW1"}, 1,
			[]string{"R1's Serial1/0 uses DLCI 102", "FRSW1 has no circuit on it at port 1 (it maps 101)", "Map 1:102 in FRSW1"}}},

		{"shut interface", func(l *lintLab, fault bool) {
			state := " no shutdown\n"
			if fault {
				state = " shutdown\n"
			}
			l.router("R1", "!\nhostname R1\n!\ninterface FastEthernet0/0\n ip address 10.0.0.254 255.255.255.0\n"+state+"!\nend\n")
			l.pc("PC1", "ip 10.0.0.1/24 10.0.0.254")
			l.link("R1", 0, 0, "PC1", 0, 0)
		}, want{app.LintShutInterface, app.SeverityWarning, []string{"R1"}, 1,
			[]string{"R1's FastEthernet0/0 (10.0.0.254/24) is shut down", "linked to PC1", "no shutdown"}}},

		{"suspended link", func(l *lintLab, fault bool) {
			l.pc("PC1", "ip 10.0.0.1/24")
			l.pc("PC2", "ip 10.0.0.2/24")
			lk := l.link("PC1", 0, 0, "PC2", 0, 0)
			if _, err := l.svc.UpdateLink(context.Background(), l.pid, lk.ID, app.LinkUpdate{Suspend: app.Some(fault)}); err != nil {
				l.t.Fatal(err)
			}
		}, want{app.LintLinkSuspended, app.SeverityWarning, []string{"PC1", "PC2"}, 1,
			[]string{"The link between PC1 Ethernet0 and PC2 Ethernet0 is suspended", "Resume it"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clean := newLintLab(t)
			tc.build(clean, false)
			if got := clean.lint(); len(got) != 0 {
				t.Errorf("the lab without the fault has findings: %+v", got)
			}
			l := newLintLab(t)
			tc.build(l, true)
			all := l.lint()
			got := withCode(all, tc.want.code)
			if len(got) != 1 || len(all) != 1 {
				t.Fatalf("findings %+v, want one %s", all, tc.want.code)
			}
			f := got[0]
			if f.Severity != tc.want.severity {
				t.Errorf("severity %s, want %s", f.Severity, tc.want.severity)
			}
			if !reflect.DeepEqual(sorted(f.NodeIDs), l.ids(tc.want.nodes...)) {
				t.Errorf("node_ids %v, want those of %v", f.NodeIDs, tc.want.nodes)
			}
			if len(f.LinkIDs) != tc.want.links {
				t.Errorf("link_ids %v, want %d", f.LinkIDs, tc.want.links)
			}
			for _, s := range tc.want.says {
				if !strings.Contains(f.Message, s) {
					t.Errorf("message %q does not say %q", f.Message, s)
				}
			}
		})
	}
}

// TestLintQinQTunnel: hosts of two customer sites, each behind a trunk
// into a provider switch's qinq port, share a segment through the
// tunnel (the data plane carries them so); a qinq port facing a host
// takes none of its untagged frames.
func TestLintQinQTunnel(t *testing.T) {
	l := newLintLab(t)
	for _, sw := range []string{"C1", "C2", "P1", "P2"} {
		l.node(app.EthernetSwitch, sw, "")
	}
	l.ports("C1", "access:10", "dot1q:1")
	l.ports("C2", "access:10", "dot1q:1")
	l.ports("P1", "qinq:100", "dot1q:1", "qinq:100")
	l.ports("P2", "qinq:100", "dot1q:1")
	l.pc("PC1", "ip 10.0.0.1/24")
	l.pc("PC2", "ip 10.0.9.2/24") // another subnet: found only if the tunnel joins them
	l.pc("PC3", "ip 10.0.0.3/24") // on a qinq port: its untagged frames are dropped
	l.link("PC1", 0, 0, "C1", 0, 0)
	l.link("PC2", 0, 0, "C2", 0, 0)
	l.link("C1", 0, 1, "P1", 0, 0)
	l.link("C2", 0, 1, "P2", 0, 0)
	l.link("P1", 0, 1, "P2", 0, 1)
	l.link("PC3", 0, 0, "P1", 0, 2)
	fs := l.lint()
	for _, f := range fs {
		t.Logf("%s: %s", f.Code, f.Message)
	}
	mismatch := withCode(fs, app.LintSubnetMismatch)
	if len(mismatch) != 1 || !reflect.DeepEqual(sorted(mismatch[0].NodeIDs), l.ids("PC1", "PC2")) {
		t.Errorf("subnet findings %+v, want one naming PC1 and PC2, joined by the tunnel", mismatch)
	}
	// A qinq port whose ethertype the data plane does not know is off:
	// the tunnel no longer joins the sites.
	l.ports("P2", "qinq:100:0x1234", "dot1q:1")
	if fs := withCode(l.lint(), app.LintSubnetMismatch); len(fs) != 0 {
		t.Errorf("subnet findings %+v with P2's tunnel port off, want none", fs)
	}
	split := withCode(fs, app.LintVLANNotOnTrunk)
	if len(split) != 1 || !slices.Contains(split[0].NodeIDs, l.nodes["PC3"].ID) ||
		!strings.Contains(split[0].Message, "PC3's are dropped at P1 (Ethernet2), whose port (qinq tunnel, VLAN 100) takes none of them") ||
		strings.Contains(split[0].Message, "do not match") {
		t.Errorf("VLAN findings %+v, want one naming PC3, cut off by the qinq port", split)
	}
}

// TestLintMissingPort: a link to a port its node lost (adapters shrunk
// behind the service's back, as an edited project file does) and a link
// to a node that is gone.
func TestLintMissingPort(t *testing.T) {
	l := newLintLab(t)
	l.node(app.EthernetSwitch, "SW1", "")
	d := l.node(app.Docker, "web", `{"image":"alpine","adapters":2}`)
	lk := l.link("web", 1, 0, "SW1", 0, 0)
	if got := l.lint(); len(got) != 0 {
		t.Fatalf("findings before the edit: %+v", got)
	}
	ghost := "6a1c0d52-7b3e-4f0e-9d55-0c3a8f1e2b44"
	err := l.st.Update(func(tx app.Tx) error {
		n, err := tx.Node(l.pid, d.ID)
		if err != nil {
			return err
		}
		n.Properties.Extra["adapters"] = json.RawMessage("1")
		if err := tx.PutNode(n); err != nil {
			return err
		}
		return tx.PutLink(&app.Link{ID: "0d7f7d4e-11aa-4c2b-8d0e-5f6a7b8c9d0e", ProjectID: l.pid, LinkType: "ethernet",
			Nodes: []app.LinkEnd{{NodeID: l.nodes["SW1"].ID, PortNumber: 1}, {NodeID: ghost}}})
	})
	if err != nil {
		t.Fatal(err)
	}
	fs := withCode(l.lint(), app.LintMissingPort)
	if len(fs) != 2 {
		t.Fatalf("missing_port findings %+v, want 2", fs)
	}
	if f := fs[0]; !slices.Equal(f.LinkIDs, []string{lk.ID}) || !slices.Equal(f.NodeIDs, []string{d.ID}) ||
		!strings.Contains(f.Message, "port 1/0 of web, which web does not have") || !strings.Contains(f.Message, "Delete the link") {
		t.Errorf("finding %+v, want web's lost port", f)
	}
	if f := fs[1]; !strings.Contains(f.Message, ghost) || !slices.Equal(f.NodeIDs, []string{l.nodes["SW1"].ID}) {
		t.Errorf("finding %+v, want the link to the missing node", f)
	}
}

// TestLintFrameRelayMappingsDisagree: mappings stored with a port:DLCI
// used by two circuits (a project file edited by hand: the API refuses
// them) are found.
func TestLintFrameRelayMappingsDisagree(t *testing.T) {
	l := newLintLab(t)
	fr := l.node(app.FrameRelaySwitch, "FRSW1", `{"mappings":{"1:101":"2:201"}}`)
	err := l.st.Update(func(tx app.Tx) error {
		n, err := tx.Node(l.pid, fr.ID)
		if err != nil {
			return err
		}
		n.Properties.Mappings = map[string]string{"1:101": "2:201", "2:201": "3:301"}
		return tx.PutNode(n)
	})
	if err != nil {
		t.Fatal(err)
	}
	fs := l.lint()
	if len(fs) != 1 || fs[0].Code != app.LintDLCIAsymmetric || !strings.Contains(fs[0].Message, "FRSW1's DLCI mappings disagree") ||
		!strings.Contains(fs[0].Message, "2:201") {
		t.Errorf("findings %+v, want FRSW1's mappings that disagree", fs)
	}
}

// TestLintProjectNotFound: lint of a project that does not exist is a 404.
func TestLintProjectNotFound(t *testing.T) {
	l := newLintLab(t)
	_, err := l.svc.Lint(context.Background(), "0f0e0d0c-0b0a-4909-8807-060504030201")
	wantCode(t, err, app.ENOTFOUND)
	_, err = l.svc.HostAddresses(context.Background(), "0f0e0d0c-0b0a-4909-8807-060504030201")
	wantCode(t, err, app.ENOTFOUND)
}

// TestHostAddressesVPCS reads the ip lines of VPCS scripts as VPCS does.
func TestHostAddressesVPCS(t *testing.T) {
	for _, tc := range []struct{ script, addr, gw string }{
		{"set pcname PC1\nip 192.168.1.1 192.168.1.254 24\n", "192.168.1.1/24", "192.168.1.254"},
		{"ip 10.0.0.1/16 10.0.0.254", "10.0.0.1/16", "10.0.0.254"},
		{"ip 10.0.0.1 255.255.255.128 10.0.0.126", "10.0.0.1/25", "10.0.0.126"},
		{"ip 10.0.0.1 10.0.0.254 /28", "10.0.0.1/28", "10.0.0.254"},
		{"ip 10.0.0.1 10.0.0.254", "10.0.0.1/24", "10.0.0.254"}, // VPCS's default mask
		{"ip 10.0.0.1", "10.0.0.1/24", ""},
		{"ip 10.0.0.1/31", "10.0.0.1/24", ""},                       // outside 1–30: VPCS takes 24
		{"ip 10.0.0.1/24\r\nip 10.0.0.7/24\r\n", "10.0.0.7/24", ""}, // the last line wins
		{"# ip 10.0.0.9/24\n! ip 10.0.0.8/24\n", "", ""},
		{"ip 10.0.0.1/24\nip dhcp\n", "", ""},
		{"ip 10.0.0.1/24\nip dh -r\n", "", ""},
		{"ip 10.0.0.1/24\nip dns 8.8.8.8\nip 2001:db8::1/64\n", "10.0.0.1/24", ""},
		{"ip 10.0.0.1/24\n2\nip 10.0.0.2/24\n", "10.0.0.1/24", ""}, // PC 2 of the nine is not the node
		{"ip 10.0.0.1/24 10.0.0.1", "", ""},                        // refused: the gateway is the address
		{"ip 10.0.1.1/24 10.0.2.1", "10.0.1.1/24", "10.0.2.1"},     // refused by VPCS, named for lint
	} {
		l := newLintLab(t)
		pc := l.pc("PC1", tc.script)
		got := l.addresses()
		var want []app.HostAddress
		if tc.addr != "" {
			want = []app.HostAddress{{NodeID: pc.ID, Name: "PC1", Address: tc.addr, Gateway: tc.gw, Source: "config", EndHost: true}}
		}
		if len(got) != len(want) || len(want) > 0 && got[0] != want[0] {
			t.Errorf("script %q: addresses %+v, want %+v", tc.script, got, want)
		}
	}
}

// gns3IOS is a router's startup config as IOS writes it (write memory)
// from GNS3's base config, with addresses on some interfaces.
const gns3IOS = `!
version 12.4
service timestamps debug datetime msec
service timestamps log datetime msec
no service password-encryption
!
hostname R1
!
ip cef
no ip domain lookup
!
interface FastEthernet0/0
 ip address 192.168.10.1 255.255.255.0
 ip address 192.168.11.1 255.255.255.0 secondary
 duplex full
!
interface FastEthernet0/0.20
 encapsulation dot1Q 20
 ip address 192.168.20.1 255.255.255.0
!
interface Serial1/0
 ip address 10.1.1.1 255.255.255.252
 shutdown
 serial restart-delay 0
!
interface Serial1/1
 no ip address
 shutdown
!
interface Serial1/7
 ip address dhcp
!
interface FastEthernet3/0
 ip address 172.16.0.1 255.255.0.0
!
ip default-gateway 192.168.10.254
!
line con 0
 exec-timeout 0 0
 privilege level 15
 logging synchronous
!
end
`

// TestHostAddressesIOS reads the interfaces of IOS startup configs, of a
// Dynamips router and of an IOU node, onto their ports.
func TestHostAddressesIOS(t *testing.T) {
	l := newLintLab(t)
	r := l.router("R1", gns3IOS)
	iou := l.node(app.IOU, "IOU1", `{"ethernet_adapters":2,"serial_adapters":2}`)
	iouCfg := strings.Replace(app.IOUL3BaseConfig, "interface Ethernet0/1\n no ip address\n shutdown\n",
		"interface Ethernet0/1\n ip address 10.2.0.1 255.255.255.0\n", 1)
	iouCfg = strings.Replace(iouCfg, "interface Serial2/0\n no ip address\n", "interface Serial2/0\n ip address 10.3.0.1 255.255.255.252\n", 1)
	if iouCfg == app.IOUL3BaseConfig {
		t.Fatal("the IOU base config has changed; update the test")
	}
	l.file("IOU1", app.IOUStartupConfigFile, iouCfg)
	// A config typed in the editor, with IOS's abbreviations.
	typed := l.router("R2", "hostname R2\nint fa0/0\n ip add 10.5.0.1 255.255.255.0\n no shut\nint s1/2\n ip add 10.6.0.1 255.255.255.0\n shut\nint Serial 1/3\n ip add 10.7.0.1 255.255.255.0\n")
	got := l.addresses()
	want := []app.HostAddress{
		{NodeID: r.ID, Name: "R1", AdapterNumber: 0, PortNumber: 0, Address: "192.168.10.1/24", Source: "config"},
		{NodeID: r.ID, Name: "R1", AdapterNumber: 0, PortNumber: 0, Address: "192.168.11.1/24", Source: "config"},
		{NodeID: r.ID, Name: "R1", AdapterNumber: 0, PortNumber: 0, Address: "192.168.20.1/24", Source: "config"},
		{NodeID: r.ID, Name: "R1", AdapterNumber: 1, PortNumber: 0, Address: "10.1.1.1/30", Source: "config", Shut: true},
		// FastEthernet3/0: R1 has no slot 3, so no such port.
		{NodeID: iou.ID, Name: "IOU1", AdapterNumber: 0, PortNumber: 1, Address: "10.2.0.1/24", Source: "config"},
		{NodeID: iou.ID, Name: "IOU1", AdapterNumber: 2, PortNumber: 0, Address: "10.3.0.1/30", Source: "config", Shut: true},
		{NodeID: typed.ID, Name: "R2", AdapterNumber: 0, PortNumber: 0, Address: "10.5.0.1/24", Source: "config"},
		{NodeID: typed.ID, Name: "R2", AdapterNumber: 1, PortNumber: 2, Address: "10.6.0.1/24", Source: "config", Shut: true},
		{NodeID: typed.ID, Name: "R2", AdapterNumber: 1, PortNumber: 3, Address: "10.7.0.1/24", Source: "config"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("addresses\n%+v\nwant\n%+v", got, want)
	}
}

// gns3Interfaces is a Docker node's /etc/network/interfaces as GNS3's
// "Edit network configuration" leaves it once a user set eth0 up.
const gns3Interfaces = `#
# This is a sample network config, please uncomment lines to configure the network
#

# Uncomment this line to load custom interface files
# source /etc/network/interfaces.d/*

# Static config for eth0
auto eth0
iface eth0 inet static
	address 192.168.0.2
	netmask 255.255.255.0
	gateway 192.168.0.1
	up echo nameserver 192.168.0.1 > /etc/resolv.conf

# DHCP config for eth1
auto eth1
iface eth1 inet dhcp
	hostname web

# eth2: written but not brought up by ifup -a
iface eth2 inet static
	address 10.9.9.9/24

auto eth3
iface eth3 inet static
	address 10.3.3.3/26
`

// TestHostAddressesDocker reads a container's interfaces file as ifup -a
// brings its interfaces up; the file nodedesk writes first names none.
func TestHostAddressesDocker(t *testing.T) {
	l := newLintLab(t)
	d := l.node(app.Docker, "web", `{"image":"alpine","adapters":4}`)
	if got := l.addresses(); len(got) != 0 {
		t.Errorf("addresses from the first interfaces file: %+v, want none (its examples are comments)", got)
	}
	l.file("web", app.DockerInterfacesFile, gns3Interfaces)
	got := l.addresses()
	want := []app.HostAddress{
		{NodeID: d.ID, Name: "web", AdapterNumber: 0, Address: "192.168.0.2/24", Gateway: "192.168.0.1", Source: "config", EndHost: true},
		{NodeID: d.ID, Name: "web", AdapterNumber: 3, Address: "10.3.3.3/26", Source: "config", EndHost: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("addresses\n%+v\nwant\n%+v", got, want)
	}
}

// TestLintCleanLabs: labs that work get no finding: a router on a stick
// whose dot1Q subinterfaces meet each VLAN's hosts over a trunk, and a
// Frame Relay hub and spoke whose routers share a subnet across the
// switch, as its circuits carry them.
func TestLintCleanLabs(t *testing.T) {
	t.Run("router on a stick", func(t *testing.T) {
		l := newLintLab(t)
		l.node(app.EthernetSwitch, "SW1", "")
		l.ports("SW1", "access:10", "access:20", "dot1q:1")
		l.pc("PC1", "ip 10.0.10.2/24 10.0.10.1")
		l.pc("PC2", "ip 10.0.20.2/24 10.0.20.1")
		l.router("R1", "!\nhostname R1\n!\ninterface FastEthernet0/0\n no ip address\n!\ninterface FastEthernet0/0.10\n encapsulation dot1Q 10\n ip address 10.0.10.1 255.255.255.0\n!\ninterface FastEthernet0/0.20\n encapsulation dot1Q 20\n ip address 10.0.20.1 255.255.255.0\n!\nend\n")
		l.link("PC1", 0, 0, "SW1", 0, 0)
		l.link("PC2", 0, 0, "SW1", 0, 1)
		l.link("R1", 0, 0, "SW1", 0, 2)
		if fs := l.lint(); len(fs) != 0 {
			t.Errorf("findings %+v, want none", fs)
		}
		// The same PCs with their VLANs swapped sit in the other
		// subinterface's VLAN: each is in another subnet than its router.
		l.ports("SW1", "access:20", "access:10", "dot1q:1")
		if fs := withCode(l.lint(), app.LintSubnetMismatch); len(fs) != 2 {
			t.Errorf("subnet findings %+v, want 2 once the VLANs are swapped", fs)
		}
	})
	t.Run("Frame Relay hub and spoke", func(t *testing.T) {
		l := newLintLab(t)
		l.node(app.FrameRelaySwitch, "FRSW1", `{"mappings":{"1:102":"2:201","1:103":"3:301"}}`)
		cfg := func(name, addr string, dlcis ...string) string {
			c := "!\nhostname " + name + "\n!\ninterface Serial1/0\n ip address " + addr + " 255.255.255.0\n encapsulation frame-relay\n"
			for _, d := range dlcis {
				c += " frame-relay map ip 10.0.0.9 " + d + " broadcast\n"
			}
			return c + "!\nend\n"
		}
		l.router("HUB", cfg("HUB", "10.0.0.1", "102", "103"))
		l.router("S2", cfg("S2", "10.0.0.2", "201"))
		l.router("S3", cfg("S3", "10.0.0.3")) // inverse ARP: no DLCI named
		l.link("HUB", 1, 0, "FRSW1", 0, 1)
		l.link("S2", 1, 0, "FRSW1", 0, 2)
		l.link("S3", 1, 0, "FRSW1", 0, 3)
		if fs := l.lint(); len(fs) != 0 {
			t.Errorf("findings %+v, want none", fs)
		}
	})
}

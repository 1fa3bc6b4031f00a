package app_test

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app"
	"nodedesk/store/storetest"
)

// hostInterfaces is the fixed machine every test service sees: one real
// interface and the loopback.
func hostInterfaces() []app.HostInterface {
	return []app.HostInterface{
		{Name: "eth0", Type: "ethernet"},
		{Name: "lo", Special: true, Type: "ethernet"},
	}
}

// newService returns a Service on a fresh store, and its event broker.
func newService(tb testing.TB) (*app.Service, *app.Broker) {
	tb.Helper()
	b := app.NewBroker()
	svc := app.NewService(app.Config{
		Store:          storetest.Open(tb),
		Events:         b,
		DataDir:        tb.TempDir(),
		HostInterfaces: hostInterfaces,
		PortFree:       everyPortFree, // allocation as if this machine ran nothing else
	})
	return svc, b
}

func everyPortFree(string, int) bool { return true }

func mustCreateProject(tb testing.TB, svc *app.Service, name string) *app.Project {
	tb.Helper()
	p, err := svc.CreateProject(context.Background(), app.ProjectCreate{ProjectUpdate: app.ProjectUpdate{Name: app.Some(name)}})
	if err != nil {
		tb.Fatalf("CreateProject(%q): %v", name, err)
	}
	return p
}

func mustCreateNode(tb testing.TB, svc *app.Service, projectID string, c app.NodeCreate) *app.Node {
	tb.Helper()
	n, err := svc.CreateNode(context.Background(), projectID, c)
	if err != nil {
		tb.Fatalf("CreateNode(%s %q): %v", c.Type, c.Name.Value, err)
	}
	return n
}

// mustCreateVPCS creates a VPCS node with the default name.
func mustCreateVPCS(tb testing.TB, svc *app.Service, projectID string) *app.Node {
	tb.Helper()
	return mustCreateNode(tb, svc, projectID, app.NodeCreate{Type: app.VPCS})
}

func mustFindNode(tb testing.TB, svc *app.Service, n *app.Node) *app.Node {
	tb.Helper()
	got, err := svc.FindNode(context.Background(), ref(n))
	if err != nil {
		tb.Fatalf("FindNode(%s): %v", n.Name, err)
	}
	return got
}

func ref(n *app.Node) app.NodeRef { return app.NodeRef{ProjectID: n.ProjectID, NodeID: n.ID} }

// wantCode fails the test unless err has the given code.
func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := app.ErrorCode(err); got != code {
		tb.Fatalf("error = %v (code %q); want code %q", err, got, code)
	}
}

// drain returns the events already published to ch.
func drain(ch <-chan app.Event) []app.Event {
	var evs []app.Event
	for {
		select {
		case e := <-ch:
			evs = append(evs, e)
		default:
			return evs
		}
	}
}

func consolesInUse(tb testing.TB, svc *app.Service) map[int]string {
	tb.Helper()
	ps, err := svc.FindProjects(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	used := map[int]string{}
	for _, p := range ps {
		ns, err := svc.FindNodes(context.Background(), p.ID)
		if err != nil {
			tb.Fatal(err)
		}
		for _, n := range ns {
			if n.Console != 0 {
				used[n.Console] = n.ID
			}
		}
	}
	return used
}

func TestService_CreateNode_Defaults(t *testing.T) {
	tests := []struct {
		typ         app.NodeType
		name        string
		console     int
		consoleType app.ConsoleType
		status      app.Status
		ports       int
		check       func(t *testing.T, n *app.Node)
	}{
		{app.VPCS, "PC1", 5000, app.ConsoleTelnet, app.Stopped, 1, nil},
		{app.EthernetSwitch, "Switch1", 0, app.ConsoleNone, app.Started, 8, func(t *testing.T, n *app.Node) {
			sp := n.Properties.SwitchPorts
			if len(sp) != 8 {
				t.Fatalf("switch ports = %d; want 8", len(sp))
			}
			for i, p := range sp {
				if p.PortNumber != i || p.Type != "access" || p.VLAN != 1 || p.Name != "Ethernet"+string(rune('0'+i)) {
					t.Errorf("switch port %d = %+v; want access port Ethernet%d on VLAN 1", i, p, i)
				}
			}
		}},
		{app.EthernetHub, "Hub1", 0, app.ConsoleNone, app.Started, 8, func(t *testing.T, n *app.Node) {
			hp := n.Properties.HubPorts
			if len(hp) != 8 {
				t.Fatalf("hub ports = %d; want 8", len(hp))
			}
			for i, p := range hp {
				if p.PortNumber != i {
					t.Errorf("hub port %d has number %d", i, p.PortNumber)
				}
			}
		}},
		{app.FrameRelaySwitch, "FRSW1", 0, app.ConsoleNone, app.Started, 0, func(t *testing.T, n *app.Node) {
			if len(n.Properties.Mappings) != 0 {
				t.Errorf("mappings = %v; want none", n.Properties.Mappings)
			}
		}},
		{app.Cloud, "Cloud1", 0, app.ConsoleNone, app.Started, 1, func(t *testing.T, n *app.Node) {
			want := []app.CloudPort{{Name: "eth0", PortNumber: 0, Type: "ethernet", Interface: "eth0"}}
			if !reflect.DeepEqual(n.Properties.CloudPorts, want) {
				t.Errorf("cloud ports_mapping = %+v; want %+v (one per non-special interface)", n.Properties.CloudPorts, want)
			}
			if !reflect.DeepEqual(n.Properties.Interfaces, hostInterfaces()) {
				t.Errorf("cloud interfaces = %+v; want %+v", n.Properties.Interfaces, hostInterfaces())
			}
		}},
		{app.QEMU, "QEMU1", 5000, app.ConsoleTelnet, app.Stopped, 1, nil},
	}
	for _, tt := range tests {
		t.Run(string(tt.typ), func(t *testing.T) {
			svc, _ := newService(t)
			p := mustCreateProject(t, svc, "lab")
			created := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: tt.typ})
			// The defaults are what the client gets back and what is stored.
			for _, v := range []struct {
				name string
				n    *app.Node
			}{{"Created", created}, {"Found", mustFindNode(t, svc, created)}} {
				n := v.n
				t.Run(v.name, func(t *testing.T) {
					if n.Type != tt.typ || n.ProjectID != p.ID {
						t.Errorf("type, project = %s, %s; want %s, %s", n.Type, n.ProjectID, tt.typ, p.ID)
					}
					if n.Name != tt.name || n.Label.Text != tt.name {
						t.Errorf("name, label = %q, %q; want %q", n.Name, n.Label.Text, tt.name)
					}
					if n.Console != tt.console || n.ConsoleType != tt.consoleType {
						t.Errorf("console = %d %q; want %d %q", n.Console, n.ConsoleType, tt.console, tt.consoleType)
					}
					if n.Status != tt.status {
						t.Errorf("status = %q; want %q", n.Status, tt.status)
					}
					if got := len(n.Ports()); got != tt.ports {
						t.Errorf("len(Ports()) = %d; want %d", got, tt.ports)
					}
					if tt.check != nil {
						tt.check(t, n)
					}
				})
			}
		})
	}
}

func TestService_CreateNode_ConsolePorts(t *testing.T) {
	t.Run("LowestFree", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		a := mustCreateVPCS(t, svc, p.ID)
		b := mustCreateVPCS(t, svc, p.ID)
		if a.Console != 5000 || b.Console != 5001 {
			t.Fatalf("consoles = %d, %d; want 5000, 5001", a.Console, b.Console)
		}
		if err := svc.DeleteNode(context.Background(), ref(a)); err != nil {
			t.Fatal(err)
		}
		if c := mustCreateVPCS(t, svc, p.ID); c.Console != 5000 {
			t.Errorf("console after freeing 5000 = %d; want 5000", c.Console)
		}
	})

	t.Run("UniqueAcrossProjects", func(t *testing.T) {
		svc, _ := newService(t)
		a := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "A").ID)
		b := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "B").ID)
		if a.Console != 5000 || b.Console != 5001 {
			t.Errorf("consoles = %d (project A), %d (project B); want 5000, 5001", a.Console, b.Console)
		}
	})
}

func TestService_CreateNode_Ports(t *testing.T) {
	tests := []struct {
		name   string
		create app.NodeCreate
		want   []app.Port
	}{
		{"vpcs", app.NodeCreate{Type: app.VPCS}, []app.Port{{Name: "Ethernet0", ShortName: "e0",
			LinkType: "ethernet", DataLinkTypes: map[string]string{"Ethernet": "DLT_EN10MB"}}}},
		{"frame_relay_switch", app.NodeCreate{Type: app.FrameRelaySwitch, NodeUpdate: app.NodeUpdate{
			Properties: &app.FrameRelayUpdate{Mappings: app.Some(map[string]string{"1:101": "2:201"})}}},
			[]app.Port{
				{Name: "1", ShortName: "1", PortNumber: 1, LinkType: "serial", DataLinkTypes: map[string]string{"Frame Relay": "DLT_FRELAY"}},
				{Name: "2", ShortName: "2", PortNumber: 2, LinkType: "serial", DataLinkTypes: map[string]string{"Frame Relay": "DLT_FRELAY"}},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			p := mustCreateProject(t, svc, "lab")
			n := mustFindNode(t, svc, mustCreateNode(t, svc, p.ID, tt.create))
			if got := n.Ports(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Ports() = %+v; want %+v", got, tt.want)
			}
		})
	}
	t.Run("ethernet_switch", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		ports := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.EthernetSwitch}).Ports()
		if len(ports) != 8 {
			t.Fatalf("len(Ports()) = %d; want 8", len(ports))
		}
		for i, port := range ports {
			if port.PortNumber != i || port.LinkType != "ethernet" {
				t.Errorf("port %d = %+v; want ethernet port number %d", i, port, i)
			}
		}
	})
}

func TestService_CreateNode_Naming(t *testing.T) {
	tests := []struct {
		name     string
		existing []string // names asked for before, in order
		want     string   // name asked for now
		got      string   // name the node gets
	}{
		{"SpacesRemoved", nil, "My PC", "MyPC"},
		{"TakenTrailingDigitsRenumbered", []string{"PC1"}, "PC1", "PC2"},
		{"PlaceholderFirst", nil, "R{0}", "R1"},
		{"PlaceholderNext", []string{"R{0}"}, "R{0}", "R2"},
		{"FreeNameKept", nil, "core", "core"},
		{"TakenNameNumbered", []string{"core"}, "core", "core1"},
		{"DefaultFormat", []string{"PC1", "PC2"}, "PC{0}", "PC3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			p := mustCreateProject(t, svc, "lab")
			for _, name := range tt.existing {
				mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Name: app.Some(name)}})
			}
			n := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Name: app.Some(tt.want)}})
			if n.Name != tt.got {
				t.Errorf("CreateNode(name %q) after %q = %q; want %q", tt.want, tt.existing, n.Name, tt.got)
			}
		})
	}

	t.Run("SameNameInTwoProjects", func(t *testing.T) {
		svc, _ := newService(t)
		for _, pname := range []string{"A", "B"} {
			p := mustCreateProject(t, svc, pname)
			n := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Name: app.Some("core")}})
			if n.Name != "core" {
				t.Errorf("node in project %s = %q; want core", pname, n.Name)
			}
		}
	})

	t.Run("ErrInvalidEmpty", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		_, err := svc.CreateNode(context.Background(), p.ID, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Name: app.Some("   ")}})
		wantCode(t, err, app.EINVALID)
	})
}

func TestService_UpdateNode_Console(t *testing.T) {
	ctx := context.Background()
	setConsole := func(port int) app.NodeUpdate { return app.NodeUpdate{Console: app.Some(port)} }

	t.Run("OK", func(t *testing.T) {
		svc, _ := newService(t)
		n := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "lab").ID)
		got, err := svc.UpdateNode(ctx, ref(n), setConsole(7000))
		if err != nil {
			t.Fatal(err)
		}
		if got.Console != 7000 || mustFindNode(t, svc, n).Console != 7000 {
			t.Errorf("console = %d; want 7000", got.Console)
		}
		// The old port is free again.
		if c := mustCreateVPCS(t, svc, n.ProjectID); c.Console != 5000 {
			t.Errorf("next node's console = %d; want the freed 5000", c.Console)
		}
	})

	t.Run("ErrConsoleTaken", func(t *testing.T) {
		svc, _ := newService(t)
		owner := mustCreateNode(t, svc, mustCreateProject(t, svc, "A").ID,
			app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Name: app.Some("Owner")}})
		for _, pname := range []string{"same project", "B"} {
			pid := owner.ProjectID
			if pname != "same project" {
				pid = mustCreateProject(t, svc, pname).ID
			}
			n := mustCreateVPCS(t, svc, pid)
			_, err := svc.UpdateNode(ctx, ref(n), setConsole(owner.Console))
			wantCode(t, err, app.ECONFLICT)
			if msg := app.ErrorMessage(err); !strings.Contains(msg, "Owner") {
				t.Errorf("conflict message %q does not name the owner node", msg)
			}
			if got := mustFindNode(t, svc, n); got.Console == owner.Console {
				t.Errorf("node of %s took port %d anyway", pname, owner.Console)
			}
		}

		// Once the owner is deleted the port can be taken.
		if err := svc.DeleteNode(ctx, ref(owner)); err != nil {
			t.Fatal(err)
		}
		n := mustCreateVPCS(t, svc, owner.ProjectID)
		if _, err := svc.UpdateNode(ctx, ref(n), setConsole(owner.Console)); err != nil {
			t.Errorf("taking the port of a deleted node: %v", err)
		}
	})

	t.Run("ErrInvalid", func(t *testing.T) {
		tests := []struct {
			name string
			typ  app.NodeType
			u    app.NodeUpdate
		}{
			{"PrivilegedPort", app.VPCS, setConsole(1023)},
			{"PortAbove65535", app.VPCS, setConsole(65536)},
			{"VPCSConsoleTypeNull", app.VPCS, app.NodeUpdate{ConsoleType: app.Null[app.ConsoleType]()}},
			{"VPCSConsoleTypeVNC", app.VPCS, app.NodeUpdate{ConsoleType: app.Some(app.ConsoleVNC)}},
			{"SwitchConsole", app.EthernetSwitch, setConsole(7000)},
			{"SwitchConsoleTypeVNC", app.EthernetSwitch, app.NodeUpdate{ConsoleType: app.Some(app.ConsoleVNC)}},
			{"HubConsoleType", app.EthernetHub, app.NodeUpdate{ConsoleType: app.Some(app.ConsoleTelnet)}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				svc, _ := newService(t)
				n := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: tt.typ})
				_, err := svc.UpdateNode(ctx, ref(n), tt.u)
				wantCode(t, err, app.EINVALID)
				if got := mustFindNode(t, svc, n); !reflect.DeepEqual(got, n) {
					t.Errorf("rejected update changed the node:\n got %+v\nwant %+v", got, n)
				}
			})
		}
	})

	t.Run("SwitchTelnetConsole", func(t *testing.T) {
		// A switch has no console until it is given one; telnet gets a
		// port, null frees it.
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		sw := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.EthernetSwitch})
		if sw.ConsoleType != app.ConsoleNone || sw.Console != 0 {
			t.Fatalf("new switch console = %d %q; want none", sw.Console, sw.ConsoleType)
		}
		got, err := svc.UpdateNode(ctx, ref(sw), app.NodeUpdate{ConsoleType: app.Some(app.ConsoleTelnet)})
		if err != nil {
			t.Fatal(err)
		}
		if got.ConsoleType != app.ConsoleTelnet || got.Console < app.ConsolePortMin || got.Console > app.ConsolePortMax {
			t.Fatalf("switch console = %d %q; want telnet on a port of the range", got.Console, got.ConsoleType)
		}
		if got, err = svc.UpdateNode(ctx, ref(sw), app.NodeUpdate{ConsoleType: app.Null[app.ConsoleType]()}); err != nil || got.Console != 0 {
			t.Fatalf("console type null: %v, console %d", err, got.Console)
		}
	})

	t.Run("GenericConsoleTypeNullFreesPort", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		q := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.QEMU})
		got, err := svc.UpdateNode(ctx, ref(q), app.NodeUpdate{ConsoleType: app.Null[app.ConsoleType]()})
		if err != nil {
			t.Fatal(err)
		}
		if got.Console != 0 || got.ConsoleType != app.ConsoleNone {
			t.Errorf("console = %d %q; want none", got.Console, got.ConsoleType)
		}
		if v := mustCreateVPCS(t, svc, p.ID); v.Console != q.Console {
			t.Errorf("next node's console = %d; want the freed %d", v.Console, q.Console)
		}
	})
}

func TestService_UpdateNode_ConsoleRace(t *testing.T) {
	const racers, port = 50, 7777
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	mustCreateVPCS(t, svc, p.ID) // a bystander on 5000
	nodes := make([]*app.Node, racers)
	for i := range nodes {
		nodes[i] = mustCreateVPCS(t, svc, p.ID)
	}

	errs := make([]error, racers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Console: app.Some(port)})
		}()
	}
	close(start)
	wg.Wait()

	winner := ""
	for i, err := range errs {
		switch app.ErrorCode(err) {
		case "":
			if winner != "" {
				t.Errorf("both %s and %s got console %d", winner, nodes[i].ID, port)
			}
			winner = nodes[i].ID
		case app.ECONFLICT:
		default:
			t.Errorf("racer %d: %v; want success or conflict", i, err)
		}
	}
	if winner == "" {
		t.Fatal("no racer got the port")
	}
	if owner := consolesInUse(t, svc)[port]; owner != winner {
		t.Errorf("port %d is stored on node %q; want the winner %q", port, owner, winner)
	}
	holders := 0
	for _, n := range nodes {
		if mustFindNode(t, svc, n).Console == port {
			holders++
		}
	}
	if holders != 1 {
		t.Errorf("%d nodes are stored with console %d; want 1", holders, port)
	}
}

// publisherFunc adapts a function to app.Publisher.
type publisherFunc func(app.Event)

func (f publisherFunc) Publish(e app.Event) { f(e) }

func TestService_UpdateNode(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		svc, b := newService(t)
		n := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "lab").ID)
		events, stop := b.Subscribe(16)
		defer stop()

		got, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{X: app.Some(10), Y: app.Some(-20)})
		if err != nil {
			t.Fatal(err)
		}
		if got.X != 10 || got.Y != -20 {
			t.Errorf("x, y = %d, %d; want 10, -20", got.X, got.Y)
		}
		if found := mustFindNode(t, svc, n); !reflect.DeepEqual(found, got) {
			t.Errorf("stored node = %+v; want the returned %+v", found, got)
		}
		evs := drain(events)
		if len(evs) != 2 || evs[0].Action != "node.updated" || evs[0].ProjectID != n.ProjectID || evs[1].Action != "history.updated" {
			t.Fatalf("events = %+v; want one node.updated, then history.updated", evs)
		}
		if pn, ok := evs[0].Payload.(*app.Node); !ok || pn.X != 10 || pn.ID != n.ID {
			t.Errorf("event payload = %+v; want the updated node", evs[0].Payload)
		}
	})

	t.Run("NoChangeNoEvent", func(t *testing.T) {
		svc, b := newService(t)
		n := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "lab").ID)
		events, stop := b.Subscribe(16)
		defer stop()
		for name, u := range map[string]app.NodeUpdate{
			"empty":        {},
			"same values":  {Name: app.Some(n.Name), X: app.Some(n.X), Console: app.Some(n.Console)},
			"null console": {Console: app.Null[int]()},
		} {
			if _, err := svc.UpdateNode(ctx, ref(n), u); err != nil {
				t.Fatalf("%s update: %v", name, err)
			}
			if evs := drain(events); len(evs) != 0 {
				t.Errorf("%s update published %+v; want nothing", name, evs)
			}
		}
	})

	t.Run("EventAfterCommit", func(t *testing.T) {
		var svc *app.Service
		var seen []app.Event
		svc = app.NewService(app.Config{
			Store:   storetest.Open(t),
			DataDir: t.TempDir(),
			Events: publisherFunc(func(e app.Event) {
				seen = append(seen, e)
				if e.Action != "node.updated" {
					return
				}
				// The change is already committed when the event goes out.
				n := e.Payload.(*app.Node)
				if got := mustFindNode(t, svc, n); got.X != 33 {
					t.Errorf("at publish time the stored node has x %d; want 33", got.X)
				}
			}),
			HostInterfaces: hostInterfaces,
		})
		n := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "lab").ID)
		seen = nil
		if _, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{X: app.Some(33)}); err != nil {
			t.Fatal(err)
		}
		if len(seen) != 2 || seen[0].Action != "node.updated" || seen[1].Action != "history.updated" {
			t.Errorf("events = %+v; want exactly one node.updated, then history.updated", seen)
		}
	})

	t.Run("ErrNameTaken", func(t *testing.T) {
		svc, b := newService(t)
		p := mustCreateProject(t, svc, "lab")
		mustCreateVPCS(t, svc, p.ID)
		n := mustCreateVPCS(t, svc, p.ID)
		events, stop := b.Subscribe(16)
		defer stop()
		_, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Name: app.Some("PC1")})
		wantCode(t, err, app.ECONFLICT)
		if got := mustFindNode(t, svc, n); got.Name != "PC2" {
			t.Errorf("name after refused rename = %q; want PC2", got.Name)
		}
		if evs := drain(events); len(evs) != 0 {
			t.Errorf("refused rename published %+v", evs)
		}
		// The same name in another project is fine.
		q := mustCreateVPCS(t, svc, mustCreateProject(t, svc, "other").ID)
		if _, err := svc.UpdateNode(ctx, ref(q), app.NodeUpdate{Name: app.Some("PC2")}); err != nil {
			t.Errorf("renaming to a name used only in another project: %v", err)
		}
	})

	t.Run("RenameFreesOldName", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		a := mustCreateVPCS(t, svc, p.ID)
		if _, err := svc.UpdateNode(ctx, ref(a), app.NodeUpdate{Name: app.Some("Alpha")}); err != nil {
			t.Fatal(err)
		}
		if b := mustCreateVPCS(t, svc, p.ID); b.Name != "PC1" {
			t.Errorf("next default name = %q; want the freed PC1", b.Name)
		}
		c := mustCreateVPCS(t, svc, p.ID)
		if _, err := svc.UpdateNode(ctx, ref(c), app.NodeUpdate{Name: app.Some("Alpha")}); app.ErrorCode(err) != app.ECONFLICT {
			t.Errorf("renaming onto the new name Alpha: %v; want conflict", err)
		}
	})

	t.Run("LabelFollowsRename", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		follows := mustCreateVPCS(t, svc, p.ID)
		custom := mustCreateVPCS(t, svc, p.ID)
		lbl := custom.Label
		lbl.Text = "my label"
		if _, err := svc.UpdateNode(ctx, ref(custom), app.NodeUpdate{Label: app.Some(lbl)}); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			n         *app.Node
			rename    string
			wantLabel string
		}{
			{follows, "Alpha", "Alpha"},
			{custom, "Bravo", "my label"},
		} {
			got, err := svc.UpdateNode(ctx, ref(tt.n), app.NodeUpdate{Name: app.Some(tt.rename)})
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tt.rename || got.Label.Text != tt.wantLabel {
				t.Errorf("after rename to %s: name, label = %q, %q; want %q, %q",
					tt.rename, got.Name, got.Label.Text, tt.rename, tt.wantLabel)
			}
			if found := mustFindNode(t, svc, tt.n); found.Label.Text != tt.wantLabel {
				t.Errorf("stored label after rename to %s = %q; want %q", tt.rename, found.Label.Text, tt.wantLabel)
			}
		}
	})

	t.Run("ErrInvalidLeavesNodeUnchanged", func(t *testing.T) {
		ports := func(vlan int, numbers ...int) []app.SwitchPort {
			var ps []app.SwitchPort
			for _, n := range numbers {
				ps = append(ps, app.SwitchPort{Name: "Ethernet" + string(rune('0'+n)), PortNumber: n, Type: "access", VLAN: vlan})
			}
			return ps
		}
		tests := []struct {
			name string
			typ  app.NodeType
			u    app.NodeUpdate
		}{
			{"FrameRelayMappingX", app.FrameRelaySwitch, app.NodeUpdate{X: app.Some(5),
				Properties: &app.FrameRelayUpdate{Mappings: app.Some(map[string]string{"x": "2:201"})}}},
			{"SwitchVLAN5000", app.EthernetSwitch, app.NodeUpdate{X: app.Some(5),
				Properties: &app.SwitchUpdate{PortsMapping: app.Some(ports(5000, 0, 1))}}},
			{"SwitchDuplicatePortNumber", app.EthernetSwitch, app.NodeUpdate{X: app.Some(5),
				Properties: &app.SwitchUpdate{PortsMapping: app.Some(ports(10, 0, 1, 1))}}},
			{"HubDuplicatePortNumber", app.EthernetHub, app.NodeUpdate{X: app.Some(5),
				Properties: &app.HubUpdate{PortsMapping: app.Some([]app.HubPort{{Name: "a", PortNumber: 3}, {Name: "b", PortNumber: 3}})}}},
			{"PropertyOfAnotherType", app.VPCS, app.NodeUpdate{X: app.Some(5),
				Properties: &app.FrameRelayUpdate{Mappings: app.Some(map[string]string{"1:101": "2:201"})}}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				svc, b := newService(t)
				n := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: tt.typ})
				before := mustFindNode(t, svc, n)
				events, stop := b.Subscribe(16)
				defer stop()

				_, err := svc.UpdateNode(ctx, ref(n), tt.u)
				wantCode(t, err, app.EINVALID)
				if after := mustFindNode(t, svc, n); !reflect.DeepEqual(after, before) {
					t.Errorf("rejected update changed the node:\n got %+v\nwant %+v", after, before)
				}
				if evs := drain(events); len(evs) != 0 {
					t.Errorf("rejected update published %+v", evs)
				}
			})
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		_, err := svc.UpdateNode(ctx, app.NodeRef{ProjectID: p.ID, NodeID: uuid.NewString()}, app.NodeUpdate{X: app.Some(1)})
		wantCode(t, err, app.ENOTFOUND)
	})
}

func TestService_FindNode(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	n := mustCreateVPCS(t, svc, p.ID)

	tests := []struct {
		name string
		ref  app.NodeRef
		code string
	}{
		{"OK", ref(n), ""},
		{"OKUpperCaseID", app.NodeRef{ProjectID: strings.ToUpper(p.ID), NodeID: strings.ToUpper(n.ID)}, ""},
		{"OKSameType", app.NodeRef{ProjectID: p.ID, NodeID: n.ID, Type: app.VPCS}, ""},
		{"ErrInvalidNodeID", app.NodeRef{ProjectID: p.ID, NodeID: "not-a-uuid"}, app.EINVALID},
		{"ErrInvalidProjectID", app.NodeRef{ProjectID: "None", NodeID: n.ID}, app.EINVALID},
		{"ErrNotFoundNode", app.NodeRef{ProjectID: p.ID, NodeID: uuid.NewString()}, app.ENOTFOUND},
		{"ErrNotFoundProject", app.NodeRef{ProjectID: uuid.NewString(), NodeID: n.ID}, app.ENOTFOUND},
		{"ErrNotFoundOtherType", app.NodeRef{ProjectID: p.ID, NodeID: n.ID, Type: app.EthernetSwitch}, app.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := svc.FindNode(ctx, tt.ref)
			wantCode(t, err, tt.code)
			if tt.code == "" && !reflect.DeepEqual(got, n) {
				t.Errorf("FindNode = %+v; want %+v", got, n)
			}
		})
	}
}

func TestService_FindProjectByID(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	tests := []struct {
		name string
		id   string
		code string
	}{
		{"OK", p.ID, ""},
		{"ErrNotFoundNone", "None", app.ENOTFOUND},
		{"ErrNotFoundUnknown", uuid.NewString(), app.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := svc.FindProjectByID(ctx, tt.id)
			wantCode(t, err, tt.code)
			if tt.code == "" && !reflect.DeepEqual(got, p) {
				t.Errorf("FindProjectByID = %+v; want %+v", got, p)
			}
		})
	}
}

func TestService_CreateProject(t *testing.T) {
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		if p.Name != "lab" || p.Status != app.ProjectOpened || p.Filename != "lab.gns3" {
			t.Errorf("project = %+v; want opened project lab with filename lab.gns3", p)
		}
	})
	t.Run("ErrConflictName", func(t *testing.T) {
		svc, _ := newService(t)
		mustCreateProject(t, svc, "lab")
		_, err := svc.CreateProject(ctx, app.ProjectCreate{ProjectUpdate: app.ProjectUpdate{Name: app.Some("lab")}})
		wantCode(t, err, app.ECONFLICT)
		if ps, _ := svc.FindProjects(ctx); len(ps) != 1 {
			t.Errorf("projects after refused create = %d; want 1", len(ps))
		}
	})
}

func TestService_UpdateProject(t *testing.T) {
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		if _, err := svc.UpdateProject(ctx, p.ID, app.ProjectUpdate{Name: app.Some("lab2")}); err != nil {
			t.Fatal(err)
		}
		got, err := svc.FindProjectByID(ctx, p.ID)
		if err != nil || got.Name != "lab2" {
			t.Errorf("project after rename = %+v, %v; want name lab2", got, err)
		}
	})
	t.Run("ErrConflictName", func(t *testing.T) {
		svc, _ := newService(t)
		mustCreateProject(t, svc, "A")
		b := mustCreateProject(t, svc, "B")
		_, err := svc.UpdateProject(ctx, b.ID, app.ProjectUpdate{Name: app.Some("A")})
		wantCode(t, err, app.ECONFLICT)
		if got, _ := svc.FindProjectByID(ctx, b.ID); got == nil || got.Name != "B" {
			t.Errorf("project after refused rename = %+v; want name B", got)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		svc, _ := newService(t)
		_, err := svc.UpdateProject(ctx, uuid.NewString(), app.ProjectUpdate{Name: app.Some("x")})
		wantCode(t, err, app.ENOTFOUND)
	})
}

func TestService_DeleteProject(t *testing.T) {
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "doomed")
		n1 := mustCreateVPCS(t, svc, p.ID)
		n2 := mustCreateVPCS(t, svc, p.ID)
		keep := mustCreateProject(t, svc, "kept")
		kept := mustCreateVPCS(t, svc, keep.ID)

		if err := svc.DeleteProject(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
		_, err := svc.FindNodes(ctx, p.ID)
		wantCode(t, err, app.ENOTFOUND)
		_, err = svc.FindProjectByID(ctx, p.ID)
		wantCode(t, err, app.ENOTFOUND)
		if got := mustFindNode(t, svc, kept); !reflect.DeepEqual(got, kept) {
			t.Errorf("node of another project changed: %+v", got)
		}

		// The deleted nodes' console ports are free again, for any project.
		a := mustCreateVPCS(t, svc, keep.ID)
		b := mustCreateVPCS(t, svc, keep.ID)
		if a.Console != n1.Console || b.Console != n2.Console {
			t.Errorf("new consoles = %d, %d; want the freed %d, %d", a.Console, b.Console, n1.Console, n2.Console)
		}
		// And its name can be used again.
		mustCreateProject(t, svc, "doomed")
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		svc, _ := newService(t)
		wantCode(t, svc.DeleteProject(ctx, uuid.NewString()), app.ENOTFOUND)
	})
}

func TestService_UpdateNode_FrameRelayMappings(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		mappings map[string]string
		code     string
	}{
		{"OK", map[string]string{"1:101": "2:201"}, ""},
		{"OKTwoCircuits", map[string]string{"1:101": "2:201", "1:102": "3:301"}, ""},
		{"OKEmpty", map[string]string{}, ""},
		{"OKDLCIBounds", map[string]string{"1:0": "2:1023"}, ""},
		{"ErrInvalidNotNumbers", map[string]string{"a:b": "2:201"}, app.EINVALID},
		{"ErrInvalidNoDLCI", map[string]string{"1": "2:201"}, app.EINVALID},
		{"ErrInvalidNoDLCIValue", map[string]string{"1:101": "2"}, app.EINVALID},
		{"ErrInvalidDLCI5000", map[string]string{"1:5000": "2:201"}, app.EINVALID},
		{"ErrInvalidDLCI1024", map[string]string{"1:101": "2:1024"}, app.EINVALID},
		{"ErrInvalidEndTwiceAsValue", map[string]string{"1:101": "2:201", "3:301": "2:201"}, app.EINVALID},
		{"ErrInvalidEndKeyAndValue", map[string]string{"1:101": "2:201", "2:201": "3:301"}, app.EINVALID},
		{"ErrInvalidEndToItself", map[string]string{"1:101": "1:101"}, app.EINVALID},
		{"ErrInvalidEndTwiceSpelledDifferently", map[string]string{"1:101": "2:201", "3:301": "02:201"}, app.EINVALID},
		{"ErrInvalidPlusSign", map[string]string{"1:101": "+2:201"}, app.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			n := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.FrameRelaySwitch})
			_, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Properties: &app.FrameRelayUpdate{Mappings: app.Some(tt.mappings)}})
			wantCode(t, err, tt.code)
			got := mustFindNode(t, svc, n).Properties.Mappings
			want := tt.mappings
			if tt.code != "" {
				want = nil // unchanged: the new switch has none
			}
			if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
				t.Errorf("stored mappings = %v; want %v", got, want)
			}
		})
	}
}

// TestService_AllocationSkipsHostPorts: a port another program of this
// machine holds is not allocated, for consoles and for link ports.
func TestService_AllocationSkipsHostPorts(t *testing.T) {
	ctx := context.Background()
	busy := map[string]bool{"tcp/5000": true, "udp/20001": true}
	svc := app.NewService(app.Config{
		Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces, Runners: []app.Runner{&fakeRunner{}},
		PortFree: func(network string, port int) bool { return !busy[network+"/"+strconv.Itoa(port)] },
	})
	p := mustCreateProject(t, svc, "lab")
	n := mustCreateVPCS(t, svc, p.ID)
	if n.Console != 5001 {
		t.Errorf("console %d, want 5001: 5000 is held by another program", n.Console)
	}
	started, err := svc.NodeAction(ctx, app.NodeRef{ProjectID: p.ID, NodeID: n.ID}, app.Start)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(started.UDPPorts, []int{20002, 20003, 20011}) {
		t.Errorf("UDP ports %v, want 20002-20003 and its relay port 20011: 20001 is held by another program", started.UDPPorts)
	}
	// A port the client pins is the client's choice, held or not.
	got, err := svc.UpdateNode(ctx, app.NodeRef{ProjectID: p.ID, NodeID: n.ID}, app.NodeUpdate{Console: app.Some(5000)})
	if err == nil && got.Console != 5000 {
		t.Errorf("pinned console %d, want 5000", got.Console)
	}
}

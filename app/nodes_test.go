package app_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app"
	"nodedesk/store/storetest"
)

func TestService_CreateNode_Errors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		projectID func(p *app.Project) string
		give      app.NodeCreate
		wantCode  string
	}{
		{"ErrInvalidNoType", nil, app.NodeCreate{}, app.EINVALID},
		{"ErrInvalidUnknownType", nil, app.NodeCreate{Type: "router"}, app.EINVALID},
		{"ErrInvalidNodeID", nil, app.NodeCreate{Type: app.VPCS, ID: "zz"}, app.EINVALID},
		{"ErrInvalidHubConsole", nil, app.NodeCreate{Type: app.EthernetHub, NodeUpdate: app.NodeUpdate{Console: app.Some(5000)}}, app.EINVALID},
		{"ErrInvalidPrivilegedConsole", nil, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Console: app.Some(80)}}, app.EINVALID},
		{"ErrConflictConsoleTaken", nil, app.NodeCreate{Type: app.VPCS, NodeUpdate: app.NodeUpdate{Console: app.Some(5000)}}, app.ECONFLICT},
		{"ErrNotFoundCompute", nil, app.NodeCreate{Type: app.VPCS, ComputeID: "vm"}, app.ENOTFOUND},
		{"ErrNotFoundProject", func(*app.Project) string { return uuid.NewString() }, app.NodeCreate{Type: app.VPCS}, app.ENOTFOUND},
		{"ErrNotFoundProjectNone", func(*app.Project) string { return "None" }, app.NodeCreate{Type: app.VPCS}, app.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			p := mustCreateProject(t, svc, "lab")
			mustCreateVPCS(t, svc, p.ID) // owns 5000
			pid := p.ID
			if tt.projectID != nil {
				pid = tt.projectID(p)
			}
			_, err := svc.CreateNode(ctx, pid, tt.give)
			wantCode(t, err, tt.wantCode)
			if ns, _ := svc.FindNodes(ctx, p.ID); len(ns) != 1 {
				t.Errorf("a refused create left %d nodes; want 1", len(ns))
			}
		})
	}
}

// TestService_CreateNode_SameID: a node id the project has, with the same
// type, returns that node unchanged; with another type it is a conflict.
func TestService_CreateNode_SameID(t *testing.T) {
	ctx := context.Background()
	svc, b := newService(t)
	p := mustCreateProject(t, svc, "lab")
	id := "11111111-2222-4333-8444-555555555555"
	a := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.EthernetHub, ID: id})
	events, stop := b.Subscribe(16)
	defer stop()
	again := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.EthernetHub, ID: strings.ToUpper(id), NodeUpdate: app.NodeUpdate{X: app.Some(50)}})
	if again.ID != id || again.Name != a.Name || again.X != a.X {
		t.Errorf("second create = %+v; want %+v unchanged", again, a)
	}
	if evs := drain(events); len(evs) != 0 {
		t.Errorf("second create published %+v", evs)
	}
	_, err := svc.CreateNode(ctx, p.ID, app.NodeCreate{Type: app.VPCS, ID: id})
	wantCode(t, err, app.ECONFLICT)
	if ns, _ := svc.FindNodes(ctx, p.ID); len(ns) != 1 {
		t.Errorf("%d nodes; want 1", len(ns))
	}
}

func TestService_FindNodes(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	var want []string
	for i := range 20 {
		want = append(want, mustCreateNode(t, svc, p.ID, namedNode(app.VPCS, fmt.Sprintf("n%02d", 19-i))).ID)
	}
	ns, err := svc.FindNodes(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range ns {
		got = append(got, n.ID)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("nodes listed %v; want creation order %v", got, want)
	}
	if ns, err := svc.FindNodes(ctx, mustCreateProject(t, svc, "empty").ID); err != nil || len(ns) != 0 {
		t.Errorf("nodes of an empty project = %v, %v; want none", ns, err)
	}
	_, err = svc.FindNodes(ctx, uuid.NewString())
	wantCode(t, err, app.ENOTFOUND)
}

func TestService_DuplicateNode(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		svc, _ := newService(t)
		l := mustCreateLinkLab(t, svc)
		mustLink(t, svc, l.p.ID, portEnd(l.pc1, 0, 0), portEnd(l.sw, 0, 0))
		if _, err := svc.UpdateNode(ctx, ref(l.pc1), app.NodeUpdate{Locked: app.Some(true),
			Properties: &app.VPCSUpdate{StartupScript: app.Some("ip 10.0.0.1/24")}}); err != nil {
			t.Fatal(err)
		}
		orig := mustFindNode(t, svc, l.pc1)
		d, err := svc.DuplicateNode(ctx, ref(l.pc1), 100, 50, app.Some(2))
		if err != nil {
			t.Fatal(err)
		}
		if d.ID == orig.ID || d.Name != "PC3" || d.Label.Text != "PC3" || d.Console == orig.Console || d.Console == 0 ||
			d.Status != app.Stopped || d.Locked {
			t.Errorf("duplicate %+v of %+v; want PC3, its own console, stopped, unlocked", d, orig)
		}
		if d.X != 100 || d.Y != 50 || d.Z != 2 {
			t.Errorf("duplicate at %d, %d, %d; want 100, 50, 2", d.X, d.Y, d.Z)
		}
		if d.Properties.StartupScript == nil || *d.Properties.StartupScript != "ip 10.0.0.1/24" {
			t.Errorf("duplicate script %v; want the original's", d.Properties.StartupScript)
		}
		if links, _ := svc.FindNodeLinks(ctx, ref(d)); len(links) != 0 {
			t.Errorf("links were copied: %v", links)
		}
		if got := mustFindNode(t, svc, l.pc1); !reflect.DeepEqual(got, orig) {
			t.Errorf("the original changed: %+v, was %+v", got, orig)
		}
	})

	// As GNS3's controller: a node that runs a process (started or
	// suspended) is not copied, its files may be half written; nothing is
	// made.
	t.Run("ErrConflictRunning", func(t *testing.T) {
		svc, b := newService(t)
		p := mustCreateProject(t, svc, "lab")
		n := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.QEMU, NodeUpdate: app.NodeUpdate{Name: app.Some("R1")}})
		dir := *svc.NodeDirectory(n)
		mustWriteFile(t, dir, "hda_disk.qcow2", "disk")
		for _, a := range []app.Action{app.Start, app.Suspend} {
			if _, err := svc.NodeAction(ctx, ref(n), a); err != nil {
				t.Fatal(err)
			}
			events, stop := b.Subscribe(16)
			_, err := svc.DuplicateNode(ctx, ref(n), 1, 2, app.Field[int]{})
			wantCode(t, err, app.ECONFLICT)
			if msg := app.ErrorMessage(err); !strings.Contains(msg, "while the node is running") || !strings.Contains(msg, "R1") || !strings.Contains(msg, "stop it first") {
				t.Errorf("message %q; want why, the node and what to do", msg)
			}
			if evs := drain(events); len(evs) != 0 {
				t.Errorf("a refused duplicate announced %+v", evs)
			}
			stop()
			if ns, _ := svc.FindNodes(ctx, p.ID); len(ns) != 1 {
				t.Errorf("%d nodes after a refused duplicate", len(ns))
			}
			if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
				t.Errorf("folders after a refused duplicate: %v", entries)
			}
		}
	})

	// As GNS3's compute copies a node's working folder: the copy starts
	// from the original's disks as its guest left them, and the two are
	// separate files from then on.
	t.Run("CopiesFolder", func(t *testing.T) {
		svc, _ := newService(t)
		p := mustCreateProject(t, svc, "lab")
		n := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.QEMU})
		dir := *svc.NodeDirectory(n)
		mustWriteFile(t, dir, "hda_disk.qcow2", "the guest's writes")
		mustWriteFile(t, dir, "cfg/startup.txt", "hostname R1")
		mustWriteFile(t, dir, "qemu.log", "not carried")
		mustWriteFile(t, dir, ".hidden", "not carried")
		if err := os.Symlink("/etc/passwd", filepath.Join(dir, "out")); err != nil {
			t.Fatal(err)
		}
		d, err := svc.DuplicateNode(ctx, ref(n), 1, 2, app.Field[int]{})
		if err != nil {
			t.Fatal(err)
		}
		cdir := *svc.NodeDirectory(d)
		if got := folderContents(t, cdir); !reflect.DeepEqual(got, map[string]string{"hda_disk.qcow2": "the guest's writes", "cfg/startup.txt": "hostname R1"}) {
			t.Errorf("copy's folder %v; want the disk and the config, no log, hidden file or link", got)
		}
		mustWriteFile(t, cdir, "hda_disk.qcow2", "the copy's guest")
		if b, _ := os.ReadFile(filepath.Join(dir, "hda_disk.qcow2")); string(b) != "the guest's writes" {
			t.Errorf("original's disk %q after the copy's guest wrote", b)
		}
		// A node never started has no folder; nor has its copy.
		fresh := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.QEMU})
		d2, err := svc.DuplicateNode(ctx, ref(fresh), 1, 2, app.Field[int]{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(*svc.NodeDirectory(d2)); !os.IsNotExist(err) {
			t.Errorf("copy of a node without a folder has one: %v", err)
		}
	})

	// A copy whose record is refused (no console port is free for it)
	// leaves no folder.
	t.Run("ErrRefusedLeavesNoFolder", func(t *testing.T) {
		var full atomic.Bool
		svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(),
			PortFree: func(network string, _ int) bool { return network != "tcp" || !full.Load() }})
		p := mustCreateProject(t, svc, "lab")
		n := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.QEMU})
		dir := *svc.NodeDirectory(n)
		mustWriteFile(t, dir, "hda_disk.qcow2", "disk")
		full.Store(true)
		_, err := svc.DuplicateNode(ctx, ref(n), 1, 2, app.Field[int]{})
		wantCode(t, err, app.ECONFLICT)
		if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
			t.Errorf("folders after a refused duplicate: %v", entries)
		}
	})
}

// folderContents reads every regular file under dir, by slash path.
func folderContents(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// readCounter is a store that counts the node reads of its read-only
// transactions and of its write transactions.
type readCounter struct {
	app.Store
	mu            sync.Mutex
	views, writes int
}

type countingReads struct {
	app.Tx
	n *int
	c *readCounter
}

func (t countingReads) Node(projectID, nodeID string) (*app.Node, error) {
	t.c.mu.Lock()
	*t.n++
	t.c.mu.Unlock()
	return t.Tx.Node(projectID, nodeID)
}

func (c *readCounter) View(fn func(app.Tx) error) error {
	return c.Store.View(func(tx app.Tx) error { return fn(countingReads{tx, &c.views, c}) })
}

func (c *readCounter) Update(fn func(app.Tx) error) error {
	return c.Store.Update(func(tx app.Tx) error { return fn(countingReads{tx, &c.writes, c}) })
}

// TestService_UpdateNode_ReadsOnce: a PUT of a local node reads it once
// before its write (images, host ports, a remake need it outside the
// transaction) and once inside it, whatever its type; history takes its
// before-image from that read, and reads the node once more for its
// after-image.
func TestService_UpdateNode_ReadsOnce(t *testing.T) {
	ctx := context.Background()
	rc := &readCounter{Store: storetest.Open(t)}
	svc := app.NewService(app.Config{Store: rc, DataDir: t.TempDir(), HostInterfaces: hostInterfaces, PortFree: everyPortFree})
	p := mustCreateProject(t, svc, "reads")
	for _, typ := range []app.NodeType{app.VPCS, app.Cloud, app.QEMU, app.Docker, app.Dynamips, app.EthernetSwitch} {
		t.Run(string(typ), func(t *testing.T) {
			n := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: typ})
			rc.mu.Lock()
			rc.views, rc.writes = 0, 0
			rc.mu.Unlock()
			if _, err := svc.UpdateNode(ctx, app.NodeRef{ProjectID: p.ID, NodeID: n.ID}, app.NodeUpdate{X: app.Some(42)}); err != nil {
				t.Fatal(err)
			}
			rc.mu.Lock()
			defer rc.mu.Unlock()
			if rc.views != 1 || rc.writes != 2 {
				t.Errorf("the PUT read the node %d times before its write and %d times in it; want 1 and 2 (its own read, history's after-image)", rc.views, rc.writes)
			}
		})
	}
}

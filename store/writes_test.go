package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"

	"nodedesk/app"
)

// The Service commits nothing (no fsync) when a batch's writes counted
// none, so a write the store does not count is silently rolled back when
// it is a batch's only one. TestTx_WritesCounted holds every method of
// app.Tx, found by reflection, to this: a method that changes the file
// counts, and one that reads changes nothing and counts nothing. A method
// added to app.Tx without a case here fails the test until it gets one.

// seeded is a store holding one record of every kind, each write method's
// target.
type seeded struct {
	p             *app.Project
	n             *app.Node
	l             *app.Link
	snap          *app.Snapshot
	tmpl          *app.Template
	drawing       *app.Drawing
	compute       *app.Compute
	nio           *app.NIO
	reservedUDP   int
	historyPushed *app.HistoryEntry
}

func seed(tb testing.TB, s *Store) seeded {
	tb.Helper()
	var d seeded
	d.p = mustPutProject(tb, s, "seeded")
	d.n = mustPutNode(tb, s, d.p, "PC1", 5000)
	other := mustPutNode(tb, s, d.p, "PC2", 5001)
	pid := d.p.ID
	d.l = &app.Link{ID: uuid.NewString(), ProjectID: pid, LinkType: "ethernet",
		Nodes: []app.LinkEnd{{NodeID: d.n.ID}, {NodeID: other.ID}}}
	d.snap = &app.Snapshot{ID: uuid.NewString(), ProjectID: pid, Name: "s1"}
	d.tmpl = &app.Template{ID: uuid.NewString(), Name: "t", Type: app.VPCS}
	d.drawing = &app.Drawing{ID: uuid.NewString(), ProjectID: pid, SVG: "<svg/>"}
	d.compute = &app.Compute{ID: "remote1", Name: "remote1", Protocol: "http", Host: "127.0.0.1"}
	d.nio = &app.NIO{ProjectID: pid, NodeID: d.n.ID, AdapterNumber: 0, PortNumber: 0, Type: "nio_udp", LPort: 20000, RHost: "127.0.0.1", RPort: 20001}
	d.reservedUDP = 20010
	d.historyPushed = &app.HistoryEntry{ID: uuid.NewString(), ProjectID: pid, Description: "seeded"}
	mustUpdate(tb, s, func(tx app.Tx) error {
		for _, err := range []error{
			tx.PutLink(d.l), tx.PutSnapshot(d.snap), tx.PutTemplate(d.tmpl), tx.PutDrawing(d.drawing),
			tx.PutCompute(d.compute), tx.PutNIO(d.nio), tx.ReserveUDP(pid, d.reservedUDP),
			tx.PutRestoreIntent(pid, "tag"), tx.PushHistory(app.UndoStack, d.historyPushed, 0),
			tx.PushHistory(app.RedoStack, &app.HistoryEntry{ID: uuid.NewString(), ProjectID: pid}, 0),
		} {
			if err != nil {
				return err
			}
		}
		return nil
	})
	return d
}

// txWrites are the write methods of app.Tx, each called so that it
// changes the seeded file.
var txWrites = map[string]func(tx app.Tx, d seeded) error{
	"PutProject": func(tx app.Tx, d seeded) error {
		return tx.PutProject(&app.Project{ID: uuid.NewString(), Name: "new", Status: app.ProjectOpened})
	},
	"DeleteProject": func(tx app.Tx, d seeded) error { return tx.DeleteProject(d.p.ID) },
	"PutNode": func(tx app.Tx, d seeded) error {
		n := *d.n
		n.Name = "renamed"
		return tx.PutNode(&n)
	},
	"DeleteNode":    func(tx app.Tx, d seeded) error { return tx.DeleteNode(d.p.ID, d.n.ID) },
	"PutLink":       func(tx app.Tx, d seeded) error { l := *d.l; l.Suspend = true; return tx.PutLink(&l) },
	"DeleteLink":    func(tx app.Tx, d seeded) error { return tx.DeleteLink(d.p.ID, d.l.ID) },
	"PutDrawing":    func(tx app.Tx, d seeded) error { dr := *d.drawing; dr.X = 9; return tx.PutDrawing(&dr) },
	"DeleteDrawing": func(tx app.Tx, d seeded) error { return tx.DeleteDrawing(d.p.ID, d.drawing.ID) },
	"PutSnapshot": func(tx app.Tx, d seeded) error {
		sn := *d.snap
		sn.Name = "s2"
		return tx.PutSnapshot(&sn)
	},
	"DeleteSnapshot": func(tx app.Tx, d seeded) error { return tx.DeleteSnapshot(d.p.ID, d.snap.ID) },
	"PutTemplate": func(tx app.Tx, d seeded) error {
		t := *d.tmpl
		t.Name = "t2"
		return tx.PutTemplate(&t)
	},
	"DeleteTemplate": func(tx app.Tx, d seeded) error { return tx.DeleteTemplate(d.tmpl.ID) },
	"PutEmulatorSettings": func(tx app.Tx, d seeded) error {
		return tx.PutEmulatorSettings("iou_license", map[string]json.RawMessage{"license_check": json.RawMessage("false")})
	},
	"PutRestoreIntent":    func(tx app.Tx, d seeded) error { return tx.PutRestoreIntent(d.p.ID, "other") },
	"DeleteRestoreIntent": func(tx app.Tx, d seeded) error { return tx.DeleteRestoreIntent(d.p.ID) },
	"ReserveUDP":          func(tx app.Tx, d seeded) error { return tx.ReserveUDP(d.p.ID, 20020) },
	"ReleaseUDPReservations": func(tx app.Tx, d seeded) error {
		return tx.ReleaseUDPReservations(d.p.ID)
	},
	"ReleaseUDPReservation": func(tx app.Tx, d seeded) error {
		return tx.ReleaseUDPReservation(d.p.ID, d.reservedUDP)
	},
	"PutNIO":    func(tx app.Tx, d seeded) error { n := *d.nio; n.Suspend = true; return tx.PutNIO(&n) },
	"DeleteNIO": func(tx app.Tx, d seeded) error { return tx.DeleteNIO(d.p.ID, d.n.ID, 0, 0) },
	"PushHistory": func(tx app.Tx, d seeded) error {
		return tx.PushHistory(app.UndoStack, &app.HistoryEntry{ID: uuid.NewString(), ProjectID: d.p.ID, Description: "next"}, 0)
	},
	"PopHistory":   func(tx app.Tx, d seeded) error { return tx.PopHistory(d.p.ID, app.UndoStack) },
	"ClearHistory": func(tx app.Tx, d seeded) error { return tx.ClearHistory(d.p.ID, app.RedoStack) },
	"PutCompute": func(tx app.Tx, d seeded) error {
		c := *d.compute
		c.Name = "renamed"
		return tx.PutCompute(&c)
	},
	"DeleteCompute": func(tx app.Tx, d seeded) error { return tx.DeleteCompute(d.compute.ID) },
}

// txReads are the methods of app.Tx that only read; each is called with
// the seeded records' keys where it takes strings, zero values otherwise.
var txReads = []string{
	"Writes",
	"Project", "HasProject", "Projects",
	"Node", "Nodes", "NodeIDByName", "ActiveNodes",
	"Link", "Links", "NodeLinks", "LinkOnPort",
	"Drawing", "Drawings", "Snapshot", "Snapshots", "Template", "Templates",
	"EmulatorSettings", "RestoreIntents",
	"ConsoleOwner", "ConsolePorts", "UDPOwner", "UDPUse", "UDPPortsInUse",
	"NIO", "NIOs", "History", "HistoryTop", "Compute", "Computes",
}

func TestTx_WritesCounted(t *testing.T) {
	methods := reflect.TypeFor[app.Tx]()
	for i := range methods.NumMethod() {
		name := methods.Method(i).Name
		_, writes := txWrites[name]
		if !writes && !slices.Contains(txReads, name) {
			t.Errorf("app.Tx.%s is neither in txWrites nor in txReads: add it to the one it belongs to, so that its writes are held to being counted", name)
		}
	}
	for name, write := range txWrites {
		t.Run(name, func(t *testing.T) {
			s := mustOpenStore(t)
			d := seed(t, s)
			mustUpdate(t, s, func(tx app.Tx) error {
				before, counted := dump(t, tx), tx.Writes()
				if err := write(tx, d); err != nil {
					return err
				}
				if dump(t, tx) == before {
					t.Fatalf("%s changed nothing in the seeded file: the case does not test it", name)
				}
				if changed := changes(before, dump(t, tx)); tx.Writes()-counted < changed {
					t.Errorf("%s changed %d keys or sequences but Writes() counted %d: a write bypasses the counted bucket, and a batch of only this write would be rolled back", name, changed, tx.Writes()-counted)
				}
				return nil
			})
		})
	}
	for _, name := range txReads {
		t.Run(name, func(t *testing.T) {
			s := mustOpenStore(t)
			d := seed(t, s)
			mustUpdate(t, s, func(tx app.Tx) error {
				before, counted := dump(t, tx), tx.Writes()
				m := reflect.ValueOf(tx).MethodByName(name)
				m.Call(readArgs(m.Type(), d))
				if dump(t, tx) != before || tx.Writes() != counted {
					t.Errorf("%s is listed as a read but wrote (Writes %d → %d)", name, counted, tx.Writes())
				}
				return nil
			})
		})
	}
}

// readArgs are arguments for a read method: strings cycle through the
// seeded project's, node's and link's ids, the rest are zero values.
func readArgs(m reflect.Type, d seeded) []reflect.Value {
	ids := []string{d.p.ID, d.n.ID, d.l.ID}
	var args []reflect.Value
	strs := 0
	for i := range m.NumIn() {
		in := m.In(i)
		if in.Kind() == reflect.String && in == reflect.TypeFor[string]() {
			args = append(args, reflect.ValueOf(ids[strs%len(ids)]))
			strs++
			continue
		}
		args = append(args, reflect.Zero(in))
	}
	return args
}

// dump is every bucket's keys, values and sequence as the transaction
// sees them.
func dump(tb testing.TB, t app.Tx) string {
	tb.Helper()
	bt := t.(*tx).b
	var b strings.Builder
	err := bt.ForEach(func(name []byte, bk *bolt.Bucket) error {
		fmt.Fprintf(&b, "[%s seq %d]\n", name, bk.Sequence())
		return bk.ForEach(func(k, v []byte) error {
			fmt.Fprintf(&b, "%x=%x\n", k, bytes.TrimSpace(v))
			return nil
		})
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

// changes counts the lines (a key's value, a bucket's sequence) that
// differ between two dumps: each took at least one write.
func changes(a, b string) int {
	count := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(b, "\n") {
		count[l]--
	}
	n := 0
	for l, c := range count {
		if c > 0 && !strings.HasPrefix(l, "[") || c > 0 && strings.Contains(l, " seq ") {
			n += c // a line gone (deleted or rewritten), or a sequence moved
		}
	}
	for l, c := range count {
		if c < 0 && !strings.HasPrefix(l, "[") && !hasKey(a, l) {
			n += -c // a key added
		}
	}
	return n
}

// hasKey reports whether dump d holds the key of line l (key=value).
func hasKey(d, l string) bool {
	k, _, _ := strings.Cut(l, "=")
	return strings.Contains(d, "\n"+k+"=")
}

// TestTx_OneDoorToTheFile: the Tx methods reach bbolt only through
// tx.bucket, whose writes count themselves; a method that took the
// bbolt transaction (t.b) itself could write uncounted, which
// TestTx_WritesCounted cannot always see (a method that also rewrites
// unchanged keys counts more writes than it changes).
func TestTx_OneDoorToTheFile(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var uses []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "migrate.go" || f == "store.go" || f == "schema.go" {
			continue // the schema and its migrations run outside app.Tx
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if strings.Contains(line, "t.b.") && !strings.HasPrefix(line, "func (t *tx) bucket(") {
				uses = append(uses, fmt.Sprintf("%s:%d: %s", f, i+1, strings.TrimSpace(line)))
			}
		}
	}
	if len(uses) > 0 {
		t.Errorf("Tx methods reach bbolt around the counted bucket:\n\t%s\ngo through t.bucket(name)", strings.Join(uses, "\n\t"))
	}
}

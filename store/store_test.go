package store

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"

	"nodedesk/app"
)

// mustOpenStore opens a fresh store in a temporary folder and closes it when
// the test ends.
func mustOpenStore(tb testing.TB) *Store {
	tb.Helper()
	return mustOpenAt(tb, filepath.Join(tb.TempDir(), "nodedesk.db"))
}

// mustOpenAt opens the store at path and closes it when the test ends.
func mustOpenAt(tb testing.TB, path string) *Store {
	tb.Helper()
	s, err := Open(path)
	if err != nil {
		tb.Fatalf("Open(%s): %v", path, err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

// mustUpdate runs fn in a read-write transaction that must succeed.
func mustUpdate(tb testing.TB, s *Store, fn func(app.Tx) error) {
	tb.Helper()
	if err := s.Update(fn); err != nil {
		tb.Fatalf("Update: %v", err)
	}
}

// mustView runs fn in a read-only transaction that must succeed.
func mustView(tb testing.TB, s *Store, fn func(app.Tx) error) {
	tb.Helper()
	if err := s.View(fn); err != nil {
		tb.Fatalf("View: %v", err)
	}
}

// mustPutProject stores a new project named name and returns it.
func mustPutProject(tb testing.TB, s *Store, name string) *app.Project {
	tb.Helper()
	p := &app.Project{ID: uuid.NewString(), Name: name, Status: app.ProjectOpened}
	mustUpdate(tb, s, func(tx app.Tx) error { return tx.PutProject(p) })
	return p
}

// mustPutNode stores a new VPCS node of project p and returns it.
func mustPutNode(tb testing.TB, s *Store, p *app.Project, name string, console int) *app.Node {
	tb.Helper()
	n := &app.Node{ID: uuid.NewString(), ProjectID: p.ID, Type: app.VPCS, Name: name,
		Console: console, ConsoleType: app.ConsoleTelnet, Status: app.Stopped}
	mustUpdate(tb, s, func(tx app.Tx) error { return tx.PutNode(n) })
	return n
}

func getNode(tb testing.TB, s *Store, projectID, nodeID string) *app.Node {
	tb.Helper()
	var n *app.Node
	mustView(tb, s, func(tx app.Tx) (err error) {
		n, err = tx.Node(projectID, nodeID)
		return err
	})
	return n
}

func consoleOwner(tb testing.TB, s *Store, port int) (app.NodeKey, bool) {
	tb.Helper()
	var (
		k  app.NodeKey
		ok bool
	)
	mustView(tb, s, func(tx app.Tx) (err error) {
		k, ok, err = tx.ConsoleOwner(port)
		return err
	})
	return k, ok
}

func nodeIDByName(tb testing.TB, s *Store, projectID, name string) (string, bool) {
	tb.Helper()
	var (
		id string
		ok bool
	)
	mustView(tb, s, func(tx app.Tx) (err error) {
		id, ok, err = tx.NodeIDByName(projectID, name)
		return err
	})
	return id, ok
}

func nodeNames(tb testing.TB, s *Store, projectID string) []string {
	tb.Helper()
	names := []string{}
	mustView(tb, s, func(tx app.Tx) error {
		ns, err := tx.Nodes(projectID)
		for _, n := range ns {
			names = append(names, n.Name)
		}
		return err
	})
	return names
}

func wantOwner(tb testing.TB, s *Store, port int, n *app.Node) {
	tb.Helper()
	k, ok := consoleOwner(tb, s, port)
	if want := (app.NodeKey{ProjectID: n.ProjectID, NodeID: n.ID}); !ok || k != want {
		tb.Errorf("ConsoleOwner(%d) = %+v, %v; want %+v, true", port, k, ok, want)
	}
}

func wantNoOwner(tb testing.TB, s *Store, port int) {
	tb.Helper()
	if k, ok := consoleOwner(tb, s, port); ok {
		tb.Errorf("ConsoleOwner(%d) = %+v; want port free", port, k)
	}
}

func wantName(tb testing.TB, s *Store, n *app.Node, name string) {
	tb.Helper()
	if id, ok := nodeIDByName(tb, s, n.ProjectID, name); !ok || id != n.ID {
		tb.Errorf("NodeIDByName(%q) = %q, %v; want %q, true", name, id, ok, n.ID)
	}
}

func wantNoName(tb testing.TB, s *Store, projectID, name string) {
	tb.Helper()
	if id, ok := nodeIDByName(tb, s, projectID, name); ok {
		tb.Errorf("NodeIDByName(%q) = %q; want the name free", name, id)
	}
}

func TestOpen(t *testing.T) {
	t.Run("CreatesFileAndFolder", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "a", "b", "nodedesk.db")
		s := mustOpenAt(t, path)
		if s.Path() != path {
			t.Errorf("Path() = %q; want %q", s.Path(), path)
		}
		if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("store file: %v, %v; want a regular file", fi, err)
		}
		// A new store is empty and usable.
		mustView(t, s, func(tx app.Tx) error {
			ps, err := tx.Projects()
			if len(ps) != 0 {
				t.Errorf("Projects() of a new store = %d projects; want 0", len(ps))
			}
			return err
		})
	})

	t.Run("ReopenKeepsProjectsAndNodes", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "nodedesk.db")
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		p := mustPutProject(t, s, "lab")
		n1 := mustPutNode(t, s, p, "PC1", 5000)
		n2 := mustPutNode(t, s, p, "PC2", 5001)
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}

		s = mustOpenAt(t, path)
		mustView(t, s, func(tx app.Tx) error {
			ps, err := tx.Projects()
			if err != nil {
				return err
			}
			if len(ps) != 1 || !reflect.DeepEqual(ps[0], p) {
				t.Errorf("Projects() after reopen = %+v; want [%+v]", ps, p)
			}
			ns, err := tx.Nodes(p.ID)
			if err != nil {
				return err
			}
			if len(ns) != 2 || !reflect.DeepEqual(ns[0], n1) || !reflect.DeepEqual(ns[1], n2) {
				t.Errorf("Nodes() after reopen = %+v; want [%+v %+v]", ns, n1, n2)
			}
			return nil
		})
		wantOwner(t, s, 5000, n1)
		wantOwner(t, s, 5001, n2)
		wantName(t, s, n1, "PC1")
		wantName(t, s, n2, "PC2")
	})
}

func TestTx_PutNode(t *testing.T) {
	t.Run("IndexesConsoleAndName", func(t *testing.T) {
		s := mustOpenStore(t)
		p := mustPutProject(t, s, "lab")
		n := mustPutNode(t, s, p, "PC1", 5000)
		wantOwner(t, s, 5000, n)
		wantName(t, s, n, "PC1")
		if got := getNode(t, s, p.ID, n.ID); !reflect.DeepEqual(got, n) {
			t.Errorf("Node() = %+v; want %+v", got, n)
		}
	})

	t.Run("ConsoleChangeMovesIndex", func(t *testing.T) {
		s := mustOpenStore(t)
		p := mustPutProject(t, s, "lab")
		n := mustPutNode(t, s, p, "PC1", 5000)
		n.Console = 6000
		mustUpdate(t, s, func(tx app.Tx) error { return tx.PutNode(n) })
		wantNoOwner(t, s, 5000)
		wantOwner(t, s, 6000, n)
	})

	t.Run("ConsoleRemovedFreesPort", func(t *testing.T) {
		s := mustOpenStore(t)
		p := mustPutProject(t, s, "lab")
		n := mustPutNode(t, s, p, "PC1", 5000)
		n.Console, n.ConsoleType = 0, app.ConsoleNone
		mustUpdate(t, s, func(tx app.Tx) error { return tx.PutNode(n) })
		wantNoOwner(t, s, 5000)
	})

	t.Run("RenameMovesName", func(t *testing.T) {
		s := mustOpenStore(t)
		p := mustPutProject(t, s, "lab")
		n := mustPutNode(t, s, p, "PC1", 5000)
		n.Name = "Alpha"
		mustUpdate(t, s, func(tx app.Tx) error { return tx.PutNode(n) })
		wantNoName(t, s, p.ID, "PC1")
		wantName(t, s, n, "Alpha")
		wantOwner(t, s, 5000, n)
	})

	t.Run("ReplaceKeepsSeq", func(t *testing.T) {
		s := mustOpenStore(t)
		p := mustPutProject(t, s, "lab")
		mustPutNode(t, s, p, "A", 5000)
		b := mustPutNode(t, s, p, "B", 5001)
		mustPutNode(t, s, p, "C", 5002)
		// A copy without Seq replaces the node where it stands.
		edit := *b
		edit.Seq, edit.X = 0, 42
		mustUpdate(t, s, func(tx app.Tx) error { return tx.PutNode(&edit) })
		if got := nodeNames(t, s, p.ID); !reflect.DeepEqual(got, []string{"A", "B", "C"}) {
			t.Errorf("Nodes() after replacing B = %v; want [A B C]", got)
		}
		if got := getNode(t, s, p.ID, b.ID); got.Seq != b.Seq || got.X != 42 {
			t.Errorf("replaced B has seq %d, x %d; want seq %d, x 42", got.Seq, got.X, b.Seq)
		}
	})

	t.Run("NodesInCreationOrderAndOnlyTheProjects", func(t *testing.T) {
		s := mustOpenStore(t)
		p := mustPutProject(t, s, "lab")
		q := mustPutProject(t, s, "other")
		// Creation order differs from id and name order on purpose.
		want := []string{"zulu", "alpha", "mike", "bravo", "yankee"}
		for i, name := range want {
			mustPutNode(t, s, p, name, 5000+2*i)
			mustPutNode(t, s, q, "q-"+name, 5001+2*i)
		}
		if got := nodeNames(t, s, p.ID); !reflect.DeepEqual(got, want) {
			t.Errorf("Nodes(p) = %v; want %v", got, want)
		}
		if got := nodeNames(t, s, uuid.NewString()); len(got) != 0 {
			t.Errorf("Nodes(unknown project) = %v; want none", got)
		}
	})
}

func TestTx_DeleteNode(t *testing.T) {
	s := mustOpenStore(t)
	p := mustPutProject(t, s, "lab")
	n := mustPutNode(t, s, p, "PC1", 5000)
	other := mustPutNode(t, s, p, "PC2", 5001)
	mustUpdate(t, s, func(tx app.Tx) error { return tx.DeleteNode(p.ID, n.ID) })

	if got := getNode(t, s, p.ID, n.ID); got != nil {
		t.Errorf("Node() after delete = %+v; want nil", got)
	}
	wantNoOwner(t, s, 5000)
	wantNoName(t, s, p.ID, "PC1")
	wantOwner(t, s, 5001, other)
	wantName(t, s, other, "PC2")
	if got := nodeNames(t, s, p.ID); !reflect.DeepEqual(got, []string{"PC2"}) {
		t.Errorf("Nodes() after delete = %v; want [PC2]", got)
	}
}

func TestTx_DeleteProject(t *testing.T) {
	s := mustOpenStore(t)
	p := mustPutProject(t, s, "lab")
	q := mustPutProject(t, s, "other")
	p1 := mustPutNode(t, s, p, "PC1", 5000)
	p2 := mustPutNode(t, s, p, "PC2", 5001)
	q1 := mustPutNode(t, s, q, "PC1", 5002)

	mustUpdate(t, s, func(tx app.Tx) error { return tx.DeleteProject(p.ID) })

	mustView(t, s, func(tx app.Tx) error {
		if got, err := tx.Project(p.ID); err != nil || got != nil {
			t.Errorf("Project() after delete = %+v, %v; want nil", got, err)
		}
		for _, n := range []*app.Node{p1, p2} {
			if got, err := tx.Node(p.ID, n.ID); err != nil || got != nil {
				t.Errorf("Node(%s) after project delete = %+v, %v; want nil", n.Name, got, err)
			}
		}
		ps, err := tx.Projects()
		if len(ps) != 1 || ps[0].ID != q.ID {
			t.Errorf("Projects() after delete = %+v; want only %q", ps, q.Name)
		}
		return err
	})
	if got := nodeNames(t, s, p.ID); len(got) != 0 {
		t.Errorf("Nodes(deleted project) = %v; want none", got)
	}
	wantNoOwner(t, s, 5000)
	wantNoOwner(t, s, 5001)
	wantNoName(t, s, p.ID, "PC1")
	wantNoName(t, s, p.ID, "PC2")
	// The other project is untouched, including its node of the same name.
	wantOwner(t, s, 5002, q1)
	wantName(t, s, q1, "PC1")
}

func TestStore_Update_ErrorWritesNothing(t *testing.T) {
	s := mustOpenStore(t)
	kept := mustPutProject(t, s, "kept")
	keptNode := mustPutNode(t, s, kept, "PC1", 5000)

	boom := errors.New("boom")
	p := &app.Project{ID: uuid.NewString(), Name: "lost"}
	n := &app.Node{ID: uuid.NewString(), ProjectID: p.ID, Type: app.VPCS, Name: "PC9",
		Console: 5009, ConsoleType: app.ConsoleTelnet}
	err := s.Update(func(tx app.Tx) error {
		if err := tx.PutProject(p); err != nil {
			return err
		}
		if err := tx.PutNode(n); err != nil {
			return err
		}
		if err := tx.DeleteNode(kept.ID, keptNode.ID); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v; want fn's error", err)
	}

	mustView(t, s, func(tx app.Tx) error {
		if got, err := tx.Project(p.ID); err != nil || got != nil {
			t.Errorf("Project() of failed update = %+v, %v; want nil", got, err)
		}
		if got, err := tx.Node(p.ID, n.ID); err != nil || got != nil {
			t.Errorf("Node() of failed update = %+v, %v; want nil", got, err)
		}
		ps, err := tx.Projects()
		if len(ps) != 1 || ps[0].ID != kept.ID {
			t.Errorf("Projects() = %+v; want only %q", ps, kept.Name)
		}
		return err
	})
	wantNoOwner(t, s, 5009)
	wantNoName(t, s, p.ID, "PC9")
	if got := getNode(t, s, kept.ID, keptNode.ID); !reflect.DeepEqual(got, keptNode) {
		t.Errorf("node deleted by the failed update = %+v; want %+v", got, keptNode)
	}
	wantOwner(t, s, 5000, keptNode)
	wantName(t, s, keptNode, "PC1")
}

// badFile writes, at path, a file that Open must refuse.
type badFile func(t *testing.T, path string)

func TestOpen_Refuses(t *testing.T) {
	randomBytes := func(size int) badFile {
		return func(t *testing.T, path string) {
			b := make([]byte, size)
			if _, err := rand.Read(b); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name    string
		make    badFile
		wantErr string
	}{
		{name: "RandomBytesSmall", make: randomBytes(100), wantErr: "not a nodedesk store"},
		{name: "RandomBytesOneToTwoPages", make: randomBytes(6000), wantErr: "not a nodedesk store"},
		{name: "RandomBytesLarge", make: randomBytes(64 << 10), wantErr: "not a nodedesk store"},
		{name: "ForeignBboltFile", make: func(t *testing.T, path string) {
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = db.Update(func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("widgets"))
				if err != nil {
					return err
				}
				return b.Put([]byte("k"), []byte("v"))
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "not a nodedesk store"},
		{name: "NewerSchema", make: func(t *testing.T, path string) {
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			mustPutProject(t, s, "lab")
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = db.Update(func(tx *bolt.Tx) error {
				return tx.Bucket([]byte("meta")).Put([]byte("schema_version"), u64(99))
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "newer nodedesk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "nodedesk.db")
			tt.make(t, path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}

			s, err := Open(path)
			if err == nil {
				s.Close()
				t.Fatalf("Open succeeded; want an error containing %q", tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), path) {
				t.Errorf("Open error = %q; want it to contain %q and the path", err, tt.wantErr)
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Errorf("Open changed the refused file (%d bytes before, %d after)", len(before), len(after))
			}
		})
	}
}

func TestOpen_InUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nodedesk.db")
	first, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	p := mustPutProject(t, first, "lab")

	start := time.Now()
	second, err := Open(path)
	elapsed := time.Since(start)
	if err == nil {
		second.Close()
		first.Close()
		t.Fatal("second Open of a store in use succeeded; want an error")
	}
	if !strings.Contains(err.Error(), "in use by another nodedesk") {
		t.Errorf("second Open error = %q; want it to contain %q", err, "in use by another nodedesk")
	}
	if elapsed > 2*time.Second {
		t.Errorf("second Open took %v to fail; want at most 2s", elapsed)
	}

	// The first store is unharmed and, once closed, frees the file.
	mustView(t, first, func(tx app.Tx) error {
		got, err := tx.Project(p.ID)
		if got == nil {
			t.Errorf("first store lost project %q after the refused Open", p.Name)
		}
		return err
	})
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	mustOpenAt(t, path)
}

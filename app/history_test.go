package app_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"nodedesk/app"
)

func mustFindHistory(tb testing.TB, svc *app.Service, projectID string) *app.History {
	tb.Helper()
	h, err := svc.FindHistory(context.Background(), projectID)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// TestService_HistoryBound: a project keeps its newest MaxHistory entries;
// the oldest go. Writers share commits (group commit), each its own entry.
func TestService_HistoryBound(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	const writers = 8
	var nodes []*app.Node
	for range writers {
		nodes = append(nodes, mustCreateVPCS(t, svc, p.ID))
	}
	var wg sync.WaitGroup
	for w, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range app.MaxHistory/writers + 3 {
				if _, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{X: app.Some(1 + i*writers + w)}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	h := mustFindHistory(t, svc, p.ID)
	if len(h.Undo) != app.MaxHistory || len(h.Redo) != 0 {
		t.Fatalf("%d entries to undo, %d to redo; want %d, 0", len(h.Undo), len(h.Redo), app.MaxHistory)
	}
	for _, e := range h.Undo {
		if !strings.HasPrefix(e.Description, "Moved PC") {
			t.Fatalf("entry %q kept, older than %d moves", e.Description, app.MaxHistory)
		}
	}
	seen := map[string]bool{}
	for _, e := range h.Undo {
		if seen[e.ID] {
			t.Fatalf("entry %s twice", e.ID)
		}
		seen[e.ID] = true
	}
}

// TestService_HistoryOfProjects: creating a project, or a copy of one, is
// no part of its history; what running changes records nothing.
func TestService_HistoryOfProjects(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	if h := mustFindHistory(t, svc, p.ID); len(h.Undo) != 0 {
		t.Errorf("a new project's history: %v", h.Undo)
	}
	n := mustCreateVPCS(t, svc, p.ID)
	if _, err := svc.CreateSnapshot(ctx, p.ID, "s"); err != nil {
		t.Fatal(err)
	}
	dup, err := svc.DuplicateProject(ctx, p.ID, app.ProjectDuplicate{})
	if err != nil {
		t.Fatal(err)
	}
	if h := mustFindHistory(t, svc, dup.ID); len(h.Undo) != 0 {
		t.Errorf("a copy's history: %v", h.Undo)
	}
	if _, err := svc.NodeAction(ctx, ref(n), app.Start); err != nil {
		t.Fatal(err)
	}
	for _, f := range []func(context.Context) error{svc.ReconcileStatuses, svc.ReconcileCaptures} {
		if err := f(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.CloseProject(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	h := mustFindHistory(t, svc, p.ID)
	var got []string
	for _, e := range h.Undo {
		got = append(got, e.Description)
	}
	if want := []string{"Took snapshot s", "Added PC1"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("history %q; want %q", got, want)
	}
	if h.Undo[0].Origin != app.OriginAPI {
		t.Errorf("origin %q without a source", h.Undo[0].Origin)
	}
}

// BenchmarkUpdateNode is a node update (a move) through the Service on the
// real store, durable, on two services side by side, one recording
// history and one not, each update of one followed by one of the other so
// that a noisy machine slows both alike. It reports each one's wall and
// CPU time per update, and their ratios:
//
//	go test -run - -bench UpdateNode -benchtime 2000x ./app/
func BenchmarkUpdateNode(b *testing.B) {
	ctx := context.Background()
	type variant struct {
		svc       *app.Service
		n         *app.Node
		wall, cpu time.Duration
	}
	var vs [2]*variant
	for i, history := range []bool{false, true} {
		svc, _ := newService(b)
		app.SetHistory(svc, history)
		vs[i] = &variant{svc: svc, n: mustCreateVPCS(b, svc, mustCreateProject(b, svc, "lab").ID)}
	}
	i := 0
	for b.Loop() {
		i++
		for _, v := range vs {
			t0, c0 := time.Now(), cpuTime(b)
			if _, err := v.svc.UpdateNode(ctx, ref(v.n), app.NodeUpdate{X: app.Some(i), Y: app.Some(-i)}); err != nil {
				b.Fatal(err)
			}
			v.wall, v.cpu = v.wall+time.Since(t0), v.cpu+cpuTime(b)-c0
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(vs[0].wall)/n, "plain-ns/update")
	b.ReportMetric(float64(vs[1].wall)/n, "history-ns/update")
	b.ReportMetric(float64(vs[1].wall)/float64(vs[0].wall), "wall-ratio")
	b.ReportMetric(float64(vs[0].cpu)/n, "plain-cpu-ns/update")
	b.ReportMetric(float64(vs[1].cpu)/n, "history-cpu-ns/update")
	b.ReportMetric(float64(vs[1].cpu)/float64(vs[0].cpu), "cpu-ratio")
}

// cpuTime is the CPU time (user and system) the process has used so far:
// beside the wall time, which a durable commit's wait for the disk
// dominates, it shows what a write costs the machine.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

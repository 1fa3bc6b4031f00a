package supervise_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/procrecord"
	"nodedesk/app/supervise"
)

// These tests run a small runner of real `sleep` processes on a Table, as
// the emulators' runners use it: a process per node, recorded while it
// runs, waited for by a goroutine that reports its end.

// sleeper is one running `sleep`.
type sleeper struct {
	ref      app.NodeRef
	cmd      *exec.Cmd
	stopping atomic.Bool
	done     chan struct{} // closed once the process has been waited for
	reported chan struct{} // closed once its end has been handled
	resets   atomic.Int32
}

// sleepers is the runner.
type sleepers struct {
	supervise.Lifecycle
	procs *supervise.Table[*sleeper]
}

func newSleepers(dir string) *sleepers {
	r := &sleepers{}
	r.procs = supervise.New(supervise.Config[*sleeper]{What: "sleepers",
		Records: procrecord.Records{Dir: dir, What: "sleeper"},
		Stop:    r.stop, Reset: func(s *sleeper) { s.resets.Add(1) }})
	r.Lifecycle = r.procs.Lifecycle()
	return r
}

// startSleep starts `sleep 60` in a process group of its own, as the
// records need.
func startSleep(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

func (r *sleepers) start(t *testing.T, nodeID string) *sleeper {
	t.Helper()
	s := &sleeper{ref: app.NodeRef{ProjectID: "p", NodeID: nodeID}, done: make(chan struct{}), reported: make(chan struct{})}
	if _, err := r.procs.Start(nodeID, func() (*sleeper, error) {
		s.cmd = startSleep(t)
		return s, nil
	}); err != nil {
		t.Fatal(err)
	}
	r.procs.Keep(nodeID, "node "+nodeID, s.cmd.Process.Pid)
	go func() {
		err := s.cmd.Wait()
		close(s.done)
		r.procs.Ended(s.ref, s, s.stopping.Load(), func() string { return "sleep ended: " + err.Error() })
		close(s.reported)
	}()
	t.Cleanup(func() { _ = r.stop(nodeID) })
	return s
}

func (r *sleepers) stop(nodeID string) error {
	s, ok := r.procs.Get(nodeID)
	if !ok {
		return nil
	}
	s.stopping.Store(true)
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	<-s.done
	r.procs.Forget(nodeID, s)
	return nil
}

// observer keeps what it is told.
type observer struct {
	mu    sync.Mutex
	exits []string // node id: detail
	notes []string
}

func (o *observer) OnProcessExit(_, nodeID, detail string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.exits = append(o.exits, nodeID+": "+detail)
}

func (o *observer) OnNodeFiles(string, string, map[string]string) {}

func (o *observer) OnProcessNote(_, nodeID string, note app.Note) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.notes = append(o.notes, nodeID+": "+note.Message+" ["+note.Detail+"]")
}

func (o *observer) told() (exits, notes []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.exits), slices.Clone(o.notes)
}

func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

func recorded(dir, nodeID string) bool {
	_, err := os.Stat(procrecord.Records{Dir: dir}.Path(nodeID))
	return err == nil
}

func await(t *testing.T, c <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: not within 10 s", what)
	}
}

// TestTable_ExitToldOnlyIfNobodyStopped: a process that ends by itself
// is forgotten with its record and told to the observer with its detail;
// one stopped is forgotten and told to nobody.
func TestTable_ExitToldOnlyIfNobodyStopped(t *testing.T) {
	dir := t.TempDir()
	r := newSleepers(dir)
	o := &observer{}
	r.Observe(o)
	killed, stopped := r.start(t, "a"), r.start(t, "b")
	if !recorded(dir, "a") || !recorded(dir, "b") || r.procs.Len() != 2 {
		t.Fatalf("two running sleepers: records %v %v, table %d", recorded(dir, "a"), recorded(dir, "b"), r.procs.Len())
	}

	_ = syscall.Kill(killed.cmd.Process.Pid, syscall.SIGKILL) // from outside
	await(t, killed.reported, "the end of a killed sleeper")
	exits, _ := o.told()
	if !slices.Equal(exits, []string{"a: sleep ended: signal: killed"}) {
		t.Errorf("told %q, want the killed sleeper's end with its detail", exits)
	}
	if _, ok := r.procs.Get("a"); ok || recorded(dir, "a") {
		t.Error("an ended sleeper is still in the table or recorded")
	}

	_ = r.stop("b")
	await(t, stopped.reported, "the end of a stopped sleeper")
	if exits, _ := o.told(); len(exits) != 1 {
		t.Errorf("told %q; a stopped sleeper must not be told", exits)
	}
	if r.procs.Len() != 0 || recorded(dir, "b") {
		t.Errorf("after a stop: table %d, record %v", r.procs.Len(), recorded(dir, "b"))
	}
}

// TestLifecycle_StopAll: StopAll stops every process, at once, and tells
// nobody.
func TestLifecycle_StopAll(t *testing.T) {
	dir := t.TempDir()
	r := newSleepers(dir)
	o := &observer{}
	r.Observe(o)
	var ss []*sleeper
	for _, id := range []string{"a", "b", "c"} {
		ss = append(ss, r.start(t, id))
	}
	r.ResetConsole("b")
	r.ResetConsole("none") // no process: nothing to reset
	if ss[1].resets.Load() != 1 || ss[0].resets.Load() != 0 {
		t.Errorf("resets %d %d; want only b's console reset", ss[0].resets.Load(), ss[1].resets.Load())
	}
	begun := time.Now()
	r.StopAll()
	for _, s := range ss {
		await(t, s.reported, "the end of "+s.ref.NodeID)
		if !gone(s.cmd.Process.Pid) {
			t.Errorf("sleeper %s still runs", s.ref.NodeID)
		}
		if recorded(dir, s.ref.NodeID) {
			t.Errorf("sleeper %s is still recorded", s.ref.NodeID)
		}
	}
	if d := time.Since(begun); d > 5*time.Second {
		t.Errorf("StopAll took %v", d)
	}
	if exits, _ := o.told(); len(exits) != 0 || r.procs.Len() != 0 {
		t.Errorf("after StopAll: told %q, table %d", exits, r.procs.Len())
	}
}

// TestLifecycle_OpenReapsOrphans: Open ends the processes a previous
// runner recorded and did not stop (its nodedesk was killed), returns
// their names, removes the records, and begins the probe.
func TestLifecycle_OpenReapsOrphans(t *testing.T) {
	dir := t.TempDir()
	orphan := startSleep(t)
	defer func() { _ = orphan.Process.Kill(); _, _ = orphan.Process.Wait() }()
	if err := (procrecord.Records{Dir: dir}).Keep("a", "R1", orphan.Process.Pid); err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	go func() { _, _ = orphan.Process.Wait(); close(waited) }()

	probed := make(chan struct{})
	var once sync.Once
	procs := supervise.New(supervise.Config[*sleeper]{What: "sleepers", Records: procrecord.Records{Dir: dir},
		Probe: func(context.Context) { once.Do(func() { close(probed) }) }})
	ended, err := procs.Lifecycle().Open(context.Background())
	if err != nil || !slices.Equal(ended, []string{"R1"}) {
		t.Fatalf("Open = %q, %v; want [R1]", ended, err)
	}
	await(t, waited, "the orphan's end")
	await(t, probed, "the probe")
	if recorded(dir, "a") {
		t.Error("the orphan's record is left")
	}
	if ended, err := procs.Lifecycle().Open(context.Background()); err != nil || len(ended) != 0 {
		t.Errorf("a second Open = %q, %v; want nothing", ended, err)
	}
}

// TestLifecycle_OpenReapsByItsOwn: a runner that reaps by itself
// (Docker's containers) is asked instead of the records.
func TestLifecycle_OpenReapsByItsOwn(t *testing.T) {
	procs := supervise.New(supervise.Config[*sleeper]{What: "containers",
		Reap: func(context.Context) ([]string, error) { return []string{"n1"}, errors.New("engine gone") }})
	ended, err := procs.Lifecycle().Open(context.Background())
	if err == nil || !slices.Equal(ended, []string{"n1"}) {
		t.Errorf("Open = %q, %v; want [n1] and the reap's error", ended, err)
	}
}

// TestTable_Note: notes go to the observer; FirstInProject is true once a
// project.
func TestTable_Note(t *testing.T) {
	procs := supervise.New(supervise.Config[*sleeper]{})
	procs.Note(app.NodeRef{ProjectID: "p", NodeID: "a"}, app.Note{Message: "unheard"}) // no observer yet
	o := &observer{}
	procs.Lifecycle().Observe(o)
	procs.Note(app.NodeRef{ProjectID: "p", NodeID: "a"}, app.Note{Message: "slow", Detail: "no KVM"})
	if _, notes := o.told(); !slices.Equal(notes, []string{"a: slow [no KVM]"}) {
		t.Errorf("notes %q", notes)
	}
	if !procs.FirstInProject("p") || procs.FirstInProject("p") || !procs.FirstInProject("q") {
		t.Error("FirstInProject is not true once a project")
	}
}

// TestRunDir: each runner's records are in a folder named after its type.
func TestRunDir(t *testing.T) {
	if got := supervise.RunDir(app.RunnerEnv{RunDir: "/run/nd"}, app.QEMU); got != "/run/nd/qemu" {
		t.Errorf("RunDir = %q", got)
	}
	if got := supervise.RunDir(app.RunnerEnv{}, app.QEMU); got != "" {
		t.Errorf("RunDir without a folder = %q, want none", got)
	}
}

package dynamips_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/dynamips"
	"nodedesk/app/dynamips/dynamipstest"
	"nodedesk/app/kit"
	"nodedesk/app/supervise"
)

// TestStop_ThenStartAtOnce: a router stopped and at once started again
// starts, on the same console and aux ports, and no exit is reported:
// a stop returns only once the router's ports are free.
func TestStop_ThenStartAtOnce(t *testing.T) {
	bin := dynamipstest.Binary(t)
	image := dynamipstest.FakeIOS(t, "c7200")
	props, err := app.NewNodeProperties(app.Dynamips, "n1", map[string]any{"platform": "c7200", "image": filepath.Base(image), "idlepc": "0xffffffff80008040"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := dynamips.New(dynamips.Config{ConsoleHost: "127.0.0.1", Binary: bin, RunDir: filepath.Join(dir, "run"), StopGrace: 5 * time.Second})
	t.Cleanup(r.StopAll)
	exits := make(chan string, 10)
	r.Observe(supervise.Funcs{Exit: func(_, nodeID, detail string) { exits <- nodeID + ": " + detail }})
	p := app.Process{ProjectID: "p", NodeID: "n1", Name: "R1", Dir: filepath.Join(dir, "R1"),
		Console: kit.FreeTCP(t), ConsoleType: app.ConsoleTelnet, Aux: kit.FreeTCP(t),
		Properties: props, Images: map[string]string{"image": image}}
	for i := range 3 {
		if _, err := r.Start(p); err != nil {
			t.Fatalf("start %d: %v", i+1, err)
		}
		if pids := dynamipstest.PIDs(p.Dir); len(pids) != 1 {
			t.Fatalf("dynamips processes %v after start %d; want one", pids, i+1)
		}
		if err := r.Stop(p.NodeID); err != nil {
			t.Fatalf("stop %d: %v", i+1, err)
		}
	}
	if records, _ := os.ReadDir(filepath.Join(dir, "run")); len(records) != 0 {
		t.Errorf("records left after the last stop: %v", records)
	}
	select {
	case e := <-exits:
		t.Errorf("an exit was reported of a router that was stopped: %s", e)
	default:
	}
}

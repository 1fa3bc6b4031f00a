package labtest

import (
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"nodedesk/app/kit"
	"nodedesk/app/qemu/qemutest"
)

// TestQEMU_Booting: a guest whose QEMU runs but whose serial console has
// not printed anything yet is "booting" (status "started" all along, as
// GNS3's clients expect); once it has printed, it is not, and its
// console is the guest's. Every answer is checked against the contract.
func TestQEMU_Booting(t *testing.T) {
	l := Start(t, with(qemutest.Emulator))
	g := qemutest.Guest(t)
	uploadImage(t, l, "nd-vmlinux", g.KernelELF)
	uploadImage(t, l, "nd-initrd.img", g.Initrd)
	pid := l.MustCreateProject("qemu-boot")
	n := guestNode(t, l, pid, "B1", guestArgs("10.0.0.9", false))
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	if got := n["booting"]; got != false {
		t.Errorf("a stopped node says booting %v, want false", got)
	}

	started := l.Do("POST", path+"/start", nil).Want(t, 200).JSON(t)
	if started["status"] != "started" || started["booting"] != true {
		t.Fatalf("just started (the guest's kernel is silent for seconds under TCG): status %v booting %v, want started, true", started["status"], started["booting"])
	}
	c := kit.DialConsole(t, "127.0.0.1", int(n["console"].(float64)))
	var booted map[string]any
	if !kit.WaitFor(bootWait, func() bool {
		booted = l.Do("GET", path, nil).Want(t, 200).JSON(t)
		return booted["booting"] == false
	}) {
		t.Fatalf("still booting after %v: %q", bootWait, kit.Printable(c.Log.String()))
	}
	if booted["status"] != "started" {
		t.Errorf("booted: status %v, want started", booted["status"])
	}
	if !c.Expect(qemutest.GuestReady, false, bootWait) {
		t.Errorf("booted but its console never said %q: %q", qemutest.GuestReady, kit.Printable(c.Log.String()))
	}
	stopped := l.Do("POST", path+"/stop", nil).Want(t, 200).JSON(t)
	if stopped["booting"] != false {
		t.Errorf("stopped: booting %v, want false", stopped["booting"])
	}
}

// TestQEMU_StartPace measures how long six test guests booting from
// linked clones of one disk take until the last has booted and until
// the last is ready (its shell), started all at once (six node starts
// side by side) and by the page's Start all (paced, app/node_boot.go).
// It prints the figures that chose the pace (decision 0077).
func TestQEMU_StartPace(t *testing.T) {
	if os.Getenv("NODEDESK_BENCH") != "1" {
		kit.RunElsewhere(t, "the start pace is measured with NODEDESK_BENCH=1 (make bench-qemu)")
	}
	guests := kit.EnvInt(t, "NODEDESK_PACE_GUESTS", 6)
	l := Start(t, with(qemutest.Emulator))
	g := qemutest.Guest(t)
	uploadImage(t, l, "nd-disk.qcow2", g.Disk)
	rounds := kit.EnvInt(t, "NODEDESK_PACE_ROUNDS", 1)
	for i := range 2 * rounds {
		paced := i%2 == 1
		pid := l.MustCreateProject(fmt.Sprintf("pace-%v-%d", paced, time.Now().UnixNano()))
		var nodes []map[string]any
		for i := range guests {
			nodes = append(nodes, guestNode(t, l, pid, fmt.Sprintf("G%d", i+1), map[string]any{"hda_disk_image": "nd-disk.qcow2", "ram": 128}))
		}
		began := time.Now()
		cs := make([]*kit.Console, len(nodes))
		done := make(chan struct{})
		if paced {
			// As the page asks it: a REST client's Start all is GNS3's, unpaced.
			page := http.Header{"X-Nodedesk-Origin": {"browser"}}
			go func() { l.DoWith("POST", "/v2/projects/"+pid+"/nodes/start", nil, page).Want(t, 204); close(done) }()
		} else {
			var wg sync.WaitGroup
			for _, n := range nodes {
				wg.Go(func() { l.Do("POST", "/v2/projects/"+pid+"/nodes/"+n["node_id"].(string)+"/start", nil).Want(t, 200) })
			}
			go func() { wg.Wait(); close(done) }()
		}
		// Each console is dialled once its node runs, and waits for the
		// guest's shell: booted (first output) and ready times per guest.
		var mu sync.Mutex
		var lastBooted, lastReady, sumReady time.Duration
		var wg sync.WaitGroup
		for i, n := range nodes {
			wg.Go(func() {
				path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
				kit.WaitFor(bootWait, func() bool { return l.Do("GET", path, nil).JSON(t)["status"] == "started" })
				cs[i] = kit.DialConsole(t, "127.0.0.1", int(n["console"].(float64)))
				kit.WaitFor(3*bootWait, func() bool { return l.Do("GET", path, nil).JSON(t)["booting"] == false })
				b := time.Since(began)
				ok := cs[i].Expect(qemutest.GuestReady, false, 3*bootWait)
				r := time.Since(began)
				mu.Lock()
				lastBooted, lastReady, sumReady = max(lastBooted, b), max(lastReady, r), sumReady+r
				mu.Unlock()
				if !ok {
					t.Errorf("%s did not boot", n["name"])
				}
			})
		}
		wg.Wait()
		<-done
		fmt.Printf("pace: %d guests, paced=%v: last booted %v, last ready %v, mean ready %v\n", guests, paced, lastBooted.Round(100*time.Millisecond),
			lastReady.Round(100*time.Millisecond), (sumReady / time.Duration(guests)).Round(100*time.Millisecond))
		l.Do("POST", "/v2/projects/"+pid+"/nodes/stop", nil).Want(t, 204)
	}
}

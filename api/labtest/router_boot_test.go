package labtest

import (
	"path/filepath"
	"testing"
	"time"

	"nodedesk/app/dynamips/dynamipstest"
	"nodedesk/app/iou/ioutest"
	"nodedesk/app/kit"
)

// TestRouters_Boot: a Dynamips or IOU router is "booting" from its start
// until its console shows its prompt (decision 0077), then no longer; a
// stopped one is not booting. (The stand-ins print their prompt within
// a second: the start's answer may already say false. That the wait is
// the prompt's, not a bound's, TestDynamips_ImageIdlePC shows.)
func TestRouters_Boot(t *testing.T) {
	booted := func(t *testing.T, l *Lab, path string) {
		t.Helper()
		n := l.Do("GET", path, nil).Want(t, 200).JSON(t)
		if n["booting"] != false {
			t.Fatalf("a stopped router says booting %v, want false", n["booting"])
		}
		started := l.Do("POST", path+"/start", nil).Want(t, 200).JSON(t)
		if _, ok := started["booting"].(bool); !ok || started["status"] != "started" {
			t.Fatalf("started: status %v booting %v", started["status"], started["booting"])
		}
		if !kit.WaitFor(10*time.Second, func() bool { return l.Do("GET", path, nil).Want(t, 200).JSON(t)["booting"] == false }) {
			t.Fatalf("still booting 10 s after its start: its prompt was not seen")
		}
		l.Do("POST", path+"/stop", nil).Want(t, 200)
		if n := l.Do("GET", path, nil).Want(t, 200).JSON(t); n["booting"] != false {
			t.Errorf("stopped: booting %v, want false", n["booting"])
		}
	}
	t.Run("dynamips", func(t *testing.T) {
		l := Start(t, with(dynamipstest.Emulator))
		iosImage(t, l, "c7200-fake.image", "c7200")
		pid := l.MustCreateProject("boot")
		r := routerNode(t, l, pid, "R1", map[string]any{"platform": "c7200", "image": "c7200-fake.image", "idlepc": fakeIdlePC})
		booted(t, l, "/v2/projects/"+pid+"/nodes/"+r["node_id"].(string))
	})
	t.Run("iou", func(t *testing.T) {
		l := startIOULab(t)
		const image = "i86bi-linux-l3-adventerprisek9-test.bin"
		ioutest.PlaceImage(t, filepath.Dir(l.Store.Path()), image)
		pid := l.MustCreateProject("boot")
		r := iouNode(t, l, pid, "R1", image, nil)
		booted(t, l, "/v2/projects/"+pid+"/nodes/"+r["node_id"].(string))
	})
}

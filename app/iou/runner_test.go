package iou

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/iou/ioutest"
	"nodedesk/app/kit"
)

// TestReadSettings_NewNode: a new IOU node's settings are the settings
// table's defaults, key for key: the runner restates none of them.
func TestReadSettings_NewNode(t *testing.T) {
	for _, tt := range []struct {
		given            map[string]any
		eth, serial, ram int
	}{
		{nil, 2, 2, 256},
		{map[string]any{"ethernet_adapters": 4, "serial_adapters": 0, "ram": 1024}, 4, 0, 1024},
	} {
		props, err := app.NewNodeProperties(app.IOU, "", tt.given)
		if err != nil {
			t.Fatal(err)
		}
		s, _, err := readSettings(app.Process{Properties: props})
		if err != nil {
			t.Fatalf("%v: %v", tt.given, err)
		}
		for _, d := range app.SettingsDiff(props, s) {
			t.Errorf("%v: %s", tt.given, d)
		}
		if s.EthernetAdapters != tt.eth || s.SerialAdapters != tt.serial || s.RAM != tt.ram || s.NVRAM != 128 || s.ApplicationID != 1 || !s.UseDefaults {
			t.Errorf("%v: read %+v", tt.given, s)
		}
	}
}

// process is what the Service gives a start of a new IOU node of image.
func process(t *testing.T, image string, given map[string]any) app.Process {
	t.Helper()
	props, err := app.NewNodeProperties(app.IOU, "", given)
	if err != nil {
		t.Fatal(err)
	}
	return app.Process{ProjectID: "p", NodeID: "n-" + t.Name(), Name: "R1", Dir: t.TempDir(), Console: kit.FreeTCP(t),
		ConsoleType: app.ConsoleTelnet, Properties: props, Images: map[string]string{"path": image},
		StartBody: map[string]json.RawMessage{"license_check": json.RawMessage("false")}}
}

// TestStart_RefusedWithWhatToDo: what breaks IOU for GNS3's users is
// caught before or at the start, and the error says what happened: a
// 32-bit image this kernel cannot run, a licence GNS3 would refuse, an
// image that dies at once (its last words and "segmentation fault").
func TestStart_RefusedWithWhatToDo(t *testing.T) {
	r := New(Config{ConsoleHost: "127.0.0.1"})
	t.Cleanup(r.StopAll)
	i386 := filepath.Join(filepath.Dir(ioutest.FakeIOL(t)), "fake-iol-i386.bin")
	crash := filepath.Join(t.TempDir(), "i86bi-linux-l3-crash.bin")
	buildImage(t, crash, "#include <stdio.h>\nint main(void){puts(\"IOU booting\");fflush(stdout);*(volatile int*)0=1;return 0;}\n")
	licensed := process(t, ioutest.FakeIOL(t), map[string]any{"application_id": 461})
	licensed.StartBody = map[string]json.RawMessage{"license_check": json.RawMessage("true"), "iourc_content": json.RawMessage(`"[license]\nsomeone-else = 0123456789abcdef;\n"`)}
	for _, tt := range []struct {
		name string
		p    app.Process
		want []string
	}{
		{"NoImage", process(t, "", nil), []string{"has no IOU image"}},
		{"32-bit", process(t, i386, nil), []string{"32-bit program", "cannot run 32-bit programs"}},
		{"Licence", licensed, []string{"no key for this machine's hostname"}},
		{"DiesAtOnce", process(t, crash, map[string]any{"application_id": 462}), []string{"stopped as soon as R1 started", "segmentation fault", "IOU booting"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := os.Stat(i386); tt.name == "32-bit" && err != nil {
				t.Fatalf("the stand-in's 32-bit build is missing: %v", err)
			}
			_, err := r.Start(tt.p)
			if app.ErrorCode(err) != app.ECONFLICT {
				t.Fatalf("Start = %v; want a conflict", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(app.ErrorMessage(err), w) {
					t.Errorf("the message %q does not say %q", app.ErrorMessage(err), w)
				}
			}
			t.Logf("%s: %s", tt.name, app.ErrorMessage(err))
			if r.nodes.Len() != 0 {
				t.Errorf("a refused start left %d processes in the table", r.nodes.Len())
			}
		})
	}
}

// buildImage compiles a C program into an image at path.
func buildImage(t *testing.T, path, src string) {
	t.Helper()
	cmd := exec.Command("gcc", "-x", "c", "-o", path, "-")
	cmd.Stdin = strings.NewReader(src)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc (make test installs build-essential) cannot build a test image: %v\n%s", err, out)
	}
}

// TestStart_NoSocketInTime: an image that runs but never opens its
// socket is stopped after UpWait, and the start says so; nothing of it is
// left.
func TestStart_NoSocketInTime(t *testing.T) {
	r := New(Config{ConsoleHost: "127.0.0.1", UpWait: 500 * time.Millisecond, StopGrace: 500 * time.Millisecond})
	t.Cleanup(r.StopAll)
	mute := filepath.Join(t.TempDir(), "i86bi-linux-l3-mute.bin")
	buildImage(t, mute, "#include <unistd.h>\nint main(void){sleep(30);return 0;}\n")
	p := process(t, mute, map[string]any{"application_id": 463, "use_default_iou_values": false})
	done := make(chan error, 1)
	go func() { _, err := r.Start(p); done <- err }()
	select {
	case err := <-done:
		if app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(app.ErrorMessage(err), "did not open its socket") {
			t.Fatalf("Start = %v; want a conflict saying the socket never opened", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Start hangs when the image never opens its socket")
	}
	if r.nodes.Len() != 0 {
		t.Errorf("the refused start left %d processes in the table", r.nodes.Len())
	}
	if out, _ := exec.Command("pgrep", "-f", mute).Output(); len(out) > 0 {
		t.Errorf("the image still runs: pids %s", out)
	}
}

package iou

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeIOL is the path of a build of the free stand-in IOU image
// ("fake-iol-x86_64.bin" or "fake-iol-i386.bin"), looked up as
// ioutest.FakeIOL does (that package imports app, which these internal
// tests must not): $NODEDESK_FAKE_IOL, else the shared folder beside the
// checkout (../shared/fake-iol).
func fakeIOL(t testing.TB, name string) string {
	t.Helper()
	var dirs []string
	if d := os.Getenv("NODEDESK_FAKE_IOL"); d != "" {
		dirs = append(dirs, d)
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				dirs = append(dirs, filepath.Join(d, "..", "shared", "fake-iol"))
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, d := range dirs {
		if fi, err := os.Stat(filepath.Join(d, name)); err == nil && fi.Mode().IsRegular() {
			return filepath.Join(d, name)
		}
	}
	t.Fatalf("the stand-in IOU image %s is in none of %v: set NODEDESK_FAKE_IOL to the fake-iol folder (make test sets it from SHARED=<the shared folder>, ../shared by default)", name, dirs)
	return ""
}

// console is the stand-in's stdin and what it printed.
type console struct {
	in  io.Writer
	mu  sync.Mutex
	out bytes.Buffer
}

func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.Write(p)
}

func (c *console) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

// send types line and waits until the output after it holds want.
func (c *console) send(t *testing.T, line, want string) string {
	t.Helper()
	from := len(c.text())
	if _, err := io.WriteString(c.in, line+"\r"); err != nil {
		t.Fatalf("typing %q: %v", line, err)
	}
	return c.await(t, from, want)
}

func (c *console) await(t *testing.T, from int, want string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if s := c.text()[from:]; strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q on the console within 10 s; it printed:\n%s", want, c.text()[from:])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestNVRAMWithFakeIOL runs the stand-in image, which reads and writes
// nvram_<id> byte for byte as GNS3 and IOU do, on a file EncodeNVRAM made:
// the router must come up with its startup-config, and what it saves with
// "write memory" must decode, and be what UpdateNVRAM makes of the same
// configs. It also reads our NETMAP.
func TestNVRAMWithFakeIOL(t *testing.T) {
	const id = 471
	bin := fakeIOL(t, "fake-iol-x86_64.bin")
	dir := t.TempDir()
	image := filepath.Join(dir, "i86bi-linux-l3-adventerprisek9-15.4.1T.bin")
	if err := os.Symlink(bin, image); err != nil {
		t.Fatal(err)
	}
	startup := "!\nhostname NDTEST471\n!\ninterface Ethernet0/0\n ip address 10.47.1.1 255.255.255.0\n no shutdown\n!\n" +
		"line con 0\n exec-timeout 0 0\n privilege level 15\n!\nend\n"
	private := "\nkey chain secret\nend\n"
	nv, err := EncodeNVRAM(256, []byte(startup), []byte(private))
	if err != nil {
		t.Fatal(err)
	}
	nvPath := filepath.Join(dir, "nvram_00471")
	if err := os.WriteFile(nvPath, nv, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "NETMAP"), []byte(Netmap(id)), 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(image, "-n", "256", "-m", "1024", "471")
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	con := &console{in: in}
	cmd.Stdout, cmd.Stderr = con, con
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// SIGTERM lets it remove its socket /tmp/netio<uid>/471; kill it if it lingers.
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})

	con.await(t, 0, "NDTEST471#") // privilege level 15: the console starts in enable mode
	run := con.send(t, "show running-config", "NDTEST471#")
	for _, want := range []string{"hostname NDTEST471", "ip address 10.47.1.1 255.255.255.0"} {
		if !strings.Contains(run, want) {
			t.Errorf("show running-config lacks %q:\n%s", want, run)
		}
	}
	// NETMAP: every port goes to the same bay/unit of the bridge 471+512.
	if intf := con.send(t, "show interfaces Ethernet1/2", "NDTEST471#"); !strings.Contains(intf, "983:1/2") {
		t.Errorf("show interfaces Ethernet1/2 names no NETMAP peer 983:1/2:\n%s", intf)
	}

	before, _ := os.Stat(nvPath)
	con.send(t, "configure terminal", "(config)#")
	con.send(t, "hostname NEWNAME", "NEWNAME(config)#")
	con.send(t, "end", "NEWNAME#")
	con.send(t, "write memory", "NEWNAME#")
	var saved []byte
	deadline := time.Now().Add(10 * time.Second)
	for {
		saved, _ = os.ReadFile(nvPath)
		if fi, err := os.Stat(nvPath); err == nil && !os.SameFile(fi, before) && !bytes.Equal(saved, nv) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("write memory did not rewrite nvram_00471 within 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}

	gotStartup, gotPrivate, err := DecodeNVRAM(saved)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gotStartup), "hostname NEWNAME\n") || strings.Contains(string(gotStartup), "NDTEST471") {
		t.Errorf("saved startup-config:\n%s", gotStartup)
	}
	if !strings.Contains(string(gotStartup), "ip address 10.47.1.1 255.255.255.0") {
		t.Errorf("saved startup-config lost the interface address:\n%s", gotStartup)
	}
	if string(gotPrivate) != private {
		t.Errorf("saved private-config %q, want %q unchanged", gotPrivate, private)
	}
	if len(saved) != 256*1024 {
		t.Errorf("saved NVRAM is %d bytes, want 256 KB", len(saved))
	}
	// The image rewrote its NVRAM as nvram_import does: UpdateNVRAM on the
	// file we gave it, with the configs it saved, gives the same bytes.
	want, err := UpdateNVRAM(nv, gotStartup, gotPrivate)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(saved, want) {
		t.Errorf("the image's NVRAM and UpdateNVRAM's differ (first at byte %d)", firstDiff(saved, want))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

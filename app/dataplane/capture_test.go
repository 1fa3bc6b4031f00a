package dataplane

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"nodedesk/app"
)

// readCapture reads a pcap stream back and returns its link type and frames.
func readCapture(t *testing.T, r io.Reader) (layers.LinkType, [][]byte) {
	t.Helper()
	pr, err := pcapgo.NewReader(r)
	if err != nil {
		t.Fatalf("pcapgo.NewReader: %v", err)
	}
	var frames [][]byte
	for {
		data, ci, err := pr.ReadPacketData()
		if err == io.EOF {
			return pr.LinkType(), frames
		}
		if err != nil {
			t.Fatalf("reading frame %d: %v", len(frames), err)
		}
		if ci.CaptureLength != len(data) || ci.Length != len(data) {
			t.Errorf("frame %d: capture length %d, length %d, data %d", len(frames), ci.CaptureLength, ci.Length, len(data))
		}
		frames = append(frames, data)
	}
}

func TestCapture_WriteAndReadBack(t *testing.T) {
	for _, tc := range []struct {
		dlt  string
		want layers.LinkType
	}{{"DLT_EN10MB", layers.LinkTypeEthernet}, {"DLT_FRELAY", layers.LinkTypeFRelay}} {
		t.Run(tc.dlt, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "link.pcap")
			c, err := StartCapture(path, tc.dlt)
			if err != nil {
				t.Fatal(err)
			}
			var want [][]byte
			for i := range 50 {
				frame := testFrame(20 + i*30)
				want = append(want, frame)
				c.Write(time.Unix(1700000000, int64(i)*1000), frame)
			}
			if err := c.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if err := c.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			c.Write(time.Now(), testFrame(60)) // ignored after Close
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			lt, got := readCapture(t, f)
			if lt != tc.want {
				t.Errorf("link type = %v, want %v", lt, tc.want)
			}
			if len(got) != len(want) {
				t.Fatalf("read %d frames, want %d", len(got), len(want))
			}
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("frame %d differs", i)
				}
			}
		})
	}
}

func TestCapture_UnknownLinkType(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.pcap")
	_, err := StartCapture(path, "DLT_C_HDLC")
	var e *app.Error
	if !errors.As(err, &e) || e.Code != app.EINVALID || !bytes.Contains([]byte(e.Message), []byte("DLT_EN10MB")) {
		t.Fatalf("StartCapture(DLT_C_HDLC) error = %v, want EINVALID naming the supported types", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("a refused capture created its file")
	}
}

func TestCapture_FlushedPromptly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "link.pcap")
	c, err := StartCapture(path, "DLT_EN10MB")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(time.Now(), testFrame(60))
	want := int64(24 + 16 + 60)
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := os.Stat(path)
		if err == nil && st.Size() == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("file size = %d, want %d within %v of the write", st.Size(), want, CaptureFlushInterval)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCapture_ConcurrentWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "link.pcap")
	c, err := StartCapture(path, "DLT_EN10MB")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			frame := bytes.Repeat([]byte{byte(g)}, 100+g)
			for range 500 {
				c.Write(time.Now(), frame)
			}
		})
	}
	wg.Wait()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	_, got := readCapture(t, f)
	if len(got) != 2000 {
		t.Fatalf("read %d frames, want 2000", len(got))
	}
	for i, fr := range got {
		if g := int(fr[0]); len(fr) != 100+g || !bytes.Equal(fr, bytes.Repeat([]byte{fr[0]}, len(fr))) {
			t.Fatalf("frame %d is garbled", i)
		}
	}
}

func TestCapture_WriteNoAllocs(t *testing.T) {
	c, err := StartCapture(filepath.Join(t.TempDir(), "link.pcap"), "DLT_EN10MB")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	frame, now := testFrame(1500), time.Now()
	if n := testing.AllocsPerRun(1000, func() { c.Write(now, frame) }); n != 0 {
		t.Errorf("Write allocates %.1f times per frame, want 0", n)
	}
}

// flushBuffer is an io.Writer and http.Flusher safe to read while Follow
// writes to it.
type flushBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	flushes int
}

func (b *flushBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *flushBuffer) Flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushes++
}

func (b *flushBuffer) snapshot() ([]byte, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes()), b.flushes
}

func TestFollow_StreamsAppendedFramesUntilDone(t *testing.T) {
	for _, dlt := range []string{"DLT_EN10MB", "DLT_FRELAY"} {
		t.Run(dlt, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "link.pcap")
			c, err := StartCapture(path, dlt)
			if err != nil {
				t.Fatal(err)
			}
			c.Write(time.Now(), testFrame(60)) // before Follow starts
			out := &flushBuffer{}
			errc := make(chan error, 1)
			go func() { errc <- Follow(context.Background(), path, out, c.Closed) }()
			time.Sleep(3 * FollowPollInterval)
			for i := range 20 {
				c.Write(time.Now(), testFrame(61+i))
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(3 * CaptureFlushInterval)
			if b, flushes := out.snapshot(); len(b) != 24+21*16+(60+80)*21/2 || flushes == 0 {
				t.Errorf("while the capture runs Follow streamed %d bytes in %d flushes, want every frame written so far", len(b), flushes)
			}
			c.Write(time.Now(), testFrame(90)) // flushed by Close only
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-errc:
				if err != nil {
					t.Fatalf("Follow: %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Follow did not end after the capture closed")
			}
			b, _ := out.snapshot()
			lt, got := readCapture(t, bytes.NewReader(b))
			if lt != captureLinkTypes[dlt] || len(got) != 22 || len(got[21]) != 90 {
				t.Fatalf("Follow streamed %d frames of link type %v, want 22 ending with a 90-byte one", len(got), lt)
			}
		})
	}
}

func TestFollow_EndsWithContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "link.pcap")
	c, err := StartCapture(path, "DLT_EN10MB")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	var out bytes.Buffer
	go func() { errc <- Follow(ctx, path, &out, c.Closed) }()
	time.Sleep(2 * FollowPollInterval)
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Follow = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Follow did not end with its context")
	}
	if out.Len() != 24 {
		t.Errorf("streamed %d bytes of an empty capture, want its 24-byte header", out.Len())
	}
}

func TestFollow_MissingFile(t *testing.T) {
	err := Follow(context.Background(), filepath.Join(t.TempDir(), "none.pcap"), io.Discard, func() bool { return true })
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Follow of a missing file = %v, want not exist", err)
	}
}

package dataplane

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"nodedesk/app"
)

// testFilter builds a Filter with a fixed seed from a JSON filters object.
func testFilter(t *testing.T, spec string) *Filter {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(spec), &m); err != nil {
		t.Fatal(err)
	}
	f, err := newFilter(m, 1, 2)
	if err != nil {
		t.Fatalf("newFilter(%s): %v", spec, err)
	}
	return f
}

func testFrame(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

func TestNewFilter_NoneIsNil(t *testing.T) {
	for _, spec := range []string{`null`, `{}`, `{"packet_loss":[0],"delay":[""]}`} {
		if f := testFilter(t, spec); f != nil {
			t.Errorf("newFilter(%s) = %+v, want nil", spec, f)
		}
	}
	var f *Filter
	frame := testFrame(60)
	out, d, drop := f.Apply(frame, nil)
	if drop || d != 0 || &out[0] != &frame[0] {
		t.Errorf("nil Filter: drop=%v delay=%v, same frame=%v; want the frame passed as is", drop, d, &out[0] == &frame[0])
	}
}

func TestNewFilter_Invalid(t *testing.T) {
	_, err := NewFilter(map[string]json.RawMessage{"packet_loss": json.RawMessage(`[120]`)})
	var e *app.Error
	if !errors.As(err, &e) || e.Code != app.EINVALID {
		t.Errorf("NewFilter(packet_loss 120) error = %v, want EINVALID", err)
	}
}

func TestFilter_FrequencyDropEveryNth(t *testing.T) {
	f := testFilter(t, `{"frequency_drop":[3]}`)
	frame := testFrame(60)
	for i := 1; i <= 30; i++ {
		_, _, drop := f.Apply(frame, nil)
		if want := i%3 == 0; drop != want {
			t.Fatalf("frame %d: drop = %v, want %v", i, drop, want)
		}
	}
}

func TestFilter_FrequencyDropAll(t *testing.T) {
	f := testFilter(t, `{"frequency_drop":[-1]}`)
	for i := range 100 {
		if _, _, drop := f.Apply(testFrame(60), nil); !drop {
			t.Fatalf("frame %d passed a frequency_drop of -1", i)
		}
	}
}

func TestFilter_FrequencyDropConcurrent(t *testing.T) {
	f := testFilter(t, `{"frequency_drop":[4]}`)
	var mu sync.Mutex
	dropped := 0
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			frame := testFrame(60)
			n := 0
			for range 1000 {
				if _, _, drop := f.Apply(frame, nil); drop {
					n++
				}
			}
			mu.Lock()
			dropped += n
			mu.Unlock()
		})
	}
	wg.Wait()
	if dropped != 1000 {
		t.Errorf("dropped %d of 4000 frames, want exactly 1000", dropped)
	}
}

// rate runs n frames through f and returns the share dropped and the share
// corrupted (changed).
func rate(f *Filter, n int) (dropped, corrupted float64) {
	frame := testFrame(100)
	scratch := make([]byte, MaxFrame)
	var d, c int
	for range n {
		out, _, drop := f.Apply(frame, scratch)
		switch {
		case drop:
			d++
		case !bytes.Equal(out, frame):
			c++
		}
	}
	return float64(d) / float64(n), float64(c) / float64(n)
}

func TestFilter_PacketLossRate(t *testing.T) {
	const n = 50000
	for _, p := range []int{1, 10, 50, 99} {
		f := testFilter(t, `{"packet_loss":[`+strconv.Itoa(p)+`]}`)
		got, _ := rate(f, n)
		if want := float64(p) / 100; got < want-0.01 || got > want+0.01 {
			t.Errorf("packet_loss %d%%: dropped %.4f of frames, want %.2f ± 0.01", p, got, want)
		}
	}
	if got, _ := rate(testFilter(t, `{"packet_loss":[100]}`), 1000); got != 1 {
		t.Errorf("packet_loss 100%%: dropped %.3f of frames, want all", got)
	}
}

func TestFilter_CorruptRate(t *testing.T) {
	const n = 50000
	f := testFilter(t, `{"corrupt":[30]}`)
	dropped, got := rate(f, n)
	if dropped != 0 || got < 0.29 || got > 0.31 {
		t.Errorf("corrupt 30%%: dropped %.3f, corrupted %.4f of frames; want none dropped and 0.30 ± 0.01 corrupted", dropped, got)
	}
	if _, got := rate(testFilter(t, `{"corrupt":[100]}`), 1000); got != 1 {
		t.Errorf("corrupt 100%%: corrupted %.3f of frames, want all", got)
	}
}

func TestFilter_CorruptCopiesAndKeepsHeaders(t *testing.T) {
	f := testFilter(t, `{"corrupt":[100]}`)
	frame := testFrame(1000)
	orig := bytes.Clone(frame)
	scratch := make([]byte, MaxFrame)
	out, _, drop := f.Apply(frame, scratch)
	if drop || &out[0] != &scratch[0] || len(out) != len(frame) {
		t.Fatalf("drop=%v, in scratch=%v, len=%d; want a %d-byte copy in scratch", drop, &out[0] == &scratch[0], len(out), len(frame))
	}
	if !bytes.Equal(frame, orig) {
		t.Fatal("Apply modified the input frame")
	}
	changed := 0
	for i := range out {
		if out[i] != frame[i] {
			changed++
			if i < 14 {
				t.Errorf("byte %d of the Ethernet header was corrupted", i)
			}
		}
	}
	if changed != len(frame)/4 {
		t.Errorf("%d bytes changed, want a quarter of the frame (%d)", changed, len(frame)/4)
	}
	if out, _, _ := f.Apply(frame, make([]byte, 10)); &out[0] != &frame[0] {
		t.Error("with a short scratch the frame should pass intact")
	}
	for n := range 64 {
		small := testFrame(n)
		if out, _, _ := f.Apply(small, scratch); len(out) != n {
			t.Fatalf("a %d-byte frame came out with %d bytes", n, len(out))
		}
	}
}

func TestFilter_DelayWithinJitter(t *testing.T) {
	f := testFilter(t, `{"delay":[100,20]}`)
	seen := map[time.Duration]bool{}
	for range 20000 {
		_, d, drop := f.Apply(testFrame(60), nil)
		if drop || d < 80*time.Millisecond || d > 120*time.Millisecond || d%time.Millisecond != 0 {
			t.Fatalf("delay = %v (drop %v), want whole ms in [80ms, 120ms]", d, drop)
		}
		seen[d] = true
	}
	if len(seen) != 41 {
		t.Errorf("saw %d distinct delays, want all 41 from 80 to 120 ms", len(seen))
	}
}

func TestFilter_DelayFixedAndClamped(t *testing.T) {
	if _, d, _ := testFilter(t, `{"delay":[250]}`).Apply(testFrame(60), nil); d != 250*time.Millisecond {
		t.Errorf("delay [250] = %v, want 250ms", d)
	}
	f := testFilter(t, `{"delay":[5,10]}`)
	for range 5000 {
		if _, d, _ := f.Apply(testFrame(60), nil); d < 0 || d > 15*time.Millisecond {
			t.Fatalf("delay [5,10] = %v, want within [0, 15ms]", d)
		}
	}
}

func TestFilter_DroppedFramesAreNotDelayed(t *testing.T) {
	f := testFilter(t, `{"frequency_drop":[2],"delay":[100]}`)
	frame := testFrame(60)
	if _, d, drop := f.Apply(frame, nil); drop || d != 100*time.Millisecond {
		t.Errorf("first frame: drop=%v delay=%v, want passed after 100ms", drop, d)
	}
	if out, d, drop := f.Apply(frame, nil); !drop || d != 0 || out != nil {
		t.Errorf("second frame: drop=%v delay=%v, want dropped", drop, d)
	}
}

func TestFilter_NoAllocs(t *testing.T) {
	f := testFilter(t, `{"frequency_drop":[7],"packet_loss":[10],"delay":[10,5],"corrupt":[50]}`)
	frame, scratch := testFrame(1500), make([]byte, MaxFrame)
	if n := testing.AllocsPerRun(1000, func() { f.Apply(frame, scratch) }); n != 0 {
		t.Errorf("Apply allocates %.1f times per frame, want 0", n)
	}
}

func BenchmarkFilter_Apply(b *testing.B) {
	f, _ := newFilter(map[string]json.RawMessage{
		"packet_loss": json.RawMessage(`[1]`), "delay": json.RawMessage(`[10,5]`), "corrupt": json.RawMessage(`[1]`),
	}, 1, 2)
	frame, scratch := testFrame(1500), make([]byte, MaxFrame)
	b.ReportAllocs()
	for b.Loop() {
		f.Apply(frame, scratch)
	}
}

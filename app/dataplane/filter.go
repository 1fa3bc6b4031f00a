package dataplane

import (
	"encoding/json"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"nodedesk/app"
)

// Filter applies a link's GNS3 filters to the frames crossing it, with
// ubridge's meaning for each. They run in a fixed order, frequency_drop,
// packet_loss, corrupt, delay, so a dropped frame is neither corrupted nor
// delayed (ubridge runs them in the order GNS3 lists them). ubridge runs
// one filter chain for both directions of a link, so one Filter serves
// both and its frequency_drop counts the frames of both. ubridge captures
// after filtering: a capture sees what Apply lets through, as it leaves.
//
// A nil *Filter is valid and passes every frame unchanged: NewFilter
// returns nil when no filter is active. A Filter is safe for concurrent use
// and Apply does not allocate.
type Filter struct {
	every   int64         // frequency_drop: 0 none, -1 all, N every Nth frame
	loss    int           // packet_loss, in percent
	corrupt int           // corrupt, in percent
	latency time.Duration // delay: latency
	jitter  int           // delay: jitter, in ms

	seen atomic.Int64 // frames counted by frequency_drop

	mu  sync.Mutex // guards rng
	rng *rand.Rand
}

// NewFilter builds the Filter of a link's filters (Link.Filters, or
// app.ActiveFilters for a link that may be suspended). spec is checked and
// normalized with app.NormalizeFilters first, so its errors are EINVALID
// *app.Error. It returns nil, meaning "pass everything", when spec holds no
// active filter.
func NewFilter(spec map[string]json.RawMessage) (*Filter, error) {
	return newFilter(spec, rand.Uint64(), rand.Uint64())
}

// newFilter is NewFilter with the seed of its random source.
func newFilter(spec map[string]json.RawMessage, seed1, seed2 uint64) (*Filter, error) {
	norm, err := app.NormalizeFilters(spec)
	if err != nil || len(norm) == 0 {
		return nil, err
	}
	f := &Filter{rng: rand.New(rand.NewPCG(seed1, seed2))}
	for name, raw := range norm {
		var v []int
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, err
		}
		f.set(name, v)
	}
	return f, nil
}

// set records one normalized filter.
func (f *Filter) set(name string, v []int) {
	switch name {
	case app.FilterFrequencyDrop:
		f.every = int64(v[0])
	case app.FilterPacketLoss:
		f.loss = v[0]
	case app.FilterCorrupt:
		f.corrupt = v[0]
	case app.FilterDelay:
		f.latency = time.Duration(v[0]) * time.Millisecond
		if len(v) > 1 {
			f.jitter = v[1]
		}
	}
}

// Apply runs one frame through the filter. drop reports that the frame is
// lost. Otherwise out is the frame to send — frame itself, or a corrupted
// copy of it in scratch — and delay is how long to hold it before sending.
// frame is never modified. scratch should have room for len(frame) bytes
// (MaxFrame is enough); when it has not, a frame picked for corruption
// passes intact.
func (f *Filter) Apply(frame []byte, scratch []byte) (out []byte, delay time.Duration, drop bool) {
	if f == nil {
		return frame, 0, false
	}
	if f.dropEvery() {
		return nil, 0, true
	}
	d := f.draw()
	if d.lose {
		return nil, 0, true
	}
	out = frame
	if d.corrupt {
		out = corruptCopy(frame, scratch, d.mask)
	}
	return out, d.delay, false
}

// dropEvery applies frequency_drop.
func (f *Filter) dropEvery() bool {
	switch {
	case f.every == 0:
		return false
	case f.every < 0:
		return true
	default:
		return f.seen.Add(1)%f.every == 0
	}
}

// draws holds the random outcomes for one frame.
type draws struct {
	lose, corrupt bool
	delay         time.Duration
	mask          uint64 // seed of the corruption pattern
}

// draw takes the random outcomes of packet_loss, corrupt and delay for one
// frame, holding the lock only when one of them is random. A chance of P
// picks exactly P% of frames (ubridge's test picks P+1%); the delay is
// uniform over whole milliseconds from latency-jitter to latency+jitter,
// never below 0, as ubridge draws it.
func (f *Filter) draw() draws {
	d := draws{delay: f.latency}
	if f.loss == 0 && f.corrupt == 0 && f.jitter == 0 {
		return d
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.loss > 0 && f.rng.IntN(100) < f.loss {
		d.lose = true
		return d
	}
	if f.corrupt > 0 && f.rng.IntN(100) < f.corrupt {
		d.corrupt, d.mask = true, f.rng.Uint64()
	}
	if f.jitter > 0 {
		ms := f.rng.IntN(2*f.jitter+1) - f.jitter
		d.delay = max(0, f.latency+time.Duration(ms)*time.Millisecond)
	}
	return d
}

// corruptCopy copies frame into scratch and flips bits in the quarter of
// the frame around its middle, where ubridge corrupts, so that the headers
// at its start usually survive. Every byte of that span is changed.
func corruptCopy(frame, scratch []byte, seed uint64) []byte {
	if cap(scratch) < len(frame) {
		return frame
	}
	out := scratch[:len(frame)]
	copy(out, frame)
	n := len(frame) / 4
	if n == 0 {
		return out
	}
	start := len(frame)/2 - n/2 + 1
	var bits uint64
	for i := range out[start : start+n] {
		if i%8 == 0 {
			seed, bits = splitmix(seed)
		}
		out[start+i] ^= byte(bits) | 1
		bits >>= 8
	}
	return out
}

// splitmix advances a SplitMix64 state and returns the new state and its
// output: a cheap stream of pattern bytes that needs no lock.
func splitmix(s uint64) (next, out uint64) {
	next = s + 0x9e3779b97f4a7c15
	z := next
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return next, z ^ (z >> 31)
}

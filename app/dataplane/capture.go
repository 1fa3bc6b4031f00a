package dataplane

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"nodedesk/app"
)

// Capture timing and size.
const (
	// CaptureFlushInterval is the longest a captured frame waits in the
	// buffer before it reaches the file.
	CaptureFlushInterval = 100 * time.Millisecond
	// FollowPollInterval is how often Follow looks for new bytes.
	FollowPollInterval = 50 * time.Millisecond
	// captureSnapLen is the snapshot length written in the file header,
	// ubridge's; frames are never longer than MaxFrame, so none is cut.
	captureSnapLen = 65535
	captureBuffer  = 64 << 10
)

// captureLinkTypes maps GNS3's data_link_type names nodedesk captures to
// pcap link types.
var captureLinkTypes = map[string]layers.LinkType{
	"DLT_EN10MB": layers.LinkTypeEthernet,
	"DLT_FRELAY": layers.LinkTypeFRelay,
	// Each ATM cell is written whole (header, HEC and payload), as
	// dynamips' capture filter writes the cells of its ATM NIOs under
	// this link type.
	"DLT_ATM_RFC1483": layers.LinkTypeATM_RFC1483,
}

// Capture writes the frames of a link to a pcap file, as ubridge does for
// GNS3's start_capture. Write is safe from several goroutines. Frames are
// buffered and reach the file within CaptureFlushInterval, and all of them
// by the time Close returns.
type Capture struct {
	mu     sync.Mutex // guards everything below but closed
	file   *os.File
	buf    *bufio.Writer
	pcap   *pcapgo.Writer
	dirty  bool  // frames are buffered but not flushed
	err    error // first write error
	ended  bool
	closed atomic.Bool // set once the file is complete and closed

	stop, stopped chan struct{}
}

// StartCapture creates (or truncates) the pcap file at path and writes its
// header for linkType, GNS3's data_link_type: "DLT_EN10MB" (Ethernet),
// "DLT_FRELAY" (Frame Relay) or "DLT_ATM_RFC1483" (ATM cells). Any other
// link type is an EINVALID *app.Error.
func StartCapture(path string, linkType string) (*Capture, error) {
	lt, ok := captureLinkTypes[linkType]
	if !ok {
		return nil, app.Errorf(app.EINVALID, "Cannot capture with data_link_type %q; use DLT_EN10MB (Ethernet), DLT_FRELAY (Frame Relay) or DLT_ATM_RFC1483 (ATM)", linkType)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	c := &Capture{file: f, buf: bufio.NewWriterSize(f, captureBuffer), stop: make(chan struct{}), stopped: make(chan struct{})}
	c.pcap = pcapgo.NewWriter(c.buf)
	if err := c.writeHeader(lt); err != nil {
		f.Close()
		return nil, err
	}
	go c.flushLoop()
	return c, nil
}

// writeHeader writes the file header and flushes it, so that a follower
// sees a valid file from the start.
func (c *Capture) writeHeader(lt layers.LinkType) error {
	if err := c.pcap.WriteFileHeader(captureSnapLen, lt); err != nil {
		return err
	}
	return c.buf.Flush()
}

// Write appends one frame, seen at now, to the capture. After Close it does
// nothing. A write error is kept and returned by Close; frames after it are
// dropped.
func (c *Capture) Write(now time.Time, frame []byte) {
	n := min(len(frame), captureSnapLen)
	ci := gopacket.CaptureInfo{Timestamp: now, CaptureLength: n, Length: len(frame)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended || c.err != nil {
		return
	}
	c.err = c.pcap.WritePacket(ci, frame[:n])
	c.dirty = true
}

// flushLoop flushes buffered frames every CaptureFlushInterval until Close.
func (c *Capture) flushLoop() {
	defer close(c.stopped)
	t := time.NewTicker(CaptureFlushInterval)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			c.flush()
		}
	}
}

// flush writes buffered frames to the file.
func (c *Capture) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirty && c.err == nil && !c.ended {
		c.err = c.buf.Flush()
		c.dirty = false
	}
}

// Close flushes the buffered frames and closes the file. It returns the
// first error met while writing, flushing or closing; calling it again
// returns nil.
func (c *Capture) Close() error {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return nil
	}
	c.ended = true
	c.mu.Unlock()
	close(c.stop)
	<-c.stopped
	err := c.err
	if err == nil {
		err = c.buf.Flush()
	}
	err = errors.Join(err, c.file.Close())
	c.closed.Store(true)
	return err
}

// Path is the file the capture writes.
func (c *Capture) Path() string { return c.file.Name() }

// Closed reports whether Close has finished: every frame is in the file.
// It suits Follow's done.
func (c *Capture) Closed() bool { return c.closed.Load() }

// Follow streams the capture file at path to w from its start, then what is
// appended to it, looking every FollowPollInterval, as GNS3 streams a link's
// growing capture (GET /v2/projects/{p}/links/{l}/pcap). When w is an
// http.Flusher it is flushed after each chunk. Follow returns nil once
// done reports true and everything written until then has been sent (done
// must turn true only after the last frame is in the file, as
// Capture.Closed does), ctx.Err() when ctx ends first, or the error of a
// read or of a write to w.
func Follow(ctx context.Context, path string, w io.Writer, done func() bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	flusher, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	tick := time.NewTicker(FollowPollInterval)
	defer tick.Stop()
	for {
		finished := done()
		n, err := io.CopyBuffer(w, onlyReader{f}, buf)
		if err != nil {
			return err
		}
		if n > 0 && flusher != nil {
			flusher.Flush()
		}
		if finished {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// onlyReader hides the file's WriterTo, so that io.CopyBuffer reads into
// Follow's buffer until the current end of the file.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

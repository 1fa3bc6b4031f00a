package dataplane

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The io_uring poller (decision 0052): the same threads as the epoll
// poller's (poller_linux.go), but a frame costs one system call. Each
// thread owns a ring. A multishot receive on each of its endpoints takes a
// buffer from the ring's provided-buffer ring per datagram and posts one
// completion; the thread carries the frames through the lab and writes
// each frame for a UDP endpoint as a send request, submitted by the same
// io_uring_enter that then waits for the next completion. Sends carry
// MSG_DONTWAIT, so the kernel either sends a frame inside that call or
// fails it (a full socket buffer drops that frame, as a full queue does):
// a send never reads its buffer after the call returns, and a sent frame
// posts nothing (IOSQE_CQE_SKIP_SUCCESS). The ring is created with
// SINGLE_ISSUER and DEFER_TASKRUN (Linux 6.1): the kernel finishes the
// receives when the thread asks for completions, on that thread, without
// interrupting it. Other goroutines talk to the thread through its inbox
// and an eventfd the ring polls.
//
// The ring refers to sockets by descriptor. A descriptor named by a
// request must stay that socket's until the request is submitted, so the
// thread holds a duplicate of each socket it reads or sends to, and lets
// go of it (after cancelling its receive) when the endpoint closes: every
// io_uring poller is asked before the socket itself is closed.

// Layouts and constants of include/uapi/linux/io_uring.h (Linux 6.1, which
// has all this file uses; later kernels only add to it).
const (
	uringOffSQRing = 0          // IORING_OFF_SQ_RING (and the CQ ring: IORING_FEAT_SINGLE_MMAP)
	uringOffSQEs   = 0x10000000 // IORING_OFF_SQES

	uringSetupCQSize           = 1 << 3  // IORING_SETUP_CQSIZE
	uringSetupSubmitAll        = 1 << 7  // IORING_SETUP_SUBMIT_ALL
	uringSetupSingleIssuer     = 1 << 12 // IORING_SETUP_SINGLE_ISSUER
	uringSetupDeferTaskrun     = 1 << 13 // IORING_SETUP_DEFER_TASKRUN
	uringFeatSingleMmap        = 1 << 0  // IORING_FEAT_SINGLE_MMAP
	uringFeatNoDrop            = 1 << 1  // IORING_FEAT_NODROP
	uringEnterGetEvents        = 1 << 0  // IORING_ENTER_GETEVENTS
	uringRegisterPbufRing      = 22      // IORING_REGISTER_PBUF_RING
	uringOpPollAdd             = 6       // IORING_OP_POLL_ADD
	uringOpAsyncCancel         = 14      // IORING_OP_ASYNC_CANCEL
	uringOpSend                = 26      // IORING_OP_SEND
	uringOpRecv                = 27      // IORING_OP_RECV
	uringSQEBufferSelect       = 1 << 5  // IOSQE_BUFFER_SELECT
	uringSQECQESkipSuccess     = 1 << 6  // IOSQE_CQE_SKIP_SUCCESS
	uringRecvMultishot         = 1 << 1  // IORING_RECV_MULTISHOT (in sqe.ioprio)
	uringCQEFBuffer            = 1 << 0  // IORING_CQE_F_BUFFER
	uringCQEFMore              = 1 << 1  // IORING_CQE_F_MORE
	uringCQEBufferShift        = 16      // IORING_CQE_BUFFER_SHIFT
	uringSetupWanted           = uringSetupCQSize | uringSetupSubmitAll | uringSetupSingleIssuer | uringSetupDeferTaskrun
	uringFeaturesWanted        = uringFeatSingleMmap | uringFeatNoDrop
	uringPollIn            int = 0x1 // POLLIN
)

// uringParams is struct io_uring_params.
type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	_                                                                      [3]uint32
	sqOff                                                                  uringSQOffsets
	cqOff                                                                  uringCQOffsets
}

// uringSQOffsets is struct io_sqring_offsets.
type uringSQOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, _ uint32
	_                                                           uint64
}

// uringCQOffsets is struct io_cqring_offsets.
type uringCQOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, _ uint32
	_                                                           uint64
}

// uringSQE is struct io_uring_sqe (64 bytes), with the union members this
// file uses: off, addr, len, the 32-bit op flags (msg_flags,
// poll32_events, cancel_flags), buf_group.
type uringSQE struct {
	opcode   uint8
	flags    uint8
	ioprio   uint16
	fd       int32
	off      uint64
	addr     uint64
	len      uint32
	opFlags  uint32
	userData uint64
	bufGroup uint16
	_        uint16 // personality
	_        int32  // splice_fd_in, file_index
	_        [2]uint64
}

// uringCQE is struct io_uring_cqe (16 bytes; no IORING_SETUP_CQE32).
type uringCQE struct {
	userData uint64
	res      int32
	flags    uint32
}

// uringBuf is struct io_uring_buf, an entry of a provided-buffer ring; the
// ring's tail is the 16-bit field after bid in its first entry.
type uringBuf struct {
	addr uint64
	len  uint32
	bid  uint16
	_    uint16 // resv; the tail, in entry 0
}

// uringBufReg is struct io_uring_buf_reg.
type uringBufReg struct {
	ringAddr    uint64
	ringEntries uint32
	bgid        uint16
	flags       uint16
	_           [3]uint64
}

// The sizes the kernel expects (a wrong one does not compile).
var (
	_ [0]byte = [unsafe.Sizeof(uringParams{}) - 120]byte{}
	_ [0]byte = [unsafe.Sizeof(uringSQE{}) - 64]byte{}
	_ [0]byte = [unsafe.Sizeof(uringCQE{}) - 16]byte{}
	_ [0]byte = [unsafe.Sizeof(uringBuf{}) - 16]byte{}
	_ [0]byte = [unsafe.Sizeof(uringBufReg{}) - 40]byte{}
)

// A ring's sizes: sends of one batch (at most 2×batchSize frames, and a
// flush when full) plus receives re-armed fit in the submission queue; the
// completion queue holds many batches of receives.
const (
	ringSQ      = 256
	ringCQ      = 4096
	ringBufs    = 256          // provided receive buffers (a power of two)
	ringBufSize = MaxFrame + 1 // a longer datagram is cut to it, seen, and dropped
)

// What a request's user_data says it is: the kind in the top byte, and for
// a receive its endpoint's slot.
const (
	udRecv   = 1 << 56
	udSend   = 2 << 56
	udWake   = 3 << 56
	udCancel = 4 << 56
	udKind   = 0xff << 56
)

// ringWorks says whether io_uring pollers can run here: a ring with the
// flags they use can be set up (Linux 6.1 or later, io_uring not disabled
// by sysctl or seccomp). Decided once.
var ringWorks = sync.OnceValue(func() bool {
	fd, _, err := setupRing()
	if err != nil {
		return false
	}
	_ = unix.Close(fd)
	return true
})

func setupRing() (int, *uringParams, error) {
	p := &uringParams{flags: uringSetupWanted, cqEntries: ringCQ}
	fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, ringSQ, uintptr(unsafe.Pointer(p)), 0)
	if e != 0 {
		return -1, nil, e
	}
	if p.features&uringFeaturesWanted != uringFeaturesWanted {
		_ = unix.Close(int(fd))
		return -1, nil, errors.New("io_uring lacks single mmap or no-drop")
	}
	return int(fd), p, nil
}

// ring is one io_uring instance and its memory, used by one thread.
type ring struct {
	fd              int
	rings, sqeMem   []byte
	sqHead, sqTail  *uint32 // the kernel's
	sqMask          uint32
	tail            uint32 // our submission tail, published at enter
	sqes            []uringSQE
	cqHead, cqTail  *uint32
	cqMask          uint32
	cqes            []uringCQE
	bufMem, bufRing []byte
	bufs            []uringBuf
	bufTail         uint16
	bufMask         uint16
	inFlightRecvs   int // receives armed: their buffers must outlive them
}

// open sets the ring up on the calling thread (its only issuer).
func (r *ring) open() (err error) {
	fd, p, err := setupRing()
	if err != nil {
		return err
	}
	r.fd = fd
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	size := max(int(p.sqOff.array)+int(p.sqEntries)*4, int(p.cqOff.cqes)+int(p.cqEntries)*int(unsafe.Sizeof(uringCQE{})))
	if r.rings, err = unix.Mmap(fd, uringOffSQRing, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		return err
	}
	if r.sqeMem, err = unix.Mmap(fd, uringOffSQEs, int(p.sqEntries)*int(unsafe.Sizeof(uringSQE{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		return err
	}
	at := func(off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&r.rings[off])) }
	r.sqHead, r.sqTail, r.sqMask = at(p.sqOff.head), at(p.sqOff.tail), *at(p.sqOff.ringMask)
	r.cqHead, r.cqTail, r.cqMask = at(p.cqOff.head), at(p.cqOff.tail), *at(p.cqOff.ringMask)
	r.tail = atomic.LoadUint32(r.sqTail)
	array := unsafe.Slice(at(p.sqOff.array), p.sqEntries)
	for i := range array {
		array[i] = uint32(i) // SQE i is slot i
	}
	r.sqes = unsafe.Slice((*uringSQE)(unsafe.Pointer(&r.sqeMem[0])), p.sqEntries)
	r.cqes = unsafe.Slice((*uringCQE)(unsafe.Pointer(&r.rings[p.cqOff.cqes])), p.cqEntries)

	// The receive buffers, and the ring that lends them to the kernel.
	anon := unix.MAP_PRIVATE | unix.MAP_ANONYMOUS
	if r.bufMem, err = unix.Mmap(-1, 0, ringBufs*ringBufSize, unix.PROT_READ|unix.PROT_WRITE, anon); err != nil {
		return err
	}
	if r.bufRing, err = unix.Mmap(-1, 0, ringBufs*int(unsafe.Sizeof(uringBuf{})), unix.PROT_READ|unix.PROT_WRITE, anon); err != nil {
		return err
	}
	r.bufs = unsafe.Slice((*uringBuf)(unsafe.Pointer(&r.bufRing[0])), ringBufs)
	reg := uringBufReg{ringAddr: uint64(uintptr(unsafe.Pointer(&r.bufRing[0]))), ringEntries: ringBufs}
	if _, _, e := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(fd), uringRegisterPbufRing, uintptr(unsafe.Pointer(&reg)), 1, 0, 0); e != 0 {
		return e
	}
	r.bufMask = ringBufs - 1
	for i := range ringBufs {
		r.lend(uint16(i))
	}
	return nil
}

// close ends the ring. The kernel may still hold a receive (it should not:
// the caller cancels them first); then the buffers are left mapped.
func (r *ring) close() {
	if r.fd >= 0 {
		_ = unix.Close(r.fd)
		r.fd = -1
	}
	for _, m := range []*[]byte{&r.rings, &r.sqeMem, &r.bufRing} {
		if *m != nil {
			_ = unix.Munmap(*m)
			*m = nil
		}
	}
	if r.bufMem != nil && r.inFlightRecvs == 0 {
		_ = unix.Munmap(r.bufMem)
		r.bufMem = nil
	}
}

// buf is receive buffer bid.
func (r *ring) buf(bid uint16) []byte {
	o := int(bid) * ringBufSize
	return r.bufMem[o : o+ringBufSize : o+ringBufSize]
}

// lend gives buffer bid back to the kernel.
func (r *ring) lend(bid uint16) {
	b := &r.bufs[r.bufTail&r.bufMask]
	b.addr = uint64(uintptr(unsafe.Pointer(&r.bufMem[int(bid)*ringBufSize])))
	b.len = ringBufSize
	b.bid = bid
	r.bufTail++
	// The tail shares a 32-bit word with entry 0's bid: publish both (ours
	// to write) with one atomic store, ordered after the entry's writes.
	word := [2]uint16{r.bufs[0].bid, r.bufTail}
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&r.bufs[0].bid)), *(*uint32)(unsafe.Pointer(&word)))
}

// sqe returns the next free submission entry, zeroed; nil when the queue
// is full even after submitting what it holds.
func (r *ring) sqe() *uringSQE {
	if r.tail-atomic.LoadUint32(r.sqHead) > r.sqMask {
		r.enter(0, 0)
		if r.tail-atomic.LoadUint32(r.sqHead) > r.sqMask {
			return nil
		}
	}
	e := &r.sqes[r.tail&r.sqMask]
	*e = uringSQE{}
	r.tail++
	return e
}

// enter submits what is queued and, with uringEnterGetEvents, waits for
// min completions.
func (r *ring) enter(min, flags uint32) {
	atomic.StoreUint32(r.sqTail, r.tail)
	n := r.tail - atomic.LoadUint32(r.sqHead)
	for {
		_, _, e := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(n), uintptr(min), uintptr(flags), 0, 0)
		if e != unix.EINTR {
			return
		}
		n = r.tail - atomic.LoadUint32(r.sqHead)
	}
}

// unsentToNop turns the sends the kernel has not taken from the queue yet
// (it took fewer than offered, which it does only when short of memory)
// into no-ops, which drops their frames: their buffers are about to be
// reused. Other requests stay queued.
func (r *ring) unsentToNop() {
	for i := atomic.LoadUint32(r.sqHead); i != r.tail; i++ {
		if e := &r.sqes[i&r.sqMask]; e.opcode == uringOpSend {
			*e = uringSQE{flags: uringSQECQESkipSuccess, userData: udSend} // IORING_OP_NOP is 0
		}
	}
}

// ringer is an io_uring poller's thread state (decision 0052). Its fields
// but the inbox are the thread's own.
type ringer struct {
	p     *poller
	r     ring
	evfd  int
	evbuf [8]byte

	mu    sync.Mutex
	inbox []ringMsg

	files  map[*udpPort]*ringFile // the sockets it holds
	slots  []*ringFile            // slot -> the endpoint it reads; nil: free
	rearm  []*ringFile            // receives to arm again
	cancel []*ringFile            // receives to cancel (no room in the queue before)
	waking bool                   // the eventfd is polled
	stop   bool
}

// ringFile is a socket an io_uring poller holds: its duplicate descriptor,
// and whether the poller reads it.
type ringFile struct {
	u      *udpPort
	fd     int
	slot   int        // its receive's slot; -1 when not read
	armed  bool       // a receive is in the kernel
	dead   bool       // its receive failed for good
	forget chan error // answered once its receive has ended
}

// ringMsg is a request to an io_uring poller's thread.
type ringMsg struct {
	op   int
	u    *udpPort
	done chan error // answered once done; nil for ringStop
}

const (
	ringAdd    = iota // read u
	ringForget        // let go of u: stop reading it, close the duplicate
	ringStop          // end: no endpoint left
)

// newRingPoller starts an io_uring poller and its thread.
func newRingPoller(f *Fabric) (*poller, error) {
	evfd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil, err
	}
	p := &poller{f: f, gone: make(chan struct{})}
	rp := &ringer{p: p, evfd: evfd, files: map[*udpPort]*ringFile{}}
	p.ring = rp
	ready := make(chan error, 1)
	go rp.run(ready)
	if err := <-ready; err != nil {
		<-p.gone
		return nil, err
	}
	return p, nil
}

// post hands m to the thread.
func (rp *ringer) post(m ringMsg) {
	rp.mu.Lock()
	rp.inbox = append(rp.inbox, m)
	rp.mu.Unlock()
	one := [8]byte{1}
	_, _ = unix.Write(rp.evfd, one[:])
}

// call hands m to the thread and waits for its answer.
func (rp *ringer) call(m ringMsg) error {
	m.done = make(chan error, 1)
	rp.post(m)
	select {
	case err := <-m.done:
		return err
	case <-rp.p.gone:
		return errors.New("the poller has ended")
	}
}

// run is the thread: it submits what it queued and waits for completions
// in one io_uring_enter, then carries the frames received and queues their
// sends.
func (rp *ringer) run(ready chan<- error) {
	p := rp.p
	defer close(p.gone)
	defer unix.Close(rp.evfd)
	runtime.LockOSThread() // for good: the ring's only issuer is this thread, which ends with it
	rp.r.fd = -1
	if err := rp.r.open(); err != nil {
		ready <- err
		return
	}
	defer rp.r.close()
	rp.armWake()
	ready <- nil
	w := p.f.workers.Get().(*worker)
	w.ring = rp
	defer func() {
		w.resetTx()
		w.ring = nil
		p.f.workers.Put(w)
	}()
	yielded := time.Now()
	for {
		rp.r.enter(1, uringEnterGetEvents)
		rp.r.unsentToNop()
		w.resetTx() // every send queued has been made, or failed
		w.now = time.Now()
		if w.now.Sub(yielded) > yieldEvery {
			runtime.Gosched() // locked: back on this thread (see yieldEvery)
			yielded = w.now
		}
		head, tail := atomic.LoadUint32(rp.r.cqHead), atomic.LoadUint32(rp.r.cqTail)
		for ; head != tail; head++ {
			c := rp.r.cqes[head&rp.r.cqMask]
			switch c.userData & udKind {
			case udRecv:
				rp.received(w, &c)
			case udWake:
				rp.woken()
			case udSend: // a frame refused (its peer is not up) or its socket full: dropped, as a network drops it
				if c.userData != udSend { // an IOU bridge's: it may have lost its process
					netioRefused(int(uint32(c.userData)), c.res)
				}
			}
			// udCancel: nothing.
		}
		atomic.StoreUint32(rp.r.cqHead, head)
		if rp.stop {
			rp.end()
			return
		}
		rp.armReceives()
		rp.queueSends(w)
	}
}

// received carries the datagram of a receive's completion and lends its
// buffer back; a receive that ended is armed again.
func (rp *ringer) received(w *worker, c *uringCQE) {
	rf := rp.slots[int(uint32(c.userData))]
	if c.flags&uringCQEFBuffer != 0 {
		bid := uint16(c.flags >> uringCQEBufferShift)
		if n := int(c.res); n > 0 && rf != nil && rf.forget == nil {
			w.take(rf.u, rp.r.buf(bid)[:n])
		}
		rp.r.lend(bid)
	}
	if c.flags&uringCQEFMore != 0 || rf == nil {
		return
	}
	rf.armed = false
	rp.r.inFlightRecvs--
	switch {
	case rf.forget != nil:
		rp.release(rf)
	case c.res < 0 && sockBroken(unix.Errno(-c.res)):
		rf.dead = true // never armed again: it fails, and is told, once
		rp.p.f.endFailed(rf.u, unix.Errno(-c.res))
	default: // buffers ran out, a peer refused a frame, a datagram of 0 bytes…
		rp.rearm = append(rp.rearm, rf)
	}
}

// woken reads the eventfd and the inbox, and polls the eventfd again.
func (rp *ringer) woken() {
	_, _ = unix.Read(rp.evfd, rp.evbuf[:])
	rp.mu.Lock()
	msgs := rp.inbox
	rp.inbox = nil
	rp.mu.Unlock()
	for _, m := range msgs {
		switch m.op {
		case ringAdd:
			m.done <- rp.add(m.u)
		case ringForget:
			rp.forget(m.u, m.done)
		case ringStop:
			rp.stop = true
		}
	}
	rp.waking = false
}

// armWake polls the eventfd (once: the poll ends with its completion).
func (rp *ringer) armWake() {
	if rp.waking {
		return
	}
	if e := rp.r.sqe(); e != nil {
		e.opcode, e.fd, e.opFlags, e.userData = uringOpPollAdd, int32(rp.evfd), uint32(uringPollIn), udWake
		rp.waking = true
	}
}

// file returns the poller's hold on u's socket, taking one (a duplicate
// descriptor) the first time; nil once u is closing.
func (rp *ringer) file(u *udpPort) *ringFile {
	if rf := rp.files[u]; rf != nil {
		return rf
	}
	if u.closing.Load() { // set before the poller is asked to forget u
		return nil
	}
	fd := -1
	_ = u.sock.control(func(s uintptr) { fd, _ = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) })
	if fd < 0 {
		return nil
	}
	rf := &ringFile{u: u, fd: fd, slot: -1}
	rp.files[u] = rf
	return rf
}

// add starts reading u.
func (rp *ringer) add(u *udpPort) error {
	rf := rp.file(u)
	if rf == nil {
		return errors.New("its socket is closed")
	}
	if rf.slot >= 0 {
		return nil
	}
	rf.slot = len(rp.slots)
	for i, s := range rp.slots {
		if s == nil {
			rf.slot = i
			break
		}
	}
	if rf.slot == len(rp.slots) {
		rp.slots = append(rp.slots, rf)
	} else {
		rp.slots[rf.slot] = rf
	}
	rp.rearm = append(rp.rearm, rf)
	return nil
}

// forget lets go of u: its receive is cancelled and done answered when it
// has ended; then the duplicate is closed.
func (rp *ringer) forget(u *udpPort, done chan error) {
	rf := rp.files[u]
	if rf == nil {
		done <- nil
		return
	}
	rf.forget = done
	if !rf.armed {
		rp.release(rf)
		return
	}
	rp.cancel = append(rp.cancel, rf)
}

// release closes rf's duplicate, frees its slot and answers its forget.
func (rp *ringer) release(rf *ringFile) {
	_ = unix.Close(rf.fd)
	delete(rp.files, rf.u)
	if rf.slot >= 0 {
		rp.slots[rf.slot] = nil
	}
	if rf.forget != nil {
		rf.forget <- nil
	}
}

// armReceives polls the eventfd again, cancels the receives of endpoints
// forgotten and arms a multishot receive on each endpoint that needs one.
func (rp *ringer) armReceives() {
	rp.armWake()
	cancel := rp.cancel[:0]
	for _, rf := range rp.cancel {
		if !rf.armed {
			continue // ended meanwhile: released
		}
		e := rp.r.sqe()
		if e == nil {
			cancel = append(cancel, rf)
			continue
		}
		e.opcode, e.flags, e.addr, e.userData = uringOpAsyncCancel, uringSQECQESkipSuccess, udRecv|uint64(rf.slot), udCancel
	}
	clear(rp.cancel[len(cancel):])
	rp.cancel = cancel
	keep := rp.rearm[:0]
	for _, rf := range rp.rearm {
		if rf.forget != nil || rf.dead || rf.armed || rp.files[rf.u] != rf {
			continue
		}
		e := rp.r.sqe()
		if e == nil {
			keep = append(keep, rf)
			continue
		}
		e.opcode, e.flags, e.ioprio, e.fd = uringOpRecv, uringSQEBufferSelect, uringRecvMultishot, int32(rf.fd)
		e.userData = udRecv | uint64(rf.slot) // buffer group 0
		rf.armed = true
		rp.r.inFlightRecvs++
	}
	clear(rp.rearm[len(keep):])
	rp.rearm = keep
}

// queueSends queues a send for each frame w holds, for the next enter.
// The frames stay in w until then.
func (rp *ringer) queueSends(w *worker) {
	for i := range w.txq {
		q := &w.txq[i]
		ud := uint64(udSend)
		if nc := q.u.sock.netio; nc != nil { // an IOU bridge: connected yet?
			if !nc.ready(q.u.sock) {
				continue // not yet: the frame is dropped
			}
			ud |= nc.id // a failed send names the bridge (netioRefused)
		}
		rf := rp.file(q.u)
		if rf == nil {
			continue // closing: the frame is dropped
		}
		e := rp.r.sqe()
		if e == nil {
			continue // the kernel took nothing from a full queue: dropped
		}
		e.opcode, e.flags, e.fd = uringOpSend, uringSQECQESkipSuccess, int32(rf.fd)
		e.addr, e.len = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(q.frame)))), uint32(len(q.frame))
		e.opFlags, e.userData = unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL, ud
	}
}

// flushNow sends what w holds at once (w's room is full mid-batch).
func (rp *ringer) flushNow(w *worker) {
	rp.queueSends(w)
	rp.r.enter(0, 0)
	rp.r.unsentToNop()
	w.resetTx()
}

// end lets go of every socket still held (those it sent to) and of the
// ring: the thread ends.
func (rp *ringer) end() {
	for _, rf := range rp.files {
		if rf.armed { // not expected: every endpoint it read was forgotten
			continue
		}
		_ = unix.Close(rf.fd)
	}
	rp.files = nil
}

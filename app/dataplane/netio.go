package dataplane

import (
	"encoding/binary"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"nodedesk/app"
)

// IOU nodes (GNS3's "IOL bridge", inside the fabric). An IOU process
// exchanges its frames over unix datagram sockets in app.NetIODir(): it
// binds <id>, its application id, and its NETMAP sends every bay/unit to
// the same bay/unit of the bridge <id+512>. The fabric plays that bridge
// itself, as uBridge does for GNS3, so no helper process or root is
// needed: one socket per running IOU node, bound at <id+512> under the
// same fcntl lock uBridge takes on <id+512>.lck (so a uBridge or another
// nodedesk on the machine and this one never share an id), connected to
// the process's socket.
//
// Every port of the node is a *udpPort of its own in topology.udp, so
// links, filters, suspend and capture treat it as any other port; they
// share the bridge's socket, which the pollers read through the bridge's
// head (a udpPort that is in no topology). A frame for a port is queued
// behind that port's 8-byte header and written on the head's socket; a
// datagram read on the head is demultiplexed by its port byte (take,
// demux).
//
// fcntl locks are the process's: closing any descriptor of a lock file in
// this process releases its lock. Nothing else in nodedesk may open the
// .lck of a bridge the fabric holds (app/iou's check of an id opens it
// only for ids whose node is not running).

// netioHeader is the length of the header IOU puts before each frame.
const netioHeader = 8

// netioBind marks a udpPeer as an IOU bridge's: local is the bridge id,
// remote the path of the IOU process's socket.
const netioBind = "netio"

// netioEndpoints lists the ports of a running IOU node, application id id:
// all of them talk through the one bridge, so they share one peer, which
// changes with the application id (putNode then reopens them all). A port
// IOU cannot name (bay or unit above 15) is left out.
func netioEndpoints(n *app.Node, id int) map[end]udpPeer {
	p := udpPeer{local: id + app.NetIOBridgeOffset, bind: netioBind,
		remote: filepath.Join(app.NetIODir(), strconv.Itoa(id))}
	want := map[end]udpPeer{}
	for _, port := range n.Ports() {
		if port.AdapterNumber >= 0 && port.AdapterNumber < 16 && port.PortNumber >= 0 && port.PortNumber < 16 {
			want[end{n.ID, port.AdapterNumber, port.PortNumber}] = p
		}
	}
	return want
}

// portByte is how IOU names bay/unit of at in its header.
func portByte(at end) byte { return byte(at.adapter | at.port<<4) }

// netioBridge is one IOU node's bridge: its socket, its lock, and its
// ports by port byte. It opens with its first port and closes with its
// last (openNetIO, leave), under its fabric's mu.
type netioBridge struct {
	f    *Fabric
	node string  // the node it carries
	peer udpPeer // as netioEndpoints made it
	id   int     // the bridge id: application id + 512
	// head is the socket's own udpPort: what the pollers read and hold
	// (its at names no port), and what its ports' frames are queued for.
	head *udpPort
	// ports maps a port byte to its port, for the readers: a port joins or
	// leaves without the readers taking a lock.
	ports [256]atomic.Pointer[udpPort]
	refs  int // ports joined; under f.mu
	os    bridgeOS
}

// netioBridges are the bridges of every Fabric of this process, by bridge
// id: fcntl locks never conflict within one process, so two Fabrics (in
// tests) would both get the lock on one id; this is what keeps them apart.
var netioBridges struct {
	sync.Mutex
	m map[int]*netioBridge
}

// bridgeFor returns the open bridge of node's peer p, opening it for its
// first port. It runs under f.mu.
func (f *Fabric) bridgeFor(node string, p udpPeer) (*netioBridge, error) {
	netioBridges.Lock()
	if b := netioBridges.m[p.local]; b != nil {
		netioBridges.Unlock()
		if b.f == f && b.node == node && b.peer == p {
			return b, nil
		}
		return nil, app.Errorf(app.ECONFLICT, "netio bridge ID %d is already carried by another node in this process", p.local)
	}
	b := &netioBridge{f: f, node: node, peer: p, id: p.local}
	if netioBridges.m == nil {
		netioBridges.m = map[int]*netioBridge{}
	}
	netioBridges.m[b.id] = b // taken before it opens: no other Fabric can start on it meanwhile
	netioBridges.Unlock()
	if err := b.open(); err != nil {
		b.unregister()
		return nil, err
	}
	return b, nil
}

// unregister frees b's id in the process. It never runs under
// netioBridges' lock while a poller is waited for: an io_uring poller takes
// that lock (netioRefused).
func (b *netioBridge) unregister() {
	netioBridges.Lock()
	defer netioBridges.Unlock()
	if netioBridges.m[b.id] == b {
		delete(netioBridges.m, b.id)
	}
}

// lookupBridge is the bridge that holds id in this process, if any.
func lookupBridge(id int) *netioBridge {
	netioBridges.Lock()
	defer netioBridges.Unlock()
	return netioBridges.m[id]
}

// openNetIO opens port at of an IOU node whose bridge is p: the bridge
// opens with its first port. It runs under f.mu.
func (f *Fabric) openNetIO(at end, p udpPeer) (*udpPort, error) {
	b, err := f.bridgeFor(at.node, p)
	if err != nil {
		return nil, err
	}
	u := &udpPort{at: at, sock: b.head.sock, peer: p, bridge: b, hdr: make([]byte, netioHeader)}
	binary.BigEndian.PutUint16(u.hdr[0:], uint16(b.id-app.NetIOBridgeOffset)) // the IOU process
	binary.BigEndian.PutUint16(u.hdr[2:], uint16(b.id))
	u.hdr[4], u.hdr[5], u.hdr[6], u.hdr[7] = portByte(at), portByte(at), 1, 0 // type 1: data, channel 0
	b.refs++
	b.ports[portByte(at)].Store(u)
	return u, nil
}

// leave takes port u from b; the last port to leave closes b. It runs
// under f.mu.
func (b *netioBridge) leave(u *udpPort) {
	b.ports[portByte(u.at)].CompareAndSwap(u, nil)
	if b.refs--; b.refs > 0 {
		return
	}
	b.head.stopReading()
	b.head.sock.close()
	b.release() // the files and the lock, once the socket is closed
	b.unregister()
}

// demux is the port and frame of a datagram read on b: nil for a datagram
// that is not a frame (too short, not of type 1), one possibly cut to the
// reader's buffer (longer than MaxFrame), or one for a port b does not
// carry. The port is the destination port byte: the bridge's port the
// process sent to, which NETMAP pairs with the same bay/unit of its own.
// Neither id is checked: once connected, the kernel lets only the process
// send to the bridge.
func (b *netioBridge) demux(dgram []byte) (*udpPort, []byte) {
	if len(dgram) <= netioHeader || len(dgram) > MaxFrame || dgram[6] != 1 {
		return nil, nil
	}
	return b.ports[dgram[4]].Load(), dgram[netioHeader:]
}

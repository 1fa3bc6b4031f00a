package dataplane

import (
	"encoding/binary"
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"nodedesk/app"
)

// hostReadSize is a host port's read buffer: room for a frame the kernel
// coalesced (GRO/LRO) up to 64 KiB, which is then dropped, rather than
// cut to a wrong frame.
const hostReadSize = 64<<10 + 64

// openHost opens spec's interface (ethernet) or TAP device (tap),
// non-blocking: reads and writes wait in the netpoller.
func openHost(spec hostIf) (*os.File, error) {
	var (
		fd  int
		err error
	)
	switch spec.kind {
	case "ethernet":
		fd, err = openPacket(spec.iface)
	case "tap":
		fd, err = openTAP(spec.iface)
	default:
		return nil, app.Errorf(app.EINVALID, "port type %q is not a host port", spec.kind)
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), spec.kind+":"+spec.iface), nil
}

// openPacket opens an AF_PACKET socket on interface name: every frame the
// interface receives (promiscuous), none the host sends (its own traffic
// would teach the lab's switches the host's MAC on this port), with the
// VLAN tag the kernel strips (rx-vlan offload) given back as auxdata.
func openPacket(name string) (int, error) {
	ifi, err := net.InterfaceByName(name)
	if err != nil {
		return -1, err
	}
	// Protocol 0 until bound: no frame of another interface is queued.
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	err = errors.Join(
		unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifi.Index}),
		unix.SetsockoptPacketMreq(fd, unix.SOL_PACKET, unix.PACKET_ADD_MEMBERSHIP,
			&unix.PacketMreq{Ifindex: int32(ifi.Index), Type: unix.PACKET_MR_PROMISC}),
		unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_AUXDATA, 1),
		unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_IGNORE_OUTGOING, 1), // Linux 4.20
	)
	if err != nil {
		_ = unix.Close(fd)
		return -1, err
	}
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 1<<20)
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 1<<20)
	return fd, nil
}

// openTAP attaches to TAP device name, creating it when it does not exist
// (it then lives as long as the port is open, and is brought up: the lab
// side of it is up as soon as it is linked; its addresses are the user's).
func openTAP(name string) (int, error) {
	_, err := net.InterfaceByName(name)
	created := err != nil
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	ifr, err := unix.NewIfreq(name)
	if err == nil {
		ifr.SetUint16(unix.IFF_TAP | unix.IFF_NO_PI)
		err = unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr)
	}
	if err == nil && created {
		err = setUp(name)
	}
	if err != nil {
		_ = unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// setUp brings interface name up.
func setUp(name string) error {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr)
}

func (r *rawWrite) do(fd uintptr) bool {
	for {
		if _, err := unix.Write(int(fd), r.frame); err != unix.EINTR {
			return true // done, or dropped: never wait
		}
	}
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// hostReader reads one host port's frames, without allocating: a packet
// socket's with recvmsg and its auxdata (to put back a stripped VLAN tag),
// a TAP's with read.
type hostReader struct {
	rc     syscall.RawConn
	packet bool
	buf    []byte // 4 bytes of room for a tag, then the frame
	oob    []byte
	iov    unix.Iovec
	msg    unix.Msghdr
	n      int
	errno  syscall.Errno
	fn     func(fd uintptr) bool
}

// newHostReader makes the reader of a packet socket (packet) or a TAP;
// use gives it the socket.
func newHostReader(packet bool) *hostReader {
	r := &hostReader{packet: packet, buf: make([]byte, 4+hostReadSize)}
	r.iov.Base = &r.buf[4]
	r.iov.SetLen(hostReadSize)
	r.msg.Iov = &r.iov
	r.msg.SetIovlen(1)
	r.oob = make([]byte, unix.CmsgSpace(int(unsafe.Sizeof(unix.TpacketAuxdata{}))))
	r.msg.Control = &r.oob[0]
	r.fn = r.do
	return r
}

// use makes r read from rc.
func (r *hostReader) use(rc syscall.RawConn) { r.rc = rc }

// read waits for the next frame; it is valid until the next read.
func (r *hostReader) read() ([]byte, error) {
	r.n, r.errno = 0, 0
	if err := r.rc.Read(r.fn); err != nil {
		return nil, err
	}
	if r.errno != 0 {
		return nil, r.errno
	}
	frame := r.buf[4 : 4+r.n]
	if r.packet {
		frame = r.withTag(frame)
	}
	return frame, nil
}

func (r *hostReader) do(fd uintptr) bool {
	for {
		var n uintptr
		var e syscall.Errno
		if r.packet {
			r.msg.SetControllen(len(r.oob))
			r.msg.Flags = 0
			n, _, e = unix.Syscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&r.msg)), 0)
		} else {
			n, _, e = unix.Syscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&r.buf[4])), hostReadSize)
		}
		switch e {
		case 0:
			r.n = int(n)
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false
		default:
			r.errno = e
		}
		return true
	}
}

// withTag puts back the 802.1Q tag the kernel took off frame (which starts
// 4 bytes into buf), as its auxdata tells (libpcap's and ubridge's rule).
func (r *hostReader) withTag(frame []byte) []byte {
	if r.msg.Controllen < uint64(unix.CmsgLen(0)) || len(frame) < 12 {
		return frame
	}
	h := (*unix.Cmsghdr)(unsafe.Pointer(&r.oob[0]))
	if h.Level != unix.SOL_PACKET || h.Type != unix.PACKET_AUXDATA || h.Len < uint64(unix.CmsgLen(int(unsafe.Sizeof(unix.TpacketAuxdata{})))) {
		return frame
	}
	aux := (*unix.TpacketAuxdata)(unsafe.Pointer(&r.oob[unix.CmsgLen(0)]))
	if aux.Vlan_tci == 0 && aux.Status&unix.TP_STATUS_VLAN_VALID == 0 {
		return frame
	}
	tpid := uint16(unix.ETH_P_8021Q)
	if aux.Status&unix.TP_STATUS_VLAN_TPID_VALID != 0 {
		tpid = aux.Vlan_tpid
	}
	copy(r.buf[0:12], frame[:12]) // the addresses move 4 bytes back
	binary.BigEndian.PutUint16(r.buf[12:], tpid)
	binary.BigEndian.PutUint16(r.buf[14:], aux.Vlan_tci)
	return r.buf[:len(frame)+4]
}

// checkHostPort is CheckHostPort: it tries what opening p takes, without
// keeping anything open.
func checkHostPort(p app.CloudPort) error {
	switch p.Type {
	case "ethernet":
		if _, err := net.InterfaceByName(p.Interface); err != nil {
			return app.Errorf(app.ECONFLICT, "Cloud port %s bridges host interface %q, which this machine does not have; its interfaces: %s",
				p.Name, p.Interface, interfaceNames())
		}
		fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			if denied(err) {
				return privilegeError(p, "CAP_NET_RAW to bridge host interface "+p.Interface)
			}
			return app.Errorf(app.ECONFLICT, "Cloud port %s cannot bridge host interface %s: %v", p.Name, p.Interface, err)
		}
		_ = unix.Close(fd)
		return nil
	case "tap":
		if _, err := unix.NewIfreq(p.Interface); err != nil || p.Interface == "" {
			return app.Errorf(app.ECONFLICT, "Cloud port %s: %q is not a TAP device name (1 to 15 characters)", p.Name, p.Interface)
		}
		fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			if denied(err) {
				return app.Errorf(app.ECONFLICT, "Cloud port %s cannot open /dev/net/tun (%v); nodedesk needs read and write access to it (Debian's default is mode 0666: sudo chmod 0666 /dev/net/tun)", p.Name, err)
			}
			return app.Errorf(app.ECONFLICT, "Cloud port %s cannot open /dev/net/tun: %v", p.Name, err)
		}
		_ = unix.Close(fd)
		if _, err := net.InterfaceByName(p.Interface); err == nil {
			return nil // attaching to an existing TAP: its owner may be us, the open tells
		}
		if !hasCap(unix.CAP_NET_ADMIN) {
			return privilegeError(p, "CAP_NET_ADMIN to create TAP device "+p.Interface)
		}
		return nil
	}
	return nil
}

func denied(err error) bool { return errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) }

// hasCap reports whether capability c is in this process's effective set.
func hasCap(c int) bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[c/32].Effective&(1<<(c%32)) != 0
}

// interfaceNames lists this machine's interfaces, for a message.
func interfaceNames() string {
	ifs, err := net.Interfaces()
	if err != nil || len(ifs) == 0 {
		return "none found"
	}
	names := make([]string, len(ifs))
	for i, x := range ifs {
		names[i] = x.Name
	}
	return strings.Join(names, ", ")
}

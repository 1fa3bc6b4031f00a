package kit

import (
	"encoding/binary"
	"net"
)

// IPv4 frames a test writes itself: ARP and ICMP echo, to talk to a real
// guest's network stack (a QEMU guest's kernel) over a cloud's UDP
// tunnel, with no host, namespace or privilege.

// Ethertypes of the frames below.
const (
	EtherIPv4 = 0x0800
	EtherARP  = 0x0806
)

// Checksum is the Internet checksum (RFC 1071) of b.
func Checksum(b []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(b); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		sum += uint32(b[len(b)-1]) << 8
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// ethHeader is an Ethernet header from src to dst of ethertype typ.
func ethHeader(dst, src net.HardwareAddr, typ uint16) []byte {
	f := make([]byte, 14, 64)
	copy(f, dst)
	copy(f[6:], src)
	binary.BigEndian.PutUint16(f[12:], typ)
	return f
}

// ARP is an ARP frame (op 1 request, 2 reply) from sha/spa about tha/tpa,
// sent to dst (broadcast for a request).
func ARP(op uint16, dst, sha net.HardwareAddr, spa net.IP, tha net.HardwareAddr, tpa net.IP) []byte {
	f := ethHeader(dst, sha, EtherARP)
	f = append(f, 0, 1, 8, 0, 6, 4) // Ethernet, IPv4, address lengths
	f = binary.BigEndian.AppendUint16(f, op)
	f = append(f, sha...)
	f = append(f, spa.To4()...)
	if tha == nil {
		tha = make(net.HardwareAddr, 6)
	}
	f = append(f, tha...)
	f = append(f, tpa.To4()...)
	for len(f) < 60 {
		f = append(f, 0)
	}
	return f
}

// ARPRequestFor reports whether frame is an ARP request asking for ip,
// and who asks (its hardware and protocol addresses).
func ARPRequestFor(frame []byte, ip net.IP) (sha net.HardwareAddr, spa net.IP, ok bool) {
	if len(frame) < 42 || binary.BigEndian.Uint16(frame[12:]) != EtherARP ||
		binary.BigEndian.Uint16(frame[20:]) != 1 || !net.IP(frame[38:42]).Equal(ip) {
		return nil, nil, false
	}
	return net.HardwareAddr(frame[22:28]), net.IP(frame[28:32]), true
}

// ICMPEcho is an ICMP echo request (typ 8) or reply (typ 0) from src/srcIP
// to dst/dstIP with identifier id and sequence number seq, padded with
// data to size bytes of Ethernet frame (at least 42, without the FCS; a
// ping's default is 98).
func ICMPEcho(typ byte, dst, src net.HardwareAddr, srcIP, dstIP net.IP, id, seq uint16, size int) []byte {
	size = max(size, 42)
	f := ethHeader(dst, src, EtherIPv4)
	f = append(f, make([]byte, size-14)...)
	ip := f[14:34]
	ip[0], ip[8], ip[9] = 0x45, 64, 1 // IPv4, 20-byte header; TTL; ICMP
	binary.BigEndian.PutUint16(ip[2:], uint16(size-14))
	copy(ip[12:], srcIP.To4())
	copy(ip[16:], dstIP.To4())
	binary.BigEndian.PutUint16(ip[10:], Checksum(ip))
	icmp := f[34:]
	icmp[0] = typ
	binary.BigEndian.PutUint16(icmp[4:], id)
	binary.BigEndian.PutUint16(icmp[6:], seq)
	for i := 8; i < len(icmp); i++ {
		icmp[i] = byte(i)
	}
	binary.BigEndian.PutUint16(icmp[2:], Checksum(icmp))
	return f
}

// SetICMPEchoSeq rewrites the identifier and sequence number of an
// ICMPEcho frame in place, its checksum with them.
func SetICMPEchoSeq(frame []byte, id, seq uint16) {
	icmp := frame[34:]
	binary.BigEndian.PutUint16(icmp[2:], 0)
	binary.BigEndian.PutUint16(icmp[4:], id)
	binary.BigEndian.PutUint16(icmp[6:], seq)
	binary.BigEndian.PutUint16(icmp[2:], Checksum(icmp))
}

// ICMPEchoReplyFrom reports whether frame is an ICMP echo reply from ip,
// and its identifier and sequence number.
func ICMPEchoReplyFrom(frame []byte, ip net.IP) (id, seq uint16, ok bool) {
	if len(frame) < 42 || binary.BigEndian.Uint16(frame[12:]) != EtherIPv4 || frame[14]>>4 != 4 ||
		frame[23] != 1 || !net.IP(frame[26:30]).Equal(ip) {
		return 0, 0, false
	}
	icmp := frame[14+int(frame[14]&0x0f)*4:]
	if len(icmp) < 8 || icmp[0] != 0 {
		return 0, 0, false
	}
	return binary.BigEndian.Uint16(icmp[4:]), binary.BigEndian.Uint16(icmp[6:]), true
}

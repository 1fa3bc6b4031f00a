package kit

import (
	"encoding/binary"
	"net"
	"testing"
)

// An echo request as ICMPEcho makes it is what a kernel accepts: valid
// IPv4 and ICMP checksums, the length it says, the addresses given; its
// reply (same identifier and sequence number, type 0) is recognised.
func TestICMPEcho(t *testing.T) {
	src, dst := net.IPv4(10, 0, 0, 1), net.IPv4(10, 0, 0, 2)
	f := ICMPEcho(8, MACB, MACA, src, dst, 7, 1, 98)
	if len(f) != 98 || binary.BigEndian.Uint16(f[12:]) != EtherIPv4 {
		t.Fatalf("frame of %d bytes, ethertype %#x", len(f), binary.BigEndian.Uint16(f[12:]))
	}
	if Checksum(f[14:34]) != 0 || Checksum(f[34:]) != 0 {
		t.Fatal("a checksum does not verify")
	}
	if got := binary.BigEndian.Uint16(f[16:]); got != 84 {
		t.Fatalf("IPv4 total length %d, want 84", got)
	}
	SetICMPEchoSeq(f, 9, 300)
	if Checksum(f[34:]) != 0 {
		t.Fatal("the ICMP checksum does not verify after SetICMPEchoSeq")
	}
	if _, _, ok := ICMPEchoReplyFrom(f, src); ok {
		t.Fatal("a request was taken for a reply")
	}
	r := ICMPEcho(0, MACA, MACB, dst, src, 9, 300, 98)
	if id, seq, ok := ICMPEchoReplyFrom(r, dst); !ok || id != 9 || seq != 300 {
		t.Fatalf("reply: id %d seq %d ok %v", id, seq, ok)
	}
	if _, _, ok := ICMPEchoReplyFrom(r, src); ok {
		t.Fatal("a reply from another address was taken")
	}
}

// An ARP request made by ARP is recognised as asking for its target, by
// its sender.
func TestARP(t *testing.T) {
	spa, tpa := net.IPv4(10, 0, 0, 2), net.IPv4(10, 0, 0, 1)
	f := ARP(1, Broadcast, MACB, spa, nil, tpa)
	if len(f) != 60 {
		t.Fatalf("ARP frame of %d bytes, want 60 (padded)", len(f))
	}
	sha, who, ok := ARPRequestFor(f, tpa)
	if !ok || sha.String() != MACB.String() || !who.Equal(spa) {
		t.Fatalf("ARPRequestFor: %v %v %v", sha, who, ok)
	}
	if _, _, ok := ARPRequestFor(f, spa); ok {
		t.Fatal("a request for another address was taken")
	}
	if _, _, ok := ARPRequestFor(ARP(2, MACB, MACA, tpa, MACB, spa), spa); ok {
		t.Fatal("a reply was taken for a request")
	}
}

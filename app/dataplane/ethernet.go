package dataplane

import (
	"encoding/binary"
	"net"
	"strconv"
)

// Ethernet frame layout, as the switch and the hub read it.
const (
	macLen      = 6
	typeOffset  = 2 * macLen     // where the EtherType (or a tag's TPID) sits
	ethHdrLen   = typeOffset + 2 // destination, source, EtherType
	tagLen      = 4              // TPID and TCI of one VLAN tag
	taggedHdr   = ethHdrLen + tagLen
	vidMask     = 0x0fff         // VLAN ID bits of a TCI
	vidReserved = vidMask        // VID 4095, never carried
	tpidDot1Q   = uint16(0x8100) // the 802.1Q tag
	tpid88A8    = uint16(0x88a8) // 802.1ad service tag
	tpid9100    = uint16(0x9100) // pre-standard QinQ tag
	tpid9200    = uint16(0x9200) // pre-standard QinQ tag
)

// frameSizeOK reports whether a frame of n bytes is neither a runt nor a
// giant.
func frameSizeOK(n int) bool { return n >= ethHdrLen && n <= MaxFrame }

// isTPID reports whether t marks a VLAN tag: the four tag protocol
// identifiers dynamips recognises on trunks and Q-in-Q ports.
func isTPID(t uint16) bool {
	switch t {
	case tpidDot1Q, tpid88A8, tpid9100, tpid9200:
		return true
	}
	return false
}

// outerType is the EtherType, or the TPID of the outer tag, of frame.
func outerType(frame []byte) uint16 { return binary.BigEndian.Uint16(frame[typeOffset:]) }

// outerTCI is the TCI of frame's outer tag; frame holds one.
func outerTCI(frame []byte) uint16 { return binary.BigEndian.Uint16(frame[ethHdrLen:]) }

// macKey packs a VLAN and a MAC address into one integer ordered by VLAN,
// then by address.
func macKey(vlan uint16, mac []byte) uint64 {
	return uint64(vlan)<<48 | uint64(binary.BigEndian.Uint16(mac))<<32 | uint64(binary.BigEndian.Uint32(mac[2:]))
}

// keyMAC is the MAC address of a macKey.
func keyMAC(key uint64) net.HardwareAddr {
	mac := make(net.HardwareAddr, macLen)
	binary.BigEndian.PutUint16(mac, uint16(key>>32))
	binary.BigEndian.PutUint32(mac[2:], uint32(key))
	return mac
}

// isGroupMAC reports whether mac is a broadcast or multicast address.
func isGroupMAC(mac []byte) bool { return mac[0]&1 != 0 }

// pushTag returns frame with a tag (tpid, tci) inserted after the source
// address, built in out's arena, or nil when the arena is full.
func pushTag(out *Out, frame []byte, tpid, tci uint16) []byte {
	b := out.Alloc(len(frame) + tagLen)
	if b == nil {
		return nil
	}
	copy(b, frame[:typeOffset])
	putTag(b, tpid, tci)
	copy(b[taggedHdr-2:], frame[typeOffset:])
	return b
}

// popTag returns frame without its outer tag, built in out's arena, or nil
// when the arena is full. frame holds a whole tag.
func popTag(out *Out, frame []byte) []byte {
	b := out.Alloc(len(frame) - tagLen)
	if b == nil {
		return nil
	}
	copy(b, frame[:typeOffset])
	copy(b[typeOffset:], frame[typeOffset+tagLen:])
	return b
}

// retag returns frame with its outer tag replaced by (tpid, tci), built in
// out's arena, or nil when the arena is full. frame holds a whole tag.
func retag(out *Out, frame []byte, tpid, tci uint16) []byte {
	b := out.Alloc(len(frame))
	if b == nil {
		return nil
	}
	copy(b, frame)
	putTag(b, tpid, tci)
	return b
}

// putTag writes the tag (tpid, tci) at the EtherType position of b.
func putTag(b []byte, tpid, tci uint16) {
	binary.BigEndian.PutUint16(b[typeOffset:], tpid)
	binary.BigEndian.PutUint16(b[ethHdrLen:], tci)
}

// parseTPID reads a Q-in-Q port's ethertype ("0x88A8"); nil or "" means
// 0x8100. It reports false for anything but the four tag identifiers.
func parseTPID(s *string) (uint16, bool) {
	if s == nil || *s == "" {
		return tpidDot1Q, true
	}
	v, err := strconv.ParseUint(*s, 0, 16)
	if err != nil || !isTPID(uint16(v)) {
		return 0, false
	}
	return uint16(v), true
}

package iou

import (
	"encoding/binary"
	"fmt"
)

// IOU keeps its startup-config and private-config in the file
// nvram_<application id:05> in the node's folder. The layout below is the
// one GNS3 2.2 writes before a start (nvram_import) and reads back after a
// "write memory" (nvram_export); the image itself writes the same layout.
// All integers are big-endian, and only the first half of the file is the
// configuration area:
//
//	offset 0   startup header, 36 bytes: u16 0xABCD, u16 format (1 plain,
//	           2 compressed), u16 checksum, u16 IOS version (0x0F04 = 15.4),
//	           u32 start address, u32 end address, u32 length, 16 zero bytes
//	offset 36  the startup-config, then zero padding (see nvramPadding)
//	           private header, 16 bytes: u16 0xFEDC, u16 1, u32 start,
//	           u32 end, u32 length; then the private-config
//	...        zeros up to the first file sector (u16 0xDCBA ...) or up to
//	           2 KB before the end of the configuration area
//
// The checksum is the ones' complement of the ones' complement sum of the
// 16-bit words of the configuration area, taken with the checksum field 0.
const (
	nvramStartupMagic = 0xABCD
	nvramPrivateMagic = 0xFEDC
	nvramFileMagic    = 0xDCBA
	nvramBase         = 0x10000000 // the address IOU maps NVRAM at
	nvramDefaultIOS   = 0x0F04     // what GNS3 writes into a new file: IOS 15.4
	nvramStartupHdr   = 36
	nvramPrivateHdr   = 16
	nvramSector       = 1024
	nvramFileReserve  = 2 * 1024 // kept free for IOU's own files (vlan.dat...)

	// NVRAMMinKB and NVRAMMaxKB bound the NVRAM sizes GNS3 accepts (the -n
	// option of the image, the node's "nvram" setting, in KB).
	NVRAMMinKB = 8
	NVRAMMaxKB = 1024
)

// EncodeNVRAM returns a new nvram_<id> file of sizeKB KB that holds the
// startup-config and the private-config (nil or empty: an empty private
// section), byte for byte what GNS3 2.2's nvram_import writes when the node
// has no NVRAM file yet (or one of another size): IOS version field 0x0F04,
// the startup-config padded with '\n' to a multiple of 4 bytes, no file
// sectors. The error says when sizeKB is out of range or too small for the
// configs, and which size would do.
func EncodeNVRAM(sizeKB int, startup, private []byte) ([]byte, error) {
	if sizeKB < NVRAMMinKB || sizeKB > NVRAMMaxKB {
		return nil, fmt.Errorf("NVRAM size %d KB is out of range: IOU takes %d to %d KB", sizeKB, NVRAMMinKB, NVRAMMaxKB)
	}
	return importNVRAM(make([]byte, sizeKB*1024), startup, private)
}

// UpdateNVRAM writes the startup-config and private-config into an existing
// nvram_<id> file, as GNS3 2.2 does before each start when the file is
// already there with the node's NVRAM size: the file keeps its size, its
// IOS version field and the IOU file sectors (vlan.dat and the like) at the
// end of its configuration area; the old configs are replaced. When the
// file is missing, empty or of another size than the node's setting, GNS3
// starts over: call EncodeNVRAM instead. (GNS3 also leaves the file alone
// when the node has no startup-config at all.)
func UpdateNVRAM(old []byte, startup, private []byte) ([]byte, error) {
	n := len(old)
	if n < NVRAMMinKB*1024 || n > NVRAMMaxKB*1024 || n%1024 != 0 {
		return nil, fmt.Errorf("the existing NVRAM file is %d bytes, not a whole number of KB from %d to %d KB: "+
			"it is not an IOU NVRAM file; delete it (or use EncodeNVRAM) to start from a blank one", n, NVRAMMinKB, NVRAMMaxKB)
	}
	return importNVRAM(append([]byte(nil), old...), startup, private)
}

// DecodeNVRAM returns the startup-config and private-config held in an
// nvram_<id> file, as GNS3 2.2's nvram_export reads them after the image
// saved its config. startup is nil when the file holds none (empty, or
// never written by "write memory": no 0xABCD header), private is nil when
// there is no private section. The startup-config comes back exactly as
// stored, so one written by EncodeNVRAM keeps the '\n's that padded it. A
// compressed startup-config (format 2, "service compress-config" in IOS)
// is an error, as are lengths that run past the end of the file.
func DecodeNVRAM(b []byte) (startup, private []byte, err error) {
	if len(b) < 2 || be.Uint16(b) != nvramStartupMagic {
		return nil, nil, nil
	}
	if len(b) < nvramStartupHdr {
		return nil, nil, fmt.Errorf("NVRAM file is %d bytes, too short for its %d-byte startup-config header: the file is damaged", len(b), nvramStartupHdr)
	}
	format := be.Uint16(b[2:])
	length := int(be.Uint32(b[16:]))
	off := nvramStartupHdr
	if length > len(b)-off {
		return nil, nil, fmt.Errorf("NVRAM startup-config header says %d bytes, but only %d follow it: the file is damaged", length, len(b)-off)
	}
	if format == 2 {
		return nil, nil, fmt.Errorf("the startup-config in NVRAM is compressed (format 2), which nodedesk does not read: " +
			"on the node's console, enter \"configure terminal\", \"no service compress-config\", \"end\", then \"write memory\"")
	}
	startup = append([]byte{}, b[off:off+length]...)
	off = (off + length + 3) &^ 3
	// Images with an extra 4 bytes of padding: the private header is 4 bytes on.
	if len(b) >= off+8 && be.Uint16(b[off+4:]) == nvramPrivateMagic && be.Uint16(b[off+6:]) == 1 {
		off += 4
	}
	if len(b) >= off+nvramPrivateHdr && be.Uint16(b[off:]) == nvramPrivateMagic {
		plen := int(be.Uint32(b[off+12:]))
		off += nvramPrivateHdr
		if plen <= len(b)-off {
			private = append([]byte{}, b[off:off+plen]...)
		}
	}
	return startup, private, nil
}

var be = binary.BigEndian

// nvramPadding is how many zero bytes follow a section that ends at off:
// up to a multiple of 4, and 4 more (when any are needed) for IOS 15.0 and
// older or when the configuration area is 64 KB or more.
func nvramPadding(off int, ios uint16, area int) int {
	pad := (4 - off%4) % 4
	if pad != 0 && (ios <= 0x0F00 || area >= 64*1024) {
		pad += 4
	}
	return pad
}

// importNVRAM lays the configs into nv (a file of a valid size, a copy the
// caller owns) and returns it.
func importNVRAM(nv []byte, startup, private []byte) ([]byte, error) {
	area := len(nv) / 2

	// Where the current configs end, so that file sectors after them are found.
	used := 0
	known := false
	var ios uint16
	if be.Uint16(nv) == nvramStartupMagic {
		known = true
		ios = be.Uint16(nv[6:])
		used = nvramStartupHdr + int(be.Uint32(nv[16:]))
		used += nvramPadding(used, ios, area)
		if used < 0 || used+2 > len(nv) {
			return nil, fmt.Errorf("the existing NVRAM file's startup-config header gives a length of %d bytes, past the end of the file: "+
				"the file is not in IOU's format; delete it to start from a blank one", be.Uint32(nv[16:]))
		}
		if be.Uint16(nv[used:]) == nvramPrivateMagic {
			if used+nvramPrivateHdr > len(nv) {
				return nil, fmt.Errorf("the existing NVRAM file's private-config header is cut off: delete the file to start from a blank one")
			}
			used += nvramPrivateHdr + int(be.Uint32(nv[used+12:]))
		}
	}
	if used > area {
		return nil, fmt.Errorf("the existing NVRAM file's configs say they take %d bytes, more than its %d-byte configuration area: "+
			"the file is not in IOU's format; delete it to start from a blank one", used, area)
	}

	// The configs may use the area up to the first IOU file sector that
	// follows them, and never its last 2 KB.
	limit := area - nvramFileReserve
	var blank [nvramSector]byte
	for i := limit - nvramSector; i >= used; i -= nvramSector {
		sec := nv[i : i+nvramSector]
		if be.Uint16(sec) == nvramFileMagic && be.Uint16(sec[4:]) < 8 && be.Uint16(sec[6:]) <= 992 {
			limit = i
		} else if string(sec) != string(blank[:]) {
			break
		}
	}

	if !known {
		// A new file: the image's IOS version is unknown, so pad the
		// config itself with newlines rather than rely on zero padding
		// that another version would lay out differently.
		ios = nvramDefaultIOS
		if r := len(startup) % 4; r != 0 {
			startup = append(append([]byte{}, startup...), "\n\n\n"[:4-r]...)
		}
	}

	cfg := make([]byte, nvramStartupHdr, nvramStartupHdr+len(startup)+8+nvramPrivateHdr+len(private))
	be.PutUint16(cfg[0:], nvramStartupMagic)
	be.PutUint16(cfg[2:], 1)
	be.PutUint16(cfg[6:], ios)
	be.PutUint32(cfg[8:], nvramBase+nvramStartupHdr)
	be.PutUint32(cfg[12:], uint32(nvramBase+nvramStartupHdr+len(startup)))
	be.PutUint32(cfg[16:], uint32(len(startup)))
	cfg = append(cfg, startup...)
	cfg = append(cfg, make([]byte, nvramPadding(len(cfg), ios, area))...)
	p := len(cfg)
	cfg = append(cfg, make([]byte, nvramPrivateHdr)...)
	be.PutUint16(cfg[p:], nvramPrivateMagic)
	be.PutUint16(cfg[p+2:], 1)
	be.PutUint32(cfg[p+4:], uint32(nvramBase+p+nvramPrivateHdr))
	be.PutUint32(cfg[p+8:], uint32(nvramBase+p+nvramPrivateHdr+len(private)))
	be.PutUint32(cfg[p+12:], uint32(len(private)))
	cfg = append(cfg, private...)

	if len(cfg) > limit {
		return nil, tooBigError(len(nv), len(cfg), limit, startup, private)
	}
	copy(nv, cfg)
	clear(nv[len(cfg):limit])
	be.PutUint16(nv[4:], nvramChecksum(nv[:area]))
	return nv, nil
}

// nvramChecksum is the checksum of the configuration area, with its
// checksum field taken as 0.
func nvramChecksum(a []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(a); i += 2 {
		if i != 4 {
			sum += uint32(be.Uint16(a[i:]))
		}
	}
	if len(a)%2 == 1 {
		sum += uint32(a[len(a)-1]) << 8
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// nvramKBFor is the smallest NVRAM size, in KB, whose blank file holds a
// startup-config and a private-config of these lengths (0 if none does).
func nvramKBFor(startupLen, privateLen int) int {
	need := nvramStartupHdr + (startupLen+3)&^3 + nvramPrivateHdr + privateLen
	kb := ((need+nvramFileReserve)*2 + 1023) / 1024
	kb = max(kb, NVRAMMinKB)
	if kb > NVRAMMaxKB {
		return 0
	}
	return kb
}

func tooBigError(fileLen, need, limit int, startup, private []byte) error {
	what := fmt.Sprintf("the startup-config (%d bytes) and private-config (%d bytes) take %d bytes of NVRAM with their headers, "+
		"but a %d KB NVRAM has room for %d", len(startup), len(private), need, fileLen/1024, limit)
	if limit < fileLen/2-nvramFileReserve {
		what += " before the IOU files (vlan.dat...) it holds"
	}
	kb := nvramKBFor(len(startup), len(private))
	if kb == 0 {
		return fmt.Errorf("%s, and even the largest NVRAM (%d KB) is too small: shorten the configs", what, NVRAMMaxKB)
	}
	if kb <= fileLen/1024 {
		// Only the IOU files are in the way: a blank file of the same size would do.
		return fmt.Errorf("%s: a new, blank NVRAM file of that size would hold them, so delete the node's nvram_<id> file "+
			"(the IOU files in it go too) and start the node again", what)
	}
	return fmt.Errorf("%s: set the node's NVRAM to at least %d KB", what, kb)
}

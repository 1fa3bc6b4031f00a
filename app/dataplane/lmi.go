package dataplane

import "sync/atomic"

// LMI (Local Management Interface) is the keepalive and PVC status dialogue
// between a Frame Relay router (the user side) and the switch (the network
// side): the router sends STATUS ENQUIRY messages and the switch answers
// STATUS, echoing the router's sequence number, giving its own, and, when
// a full status is asked, listing the PVCs of the port.
//
// Every message is a UI frame on the LMI DLCI:
//
//	addr(2) 0x03 PD 0x00 type [0x95] IE...
//
// where PD is the protocol discriminator, type 0x75 (STATUS ENQUIRY) or
// 0x7D (STATUS), and 0x95 the locking shift to codeset 5 that only ANSI
// carries. Each information element is id(1) length(1) contents:
//
//	report type      ANSI/Cisco 0x01, Q.933 0x51; length 1: 0 full status,
//	                 1 link integrity verification only
//	link integrity   ANSI/Cisco 0x03, Q.933 0x53; length 2: send sequence
//	                 number, receive sequence number
//	PVC status       ANSI 0x07, Q.933 0x57; length 3: DLCI high 6 bits,
//	                 0x80|DLCI low 4 bits<<3, 0x80|flags (0x08 new,
//	                 0x02 active). Cisco 0x07, length 6: DLCI as 16 bits
//	                 big-endian, flags, 3 bytes of bandwidth.

// LMIVariant is one of the three LMI dialects a router may speak.
type LMIVariant uint8

// The LMI dialects. LMINone is the zero value: no enquiry answered yet.
const (
	LMINone  LMIVariant = iota
	LMIANSI             // ANSI T1.617 Annex D: DLCI 0, locking shift 0x95
	LMIQ933             // ITU-T Q.933 Annex A: DLCI 0, IEs 0x51/0x53/0x57
	LMICisco            // Cisco "Gang of Four" LMI: DLCI 1023, PD 0x09
)

// String returns the dialect's name as Cisco IOS spells its lmi-type.
func (v LMIVariant) String() string {
	switch v {
	case LMIANSI:
		return "ansi"
	case LMIQ933:
		return "q933a"
	case LMICisco:
		return "cisco"
	}
	return "none"
}

// The LMI constants of the standards.
const (
	lmiDLCI       = 0    // ANSI and Q.933
	lmiCiscoDLCI  = 1023 // Cisco
	lmiUI         = 0x03 // control field: unnumbered information
	lmiPD         = 0x08 // protocol discriminator, ANSI and Q.933
	lmiCiscoPD    = 0x09 // protocol discriminator, Cisco
	lmiCallRef    = 0x00 // dummy call reference
	lmiEnquiry    = 0x75 // STATUS ENQUIRY, user to network
	lmiStatus     = 0x7d // STATUS, network to user
	lmiLockShift  = 0x95 // ANSI: locking shift to codeset 5
	lmiReportFull = 0    // report type: full status
	lmiReportLIV  = 1    // report type: link integrity verification only
	lmiPVCActive  = 0x02 // PVC status flags: active
	lmiPVCExt     = 0x80 // extension bit of the last octet of a field
	lmiMinFrame   = 6    // addr(2) UI PD callref type
)

// lmiIE holds the information element identifiers of one dialect.
type lmiIE struct{ report, liv, pvc byte }

// lmiIEs gives the identifiers of each dialect, by LMIVariant.
var lmiIEs = [...]lmiIE{
	LMIANSI:  {0x01, 0x03, 0x07},
	LMIQ933:  {0x51, 0x53, 0x57},
	LMICisco: {0x01, 0x03, 0x07},
}

// lmiQuery is a decoded STATUS ENQUIRY.
type lmiQuery struct {
	variant LMIVariant
	report  byte // lmiReportFull or lmiReportLIV
	ssn     byte // the router's send sequence number
	rsn     byte // the router's receive sequence number: our last send
}

// parseLMIEnquiry decodes a STATUS ENQUIRY that arrived on dlci (0 or
// 1023), frame being the whole Frame Relay frame. It reports false for
// anything else; it never panics, whatever frame holds.
//
// As dynamips: the elements are read in turn while three or more bytes
// remain; an element overrunning the frame, a report type other than full
// status or link integrity, or a wrong element length refuses the frame;
// an unknown element ends the reading; both the report type and the link
// integrity elements must have been read. Unlike dynamips (which knows
// only ANSI), the dialect is told by the DLCI, the protocol discriminator
// and the locking shift, and a repeated element refuses the frame.
func parseLMIEnquiry(dlci uint16, frame []byte) (lmiQuery, bool) {
	v := lmiVariantOf(dlci, frame)
	if v == LMINone {
		return lmiQuery{}, false
	}
	return parseLMIElements(v, frame[lmiHeaderLen(v):])
}

// lmiVariantOf tells the dialect of an enquiry, or LMINone; its elements
// start after lmiHeaderLen.
func lmiVariantOf(dlci uint16, frame []byte) LMIVariant {
	if len(frame) < lmiMinFrame || frame[2] != lmiUI || frame[4] != lmiCallRef || frame[5] != lmiEnquiry {
		return LMINone
	}
	switch {
	case dlci == lmiCiscoDLCI && frame[3] == lmiCiscoPD:
		return LMICisco
	case dlci == lmiDLCI && frame[3] == lmiPD && len(frame) > lmiMinFrame && frame[lmiMinFrame] == lmiLockShift:
		return LMIANSI
	case dlci == lmiDLCI && frame[3] == lmiPD:
		return LMIQ933
	}
	return LMINone
}

// parseLMIElements reads the information elements of an enquiry.
func parseLMIElements(v LMIVariant, ies []byte) (lmiQuery, bool) {
	q := lmiQuery{variant: v}
	ids := lmiIEs[v]
	var report, liv bool
loop:
	for len(ies) > 2 {
		size := int(ies[1])
		if 2+size > len(ies) {
			return q, false
		}
		body := ies[2 : 2+size]
		switch ies[0] {
		case ids.report:
			if report || size != 1 || body[0] > lmiReportLIV {
				return q, false
			}
			q.report, report = body[0], true
		case ids.liv:
			if liv || size != 2 {
				return q, false
			}
			q.ssn, q.rsn, liv = body[0], body[1], true
		default:
			break loop
		}
		ies = ies[2+size:]
	}
	return q, report && liv
}

// lmiHeaderLen is the length of a message's header in dialect v.
func lmiHeaderLen(v LMIVariant) int {
	if v == LMIANSI {
		return lmiMinFrame + 1
	}
	return lmiMinFrame
}

// lmiStatusLen is the length of the STATUS answering q, pvcs being the
// encoded PVC status elements it lists (none for link integrity only).
func lmiStatusLen(q lmiQuery, pvcs []byte) int {
	return lmiHeaderLen(q.variant) + 3 + 4 + len(pvcs)
}

// writeLMIStatus writes into dst (lmiStatusLen bytes) the STATUS that
// answers q: the report type echoed, the link integrity element with
// send as our send sequence number and the router's send sequence number
// as our receive sequence number, then pvcs. The elements are always in
// this, the standards' order; dynamips echoes them in the enquiry's order,
// which is the same for every enquiry a router sends.
func writeLMIStatus(dst []byte, q lmiQuery, send byte, pvcs []byte) {
	n := putLMIHeader(dst, q.variant)
	ids := lmiIEs[q.variant]
	dst[n], dst[n+1], dst[n+2] = ids.report, 1, q.report
	dst[n+3], dst[n+4], dst[n+5], dst[n+6] = ids.liv, 2, send, q.ssn
	copy(dst[n+7:], pvcs)
}

// putLMIHeader writes the header of a STATUS in dialect v and returns
// its length. The address carries C/R, FECN, BECN and DE clear, as
// dynamips sends it.
func putLMIHeader(dst []byte, v LMIVariant) int {
	dlci, pd := uint16(lmiDLCI), byte(lmiPD)
	if v == LMICisco {
		dlci, pd = lmiCiscoDLCI, lmiCiscoPD
	}
	dst[0], dst[1] = q922Address(dlci)
	dst[2], dst[3], dst[4], dst[5] = lmiUI, pd, lmiCallRef, lmiStatus
	if v == LMIANSI {
		dst[6] = lmiLockShift
	}
	return lmiHeaderLen(v)
}

// appendPVCStatus appends the PVC status element announcing dlci as
// active in dialect v. The "new" bit is never set: dynamips never sets it.
func appendPVCStatus(dst []byte, v LMIVariant, dlci uint16) []byte {
	ids := lmiIEs[v]
	if v == LMICisco {
		return append(dst, ids.pvc, 6, byte(dlci>>8), byte(dlci), lmiPVCActive, 0, 0, 0)
	}
	return append(dst, ids.pvc, 3, byte(dlci>>4)&0x3f, lmiPVCExt|byte(dlci&0x0f)<<3, lmiPVCExt|lmiPVCActive)
}

// nextLMISeq is the sequence number after x: 1 to 255, then 1 again
// (0 is never sent: it means "nothing received yet").
func nextLMISeq(x byte) byte {
	x++
	if x == 0 {
		x = 1
	}
	return x
}

// LMIStats is the LMI state of one port of a Frame Relay switch, for a
// console or diagnostics. Its fields are read one by one while frames may
// still arrive, so they need not be mutually consistent.
type LMIStats struct {
	Port int
	// Variant is the dialect of the last enquiry answered (LMINone
	// before the first).
	Variant LMIVariant
	// FullStatus and LinkIntegrity count the enquiries answered of each
	// report type.
	FullStatus    uint64
	LinkIntegrity uint64
	// Resyncs counts enquiries whose receive sequence number was not the
	// switch's last send sequence number (the router missed a STATUS or
	// restarted); the switch then follows the router, as dynamips does.
	Resyncs uint64
	// Invalid counts frames on an LMI DLCI dropped as not a well-formed
	// STATUS ENQUIRY.
	Invalid uint64
	// SendSeq is the switch's last send sequence number, ReceiveSeq the
	// router's last one (echoed in the STATUS), in Variant.
	SendSeq    uint8
	ReceiveSeq uint8
}

// lmiPort is the LMI state of one port. It outlives reconfigurations
// that keep the port.
type lmiPort struct {
	seq     [len(lmiIEs)]atomic.Uint32 // last send sequence number, by dialect
	last    atomic.Uint32              // variant<<16 | send<<8 | receive
	full    atomic.Uint64
	liv     atomic.Uint64
	resyncs atomic.Uint64
	invalid atomic.Uint64
}

// answer records enquiry q and returns the send sequence number of its
// STATUS. As dynamips: if the router's receive sequence number is not our
// last send sequence number we take the router's, then step it by one,
// skipping 0.
func (p *lmiPort) answer(q lmiQuery) byte {
	send := nextLMISeq(q.rsn)
	if prev := p.seq[q.variant].Swap(uint32(send)); prev != uint32(q.rsn) {
		p.resyncs.Add(1)
	}
	if q.report == lmiReportFull {
		p.full.Add(1)
	} else {
		p.liv.Add(1)
	}
	p.last.Store(uint32(q.variant)<<16 | uint32(send)<<8 | uint32(q.ssn))
	return send
}

// stats returns a snapshot of p for port.
func (p *lmiPort) stats(port int) LMIStats {
	last := p.last.Load()
	return LMIStats{
		Port:          port,
		Variant:       LMIVariant(last >> 16),
		FullStatus:    p.full.Load(),
		LinkIntegrity: p.liv.Load(),
		Resyncs:       p.resyncs.Load(),
		Invalid:       p.invalid.Load(),
		SendSeq:       uint8(last >> 8),
		ReceiveSeq:    uint8(last),
	}
}

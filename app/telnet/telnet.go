// Package telnet is the part of telnet (RFC 854) that nodedesk's consoles
// need, for the VPCS consoles (app/vpcs) and the consoles nodedesk serves
// itself (app/dataplane): the server offers to echo and to suppress
// go-ahead, which puts telnet and PuTTY in character mode (each key goes
// straight to the console, whose terminal echoes it); the commands a
// client sends (IAC sequences) are read and dropped; CR NUL and CR LF, the
// telnet spellings of Enter, become CR. No maintained Go telnet server
// library exists; this is the small part a console needs.
package telnet

import (
	"bytes"
	"io"
)

// The telnet commands and options this package speaks.
const (
	iac  = 255
	dont = 254
	do   = 253
	wont = 252
	will = 251
	sb   = 250
	se   = 240

	optEcho = 1
	optSGA  = 3
)

// Negotiation is what a server sends every new client: WILL ECHO, WILL
// SUPPRESS-GO-AHEAD, DO SUPPRESS-GO-AHEAD.
var Negotiation = []byte{iac, will, optEcho, iac, will, optSGA, iac, do, optSGA}

// EscapeIAC returns a copy of terminal output b with its 0xFF bytes
// doubled, as telnet requires.
func EscapeIAC(b []byte) []byte {
	if bytes.IndexByte(b, iac) < 0 {
		return append([]byte(nil), b...)
	}
	return bytes.ReplaceAll(b, []byte{iac}, []byte{iac, iac})
}

// Filter reads what one client sends: Data removes telnet's commands and
// turns line ends into CR. Its zero value is ready; it keeps its state
// from one call to the next, as a command may span two reads.
type Filter struct {
	// KeepLineEnds keeps CR LF and CR NUL as they are: for a server's
	// output read by nodedesk as a client (Dynamips' consoles).
	KeepLineEnds bool
	state        int  // parser state, below
	cr           bool // the last data byte was CR
}

// Parser states.
const (
	stData = iota
	stIAC
	stOption // after WILL/WONT/DO/DONT
	stSub    // inside SB ... IAC SE
	stSubIAC
)

// Data appends to out the data bytes of in, the client's next bytes, and
// returns it.
func (f *Filter) Data(out, in []byte) []byte {
	for _, b := range in {
		switch f.state {
		case stData:
			switch {
			case b == iac:
				f.state = stIAC
			case f.cr && !f.KeepLineEnds && (b == 0 || b == '\n'):
				f.cr = false // CR NUL / CR LF: the CR was taken already
			default:
				f.cr = b == '\r'
				out = append(out, b)
			}
		case stIAC:
			switch b {
			case iac:
				out = append(out, iac)
				f.state = stData
			case will, wont, do, dont:
				f.state = stOption
			case sb:
				f.state = stSub
			default:
				f.state = stData
			}
		case stOption:
			f.state = stData
		case stSub:
			if b == iac {
				f.state = stSubIAC
			}
		case stSubIAC:
			if b == se {
				f.state = stData
			} else {
				f.state = stSub
			}
		}
	}
	return out
}

// Conn is a server's side of one telnet connection as a plain byte
// stream: Read returns what the client typed, Write sends terminal output.
type Conn struct {
	rw  io.ReadWriter
	f   Filter
	buf []byte
}

// NewConn sends Negotiation on rw and returns the connection.
func NewConn(rw io.ReadWriter) (*Conn, error) {
	if _, err := rw.Write(Negotiation); err != nil {
		return nil, err
	}
	return &Conn{rw: rw, buf: make([]byte, 512)}, nil
}

// Read returns the client's next data bytes, telnet's commands removed.
func (c *Conn) Read(p []byte) (int, error) {
	for {
		n, err := c.rw.Read(c.buf[:min(len(c.buf), len(p))])
		out := c.f.Data(p[:0], c.buf[:n])
		if len(out) > 0 || err != nil {
			return len(out), err
		}
	}
}

// Write sends p to the client with its IAC bytes escaped.
func (c *Conn) Write(p []byte) (int, error) {
	if _, err := c.rw.Write(EscapeIAC(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

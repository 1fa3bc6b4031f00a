package iou

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// withIOS is a copy of nv with its IOS version field set to v.
func withIOS(nv []byte, v uint16) []byte {
	c := append([]byte{}, nv...)
	be.PutUint16(c[6:], v)
	return c
}

// withSectors is a copy of nv with two IOU file sectors (vlan.dat and
// another) in the last free KBs of its 64 KB configuration area.
func withSectors(nv []byte) []byte {
	c := append([]byte{}, nv...)
	for _, s := range []struct {
		at   int
		name string
	}{{29696, "vlan.dat"}, {28672, "other.cfg"}} {
		copy(c[s.at:], []byte{0xDC, 0xBA, 0, 0, 0, 1, 0, 100})
		copy(c[s.at+8:], s.name)
	}
	return c
}

func mustEncode(t *testing.T, kb int, startup, private string) []byte {
	t.Helper()
	var p []byte
	if private != "" {
		p = []byte(private)
	}
	b, err := EncodeNVRAM(kb, []byte(startup), p)
	if err != nil {
		t.Fatalf("EncodeNVRAM(%d): %v", kb, err)
	}
	return b
}

// TestNVRAMMatchesGNS3 holds EncodeNVRAM and UpdateNVRAM to the bytes
// GNS3 2.2.59's nvram_import gives for the same input: the SHA-256 sums
// and checksums were computed with gns3server/compute/iou/utils/iou_import.py
// of v2.2.59, and the startup/private lengths with its iou_export.py.
func TestNVRAMMatchesGNS3(t *testing.T) {
	eight := ""
	for i := range 4 {
		eight += fmt.Sprintf("interface Ethernet0/%d\n no shutdown\n", i)
	}
	b := mustEncode(t, 64, "!\nhostname NDTEST\nend\n", "\nend\n")
	f0 := mustEncode(t, 1024, "a\n", "")
	g0 := mustEncode(t, 128, "a\n", "")
	cases := []struct {
		name       string
		make       func() ([]byte, error)
		size       int
		sum        string
		checksum   uint16
		startupLen int
		private    string
	}{
		{"new 256 KB, no private", func() ([]byte, error) { return EncodeNVRAM(256, []byte("hostname R1\n"), nil) },
			262144, "dfd4aeca0b88c525fbc0e1fbb983e99b2462bcee7e2aa13a8ccad9469d56c4b9", 0xfc67, 12, ""},
		{"new 64 KB, startup padded with newlines", func() ([]byte, error) { return b, nil },
			65536, "233cb40b8ff8b244c2dc8b34311b8c4c710b8cebc0a1f6f269902e22d70ac319", 0xd833, 24, "\nend\n"},
		{"new 8 KB", func() ([]byte, error) { return EncodeNVRAM(8, []byte(eight), []byte("private\n")) },
			8192, "d9f5737b65d86bba0907a39dbe761a5b32fcdec6eb1104612329617fae2c5275", 0xb042, 140, "private\n"},
		{"update, IOS 15.0 padding", func() ([]byte, error) {
			return UpdateNVRAM(withIOS(b, 0x0F00), []byte("hostname R2\nend\n\n"), []byte("xyz"))
		}, 65536, "b24d0ec418318ee3555fd28742fe5e5836f89e62d1d71eb3832889c928ec5840", 0x3551, 17, "xyz"},
		{"update keeps file sectors", func() ([]byte, error) {
			return UpdateNVRAM(withSectors(b), []byte("hostname E\n"), nil)
		}, 65536, "a81f0b2be6d1dc9048f82793f3369f0b4ff09679538c3fccc17328f686483f88", 0xed1e, 11, ""},
		{"update up to the file sectors", func() ([]byte, error) {
			return UpdateNVRAM(withSectors(b), bytes.Repeat([]byte("x"), 28000), nil)
		}, 65536, "a38116f5061413af3daaf8199aac23184db420d19e53399a11be93b81797a107", 0xdd7e, 28000, ""},
		{"update 1024 KB, area of 64 KB or more pads 4 more", func() ([]byte, error) {
			return UpdateNVRAM(f0, []byte("abcde"), []byte("p"))
		}, 1048576, "80034bcff742b038ec9d476ff2a3761e962927c0969f9db012838af42c12186d", 0x6bb3, 5, "p"},
		{"update 128 KB, an area of exactly 64 KB pads 4 more", func() ([]byte, error) {
			return UpdateNVRAM(g0, []byte("abcde"), []byte("p"))
		}, 131072, "27c1c0ecb7f4b42b749205656585e4b177a91ebbdf8ec8a6a49e1c62a136ceaa", 0x6bb3, 5, "p"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nv, err := c.make()
			if err != nil {
				t.Fatal(err)
			}
			if len(nv) != c.size {
				t.Fatalf("size %d, want %d", len(nv), c.size)
			}
			sum := sha256.Sum256(nv)
			if got := hex.EncodeToString(sum[:]); got != c.sum {
				t.Errorf("sha256 %s, GNS3's nvram_import gives %s", got, c.sum)
			}
			if got := be.Uint16(nv[4:]); got != c.checksum {
				t.Errorf("checksum %#04x, want %#04x", got, c.checksum)
			}
			startup, private, err := DecodeNVRAM(nv)
			if err != nil {
				t.Fatal(err)
			}
			if len(startup) != c.startupLen || string(private) != c.private {
				t.Errorf("decoded startup of %d bytes and private %q, want %d and %q", len(startup), private, c.startupLen, c.private)
			}
		})
	}
}

func TestEncodeNVRAMLayout(t *testing.T) {
	nv := mustEncode(t, 16, "hostname R1\nend", "PRIV")
	// "hostname R1\nend" is 15 bytes: one '\n' pads it to 16.
	want := []struct {
		off  int
		size int // 2 or 4
		v    uint32
		what string
	}{
		{0, 2, 0xABCD, "startup magic"},
		{2, 2, 1, "format (raw)"},
		{6, 2, 0x0F04, "IOS version"},
		{8, 4, 0x10000000 + 36, "startup start"},
		{12, 4, 0x10000000 + 36 + 16, "startup end"},
		{16, 4, 16, "startup length"},
		{52, 2, 0xFEDC, "private magic"},
		{54, 2, 1, "private format"},
		{56, 4, 0x10000000 + 52 + 16, "private start"},
		{60, 4, 0x10000000 + 52 + 16 + 4, "private end"},
		{64, 4, 4, "private length"},
	}
	for _, w := range want {
		var got uint32
		if w.size == 2 {
			got = uint32(be.Uint16(nv[w.off:]))
		} else {
			got = be.Uint32(nv[w.off:])
		}
		if got != w.v {
			t.Errorf("%s at %d: %#x, want %#x", w.what, w.off, got, w.v)
		}
	}
	if got := string(nv[36:52]); got != "hostname R1\nend\n" {
		t.Errorf("startup text %q", got)
	}
	if got := string(nv[68:72]); got != "PRIV" {
		t.Errorf("private text %q", got)
	}
	if !bytes.Equal(nv[72:], make([]byte, len(nv)-72)) {
		t.Error("the rest of the file is not zero")
	}
	// The checksum sums to 0xFFFF with the area's other words.
	var sum uint32
	for i := 0; i < len(nv)/2; i += 2 {
		sum += uint32(be.Uint16(nv[i:]))
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	if sum != 0xffff {
		t.Errorf("ones' complement sum of the area with its checksum is %#x, want 0xffff", sum)
	}
}

func TestNVRAMErrors(t *testing.T) {
	b := mustEncode(t, 64, "hostname X\n", "")
	cases := []struct {
		name string
		run  func() error
		want []string
	}{
		{"size too small", func() error { _, err := EncodeNVRAM(4, []byte("x"), nil); return err },
			[]string{"4 KB is out of range", "8 to 1024 KB"}},
		{"size too large", func() error { _, err := EncodeNVRAM(2048, []byte("x"), nil); return err },
			[]string{"2048 KB is out of range"}},
		{"config needs 9 KB", func() error { _, err := EncodeNVRAM(8, bytes.Repeat([]byte("y"), 2000), nil); return err },
			[]string{"2000 bytes", "8 KB NVRAM has room for 2048", "at least 9 KB"}},
		{"config needs 122 KB", func() error { _, err := EncodeNVRAM(64, bytes.Repeat([]byte("y"), 60000), nil); return err },
			[]string{"at least 122 KB"}},
		{"private counts", func() error {
			_, err := EncodeNVRAM(8, bytes.Repeat([]byte("y"), 1000), bytes.Repeat([]byte("p"), 1000))
			return err
		}, []string{"private-config (1000 bytes)", "at least 9 KB"}},
		{"no NVRAM is big enough", func() error { _, err := EncodeNVRAM(1024, bytes.Repeat([]byte("y"), 600000), nil); return err },
			[]string{"even the largest NVRAM (1024 KB) is too small", "shorten"}},
		{"file sectors in the way", func() error {
			_, err := UpdateNVRAM(withSectors(mustEncode(t, 64, "!\nhostname NDTEST\nend\n", "\nend\n")), bytes.Repeat([]byte("x"), 28700), nil)
			return err
		}, []string{"has room for 28672", "before the IOU files", "a new, blank NVRAM file of that size would hold them", "delete the node's nvram_<id> file"}},
		{"old file of a wrong size", func() error { _, err := UpdateNVRAM(b[:5000], []byte("x"), nil); return err },
			[]string{"5000 bytes", "not an IOU NVRAM file"}},
		{"old file with a length past its end", func() error {
			c := append([]byte{}, b...)
			be.PutUint32(c[16:], 70000)
			_, err := UpdateNVRAM(c, []byte("x"), nil)
			return err
		}, []string{"70000 bytes, past the end"}},
		{"old file whose configs overflow the area", func() error {
			c := append([]byte{}, b...)
			be.PutUint32(c[16:], 40000)
			_, err := UpdateNVRAM(c, []byte("x"), nil)
			return err
		}, []string{"more than its 32768-byte configuration area"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestNVRAMRoundTrip(t *testing.T) {
	cases := []struct {
		kb               int
		startup, private string
		wantStartup      string
	}{
		{8, "hostname A\n", "", "hostname A\n\n"},
		{64, "hostname AB\nend", "secret", "hostname AB\nend\n"},
		{128, "hostname ABC\nend", "p", "hostname ABC\nend"},
		{256, "h\r\nend\r\n\x00\xff", "\nend\n", "h\r\nend\r\n\x00\xff\n\n"},
		{1024, strings.Repeat("!\n", 100000), "", strings.Repeat("!\n", 100000)},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%dKB", c.kb), func(t *testing.T) {
			nv := mustEncode(t, c.kb, c.startup, c.private)
			startup, private, err := DecodeNVRAM(nv)
			if err != nil {
				t.Fatal(err)
			}
			if string(startup) != c.wantStartup {
				t.Errorf("startup %q, want %q", startup, c.wantStartup)
			}
			if private == nil || string(private) != c.private {
				t.Errorf("private %q (nil %v), want %q", private, private == nil, c.private)
			}
			// An update of the file with new configs keeps its size and
			// IOS version and reads back the new configs, unpadded: the
			// version is known now.
			up, err := UpdateNVRAM(nv, []byte("hostname NEW"), []byte("P2"))
			if err != nil {
				t.Fatal(err)
			}
			if len(up) != len(nv) || be.Uint16(up[6:]) != 0x0F04 {
				t.Errorf("update gave %d bytes, IOS %#x", len(up), be.Uint16(up[6:]))
			}
			startup, private, err = DecodeNVRAM(up)
			if err != nil || string(startup) != "hostname NEW" || string(private) != "P2" {
				t.Errorf("after update: %q %q %v", startup, private, err)
			}
			if !bytes.Equal(nv[:len(nv)], mustEncode(t, c.kb, c.startup, c.private)) {
				t.Error("UpdateNVRAM changed its input")
			}
		})
	}
}

func TestDecodeNVRAM(t *testing.T) {
	good := mustEncode(t, 8, "hostname D\n", "pv")
	header := func(format uint16, length uint32, total int) []byte {
		b := make([]byte, total)
		be.PutUint16(b, 0xABCD)
		be.PutUint16(b[2:], format)
		be.PutUint32(b[16:], length)
		return b
	}
	// A file laid out with 4 more bytes of padding (IOS <= 15.0): the
	// private header starts 4 bytes after the 4-byte alignment.
	extra := header(1, 5, 200)
	copy(extra[36:], "abcde")
	p := 36 + 8 + 4
	be.PutUint16(extra[p:], 0xFEDC)
	be.PutUint16(extra[p+2:], 1)
	be.PutUint32(extra[p+12:], 3)
	copy(extra[p+16:], "xyz")
	// A private header whose length runs past the end: no private config.
	// ("hostname D\n" is padded to 12 bytes: the private header is at 48.)
	overrun := append([]byte{}, good[:80]...)
	be.PutUint32(overrun[48+12:], 1000)
	cases := []struct {
		name             string
		b                []byte
		startup, private string
		nilStartup       bool
		nilPrivate       bool
		err              string
	}{
		{name: "EncodeNVRAM's file", b: good, startup: "hostname D\n\n", private: "pv"},
		{name: "empty file", b: nil, nilStartup: true, nilPrivate: true},
		{name: "erased NVRAM", b: make([]byte, 8192), nilStartup: true, nilPrivate: true},
		{name: "startup without private section", b: append(header(1, 3, 36), "abc"...), startup: "abc", nilPrivate: true},
		{name: "extra padding", b: extra, startup: "abcde", private: "xyz"},
		{name: "private length past the end", b: overrun, startup: "hostname D\n\n", nilPrivate: true},
		{name: "zero-length startup", b: header(1, 0, 36), startup: "", nilPrivate: true},
		{name: "compressed", b: append(header(2, 4, 40), 0x1f, 0x9d, 0x90, 0), err: "compressed (format 2)"},
		{name: "header cut short", b: []byte{0xAB, 0xCD, 0, 1, 0}, err: "too short"},
		{name: "length past the end", b: header(1, 100, 60), err: "says 100 bytes, but only 24 follow"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			startup, private, err := DecodeNVRAM(c.b)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (startup == nil) != c.nilStartup || string(startup) != c.startup {
				t.Errorf("startup %q (nil %v), want %q (nil %v)", startup, startup == nil, c.startup, c.nilStartup)
			}
			if (private == nil) != c.nilPrivate || string(private) != c.private {
				t.Errorf("private %q (nil %v), want %q (nil %v)", private, private == nil, c.private, c.nilPrivate)
			}
		})
	}
}

package iou

import (
	"errors"
	"testing"
)

func TestCheckXMLCiscoCom(t *testing.T) {
	resolves := func(addrs ...string) func(string) ([]string, error) {
		return func(host string) ([]string, error) {
			if host != "xml.cisco.com" {
				return nil, errors.New("asked for " + host)
			}
			return addrs, nil
		}
	}
	fails := func(string) ([]string, error) { return nil, errors.New("no such host") }
	cases := []struct {
		image  string
		lookup func(string) ([]string, error)
		wants  []string // none: no error
	}{
		{"/data/images/IOU/x86_64_crb_linux_l2-adventerprisek9-ms.iol", resolves("127.0.0.127"),
			[]string{"x86_64_crb_linux_l2-adventerprisek9-ms.iol looks like an IOL-XE 17.x switch (L2) image", "SIGABRT",
				"resolves to 127.0.0.127", "Remove the xml.cisco.com line from /etc/hosts", `sed -i '/xml\.cisco\.com/d' /etc/hosts`,
				"any address, 127.0.0.127 or 127.0.0.1 included"}},
		{"x86_64_crb_linux_l2-adventerprisek9-ms.17.16.1a.iol", resolves("127.0.0.1", "::1"), []string{"resolves to 127.0.0.1, ::1"}},
		{"l2-adventerprisek9-ms-17.15.01.bin", resolves("0.0.0.0"), []string{"resolves to 0.0.0.0"}},
		{"X86_64_CRB_LINUX_L2-ADVENTERPRISEK9-MS", resolves("127.0.0.254"), []string{"resolves to 127.0.0.254"}},
		{"ioll2-xe-17-12-01.bin", resolves("10.0.0.1"), []string{"resolves to 10.0.0.1"}},
		{"x86_64_crb_linux_l2-adventerprisek9-ms.iol", fails, nil},
		{"x86_64_crb_linux_l2-adventerprisek9-ms.iol", resolves(), nil},
		// The router images and the 15.x images start whatever the name resolves to.
		{"x86_64_crb_linux-adventerprisek9-ms.iol", resolves("127.0.0.127"), nil},
		{"x86_64_crb_linux-adventerprisek9-ms.17.16.1a.iol", resolves("127.0.0.127"), nil},
		{"i86bi-linux-l2-adventerprisek9-15.1a.bin", resolves("127.0.0.127"), nil},
		{"i86bi_LinuxL2-AdvIpServicesK9-M_152_May_2018.bin", resolves("127.0.0.127"), nil},
		{"i86bi-linux-l3-adventerprisek9-15.4.1T.bin", resolves("127.0.0.127"), nil},
	}
	for _, c := range cases {
		t.Run(c.image, func(t *testing.T) {
			err := CheckXMLCiscoCom(c.image, c.lookup)
			if c.wants == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantError(t, err, c.wants...)
		})
	}
	// No lookup for an image the name cannot harm.
	asked := false
	_ = CheckXMLCiscoCom("i86bi-linux-l2-adventerprisek9-15.1a.bin", func(string) ([]string, error) { asked = true; return nil, nil })
	if asked {
		t.Error("a 15.x image made CheckXMLCiscoCom look the name up")
	}
}

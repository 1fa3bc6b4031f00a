package iou

import (
	"strings"
	"testing"
)

func TestCheckIOURC(t *testing.T) {
	const key = "0123456789abcdef"
	cases := []struct {
		name     string
		content  string
		hostname string
		wants    []string // none: accepted
	}{
		{"GNS3's layout", "[license]\ngns3vm = " + key + ";\n", "gns3vm", nil},
		{"several hosts, CRLF, comments", "# IOU\r\n[license]\r\n; mine\r\nother = fedcba9876543210;\r\ngns3vm = " + key + ";\r\n", "gns3vm", nil},
		{"other sections", "[other]\nx = 1\n[license]\ngns3vm=" + key + ";\n", "gns3vm", nil},
		{"hostname in another case", "[license]\nGNS3VM = " + key + ";\n", "gns3vm", nil},
		{"colon as delimiter", "[license]\ngns3vm: " + key + ";\n", "gns3vm", nil},
		{"upper-case hex digits", "[license]\ngns3vm = 0123456789ABCDEF;\n", "gns3vm", nil},
		{"text after the section's ]", "[license] keys\ngns3vm = " + key + ";\n", "gns3vm", nil},
		{"indented section header", "  [license]\ngns3vm = " + key + ";\n", "gns3vm", nil},

		{"empty", "", "gns3vm", []string{"the IOU licence (iourc) is empty", `"gns3vm = <16 hexadecimal digits>;"`}},
		{"blank lines only", "\n \n", "gns3vm", []string{"is empty"}},
		{"no hostname", "[license]\nx = " + key + ";\n", "", []string{"this machine has no hostname", "hostnamectl"}},
		{"not UTF-8", "[license]\ngns3vm = " + key + ";\n# caf\xe9\n", "gns3vm", []string{"line 3 of the IOU licence (iourc) has bytes that are not text"}},
		{"key before any section", "gns3vm = " + key + ";\n[license]\n", "gns3vm", []string{"line 1", `"gns3vm = ` + key + `;", comes before any section`, `start with "[license]"`}},
		{"a line that is no entry", "[license]\ngns3vm " + key + ";\n", "gns3vm", []string{"line 2", "is not of the form"}},
		{"an entry without a name", "[license]\n= " + key + ";\n", "gns3vm", []string{"line 2", "is not of the form"}},
		{"section twice", "[license]\na = 1\n[license]\n", "gns3vm", []string{"has the section [license] twice (lines 1 and 3)"}},
		{"host twice", "[license]\ngns3vm = " + key + ";\nGNS3VM = " + key + ";\n", "gns3vm", []string{`gives "GNS3VM" twice (lines 2 and 3)`}},
		{"no [license]", "[licence]\ngns3vm = " + key + ";\n", "gns3vm", []string{"has no [license] section", `put "[license]" on the line above`}},
		{"[License]", "[License]\ngns3vm = " + key + ";\n", "gns3vm", []string{"has no [license] section (it has [License]: the name must be exactly [license]"}},
		{"[ license ]", "[ license ]\ngns3vm = " + key + ";\n", "gns3vm", []string{"(it has [ license ]:"}},
		{"hostname absent", "[license]\nother = " + key + ";\nthird = " + key + ";\n", "gns3vm", []string{
			`no key for this machine's hostname "gns3vm" (it has keys for: other, third)`, `add the line "gns3vm = <key>;"`}},
		{"empty section", "[license]\n", "gns3vm", []string{`no key for this machine's hostname "gns3vm":`}},
		{"no semicolon", "[license]\ngns3vm = " + key + "\n", "gns3vm", []string{`the IOU key for "gns3vm" on line 2 of the iourc must end with ";" (it is "` + key + `")`}},
		{"comment after the key", "[license]\ngns3vm = " + key + "; # mine\n", "gns3vm", []string{`must end with ";"`}},
		{"continued on the next line", "[license]\ngns3vm = " + key + ";\n  more\n", "gns3vm", []string{`must end with ";"`}},
		{"15 digits", "[license]\ngns3vm = 0123456789abcde;\n", "gns3vm", []string{"has 15 characters before its \";\", not 16"}},
		{"17 digits", "[license]\ngns3vm = 0123456789abcdef0;\n", "gns3vm", []string{"has 17 characters"}},
		{"two semicolons", "[license]\ngns3vm = 0123456789abcdef;;\n", "gns3vm", []string{"has 17 characters"}},
		{"not hexadecimal", "[license]\ngns3vm = 0123456789abcdeg;\n", "gns3vm", []string{`has 'g', which is not a hexadecimal digit`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckIOURC(c.content, c.hostname)
			if c.wants == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantError(t, err, c.wants...)
		})
	}
}

func TestHostnameWarning(t *testing.T) {
	cases := []struct {
		hostname string
		wants    []string
	}{
		{"gns3vm", nil},
		{"", nil},
		{"exactly15chars-", nil},
		{"ééééééééééééééé", nil}, // 15 characters, 30 bytes
		{"sixteen-chars-xx", []string{`hostname "sixteen-chars-xx" is 16 characters long`, "longer than 15", "hostnamectl set-hostname", "new IOU key"}},
		{"workstation.lab.example.org", []string{"is 27 characters long"}},
	}
	for _, c := range cases {
		got := HostnameWarning(c.hostname)
		if c.wants == nil {
			if got != "" {
				t.Errorf("HostnameWarning(%q) = %q, want none", c.hostname, got)
			}
			continue
		}
		for _, w := range c.wants {
			if !strings.Contains(got, w) {
				t.Errorf("HostnameWarning(%q) lacks %q: %q", c.hostname, w, got)
			}
		}
	}
}

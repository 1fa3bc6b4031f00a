package qemu

import (
	"encoding/json"
	"testing"

	"nodedesk/app"
)

// TestReadSettings_NewNode: a new node's settings are the settings
// table's defaults, key for key: the runner restates none of them.
func TestReadSettings_NewNode(t *testing.T) {
	props, err := app.NewNodeProperties(app.QEMU, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := readSettings(props)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range app.SettingsDiff(props, s) {
		t.Error(d)
	}
	if s.RAM != 256 || s.AdapterType != "e1000" || !s.linkedClone() || s.binary() != "qemu-system-x86_64" {
		t.Errorf("a new node has %d MB, adapter %s, linked clone %v, binary %s; want GNS3's 256, e1000, true, qemu-system-x86_64",
			s.RAM, s.AdapterType, s.linkedClone(), s.binary())
	}
}

// TestBinary_NeitherGiven: a node whose platform and qemu_path are both
// empty runs the domain's default platform's emulator.
func TestBinary_NeitherGiven(t *testing.T) {
	s, err := readSettings(map[string]json.RawMessage{"platform": json.RawMessage(`""`), "qemu_path": json.RawMessage(`""`)})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.binary(); got != "qemu-system-x86_64" {
		t.Errorf("binary of a node that names neither platform nor qemu_path is %q; want qemu-system-x86_64", got)
	}
}

package qemu

import (
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

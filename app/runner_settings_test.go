package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/google/uuid"

	"nodedesk/app"
	"nodedesk/store/storetest"
)

// startRecorder runs the emulators' nodes and keeps the properties each
// start gave it.
type startRecorder struct {
	got map[string]map[string]json.RawMessage
}

func (r *startRecorder) Runs(t app.NodeType) bool {
	return t == app.QEMU || t == app.Docker || t == app.Dynamips
}
func (r *startRecorder) Start(p app.Process) (string, error) {
	r.got[p.NodeID] = p.Properties
	return "recorded", nil
}
func (r *startRecorder) Stop(string) error    { return nil }
func (r *startRecorder) Suspend(string) error { return nil }
func (r *startRecorder) Resume(string) error  { return nil }

// TestNewNodeProperties_AsAStartGives: the properties NewNodeProperties
// makes are those a start of a new node of the same id gives its runner,
// key for key, but the aux port the Service allocates.
func TestNewNodeProperties_AsAStartGives(t *testing.T) {
	ctx := context.Background()
	rec := &startRecorder{got: map[string]map[string]json.RawMessage{}}
	svc := app.NewService(app.Config{Store: storetest.Open(t), DataDir: t.TempDir(), HostInterfaces: hostInterfaces,
		Runners: []app.Runner{rec}})
	for _, tt := range []struct {
		typ   app.NodeType
		given map[string]any
	}{
		{app.QEMU, nil},
		{app.QEMU, map[string]any{"ram": 512, "platform": "aarch64"}},
		{app.Docker, nil},
		{app.Dynamips, nil},
		{app.Dynamips, map[string]any{"platform": "c3725", "slot1": "NM-1FE-TX"}},
		{app.Dynamips, map[string]any{"platform": "c3600", "chassis": "3660"}},
	} {
		pid := mustCreateProject(t, svc, "lab "+uuid.NewString()).ID // the node is its project's first
		id := uuid.NewString()
		c := app.NodeCreate{Type: tt.typ, ID: id}
		if tt.given != nil {
			raw, _ := json.Marshal(tt.given)
			u, err := app.DecodeProperties(tt.typ, raw)
			if err != nil {
				t.Fatal(err)
			}
			c.Properties = u
		}
		n := mustCreateNode(t, svc, pid, c)
		if _, err := svc.NodeAction(ctx, ref(n), app.Start); err != nil {
			t.Fatalf("%s %v: start: %v", tt.typ, tt.given, err)
		}
		want, err := app.NewNodeProperties(tt.typ, id, tt.given)
		if err != nil {
			t.Fatalf("NewNodeProperties(%s, %v): %v", tt.typ, tt.given, err)
		}
		got := rec.got[id]
		for _, k := range slices.Sorted(maps.Keys(got)) {
			if k == "aux" && string(want[k]) == "null" {
				continue // a port the Service allocates, not a setting
			}
			if w, ok := want[k]; !ok || !jsonEqual(w, got[k]) {
				t.Errorf("%s %v: %s: a start gives %s, NewNodeProperties %s", tt.typ, tt.given, k, got[k], w)
			}
		}
		for k := range want {
			if _, ok := got[k]; !ok {
				t.Errorf("%s %v: NewNodeProperties has %s, which a start does not give", tt.typ, tt.given, k)
			}
		}
	}
}

// TestDecodeSettings: a partial map reads with the table's defaults, null
// is the default, a null default leaves the zero value, an id-derived
// key is filled only when given, and a wrong value names its key.
func TestDecodeSettings(t *testing.T) {
	type qemu struct {
		RAM        int    `json:"ram"`
		CPUs       int    `json:"cpus"`
		QEMUPath   string `json:"qemu_path"`
		MACAddress string `json:"mac_address"`
		Image      string `json:"hda_disk_image_md5sum"` // null by default
	}
	var q qemu
	err := app.DecodeSettings(app.QEMU, map[string]json.RawMessage{"ram": []byte("512"), "cpus": []byte("null"), "platform": []byte(`"arm"`)}, &q)
	if want := (qemu{RAM: 512, CPUs: 1, QEMUPath: "qemu-system-arm"}); err != nil || q != want {
		t.Errorf("DecodeSettings = %+v, %v; want %+v", q, err, want)
	}
	type docker struct {
		StartCommand string `json:"start_command"`
		MACAddress   string `json:"mac_address"`
		Aux          int    `json:"aux"`
	}
	var d docker
	err = app.DecodeSettings(app.Docker, map[string]json.RawMessage{"mac_address": []byte(`"02:42:00:00:00:01"`), "aux": []byte("5001")}, &d)
	if want := (docker{MACAddress: "02:42:00:00:00:01", Aux: 5001}); err != nil || d != want {
		t.Errorf("DecodeSettings = %+v, %v; want %+v (the node's own aux kept)", d, err, want)
	}
	err = app.DecodeSettings(app.QEMU, map[string]json.RawMessage{"ram": []byte(`"lots"`)}, &q)
	if e, ok := err.(*app.Error); !ok || e.Code != app.EINVALID || e.Field != "properties.ram" {
		t.Errorf("DecodeSettings(ram \"lots\") = %#v; want EINVALID naming properties.ram", err)
	}
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

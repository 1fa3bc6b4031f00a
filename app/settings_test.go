package app_test

import (
	"context"
	"encoding/json"
	"maps"
	"testing"

	"nodedesk/app"
	"nodedesk/store/storetest"
)

// TestService_EmulatorSettings: IOU's licence is GNS3's before any is
// saved; a type without settings of its own has none.
func TestService_EmulatorSettings(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	got, err := svc.EmulatorSettings(ctx, app.IOU)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"iourc_content": "", "license_check": true}; !maps.Equal(got, want) {
		t.Errorf("IOU licence before any is saved = %v; want GNS3's %v", got, want)
	}
	_, err = svc.EmulatorSettings(ctx, app.VPCS)
	wantCode(t, err, app.ENOTFOUND)
}

func TestService_UpdateEmulatorSettings(t *testing.T) {
	ctx := context.Background()
	const iourc = "[license]\nnodedesk = 0123456789abcdef;\n"
	iourcJSON, _ := json.Marshal(iourc)
	both := map[string]json.RawMessage{"iourc_content": iourcJSON, "license_check": json.RawMessage("true")}
	tests := []struct {
		name  string
		steps []map[string]json.RawMessage
		want  map[string]any
	}{
		{"Both", []map[string]json.RawMessage{both}, map[string]any{"iourc_content": iourc, "license_check": true}},
		{"PartialKeepsTheOther", []map[string]json.RawMessage{both, {"license_check": json.RawMessage("false")}},
			map[string]any{"iourc_content": iourc, "license_check": false}},
		{"PartialOnTheDefault", []map[string]json.RawMessage{{"iourc_content": iourcJSON}},
			map[string]any{"iourc_content": iourc, "license_check": true}},
		{"Empty", []map[string]json.RawMessage{{}}, map[string]any{"iourc_content": "", "license_check": true}},
		{"NoChangeTwice", []map[string]json.RawMessage{{"license_check": json.RawMessage("false")}, {"license_check": json.RawMessage("false")}},
			map[string]any{"iourc_content": "", "license_check": false}},
		{"NullIsTheDefault", []map[string]json.RawMessage{{"license_check": json.RawMessage("false")}, {"license_check": json.RawMessage("null")}},
			map[string]any{"iourc_content": "", "license_check": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := storetest.Open(t)
			svc := app.NewService(app.Config{Store: s, DataDir: t.TempDir(), HostInterfaces: hostInterfaces, PortFree: everyPortFree})
			var got map[string]any
			for i, u := range tt.steps {
				var err error
				if got, err = svc.UpdateEmulatorSettings(ctx, app.IOU, u); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
			}
			if !equalJSON(got, tt.want) {
				t.Errorf("UpdateEmulatorSettings = %v; want %v", got, tt.want)
			}
			// It is stored, not kept in memory: another Service on the
			// same store reads it.
			other := app.NewService(app.Config{Store: s, DataDir: t.TempDir(), HostInterfaces: hostInterfaces, PortFree: everyPortFree})
			if stored, err := other.EmulatorSettings(ctx, app.IOU); err != nil || !equalJSON(stored, tt.want) {
				t.Errorf("stored IOU licence = %v, %v; want %v", stored, err, tt.want)
			}
		})
	}
	svc, _ := newService(t)
	for u, field := range map[string]string{`{"license_check": "yes"}`: "properties.license_check", `{"iourc": ""}`: "iourc"} {
		var m map[string]json.RawMessage
		_ = json.Unmarshal([]byte(u), &m)
		_, err := svc.UpdateEmulatorSettings(ctx, app.IOU, m)
		wantCode(t, err, app.EINVALID)
		if f := app.ErrorField(err); f != field {
			t.Errorf("%s: field %q; want %q", u, f, field)
		}
	}
}

// equalJSON compares two values as JSON.
func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"nodedesk/app"
)

// dynamipsC7200Keys are the keys of a new router's properties: GNS3
// 2.2.59's compute view of a c7200 (router.py and c7200.py), and aux.
var dynamipsC7200Keys = []string{"auto_delete_disks", "aux", "clock_divisor", "disk0", "disk1", "dynamips_id", "exec_area",
	"ghost", "idlemax", "idlepc", "idlesleep", "image", "image_md5sum", "mac_addr", "midplane", "mmap", "npe", "nvram", "platform",
	"power_supplies", "ram", "sensors", "slot0", "slot1", "slot2", "slot3", "slot4", "slot5", "slot6", "sparsemem",
	"system_id", "usage"}

func dynamipsUpdate(tb testing.TB, kv map[string]any) *app.DynamipsUpdate {
	tb.Helper()
	u := app.DynamipsUpdate{}
	for k, v := range kv {
		raw, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		u[k] = raw
	}
	return &u
}

// TestService_CreateNode_DynamipsDefaults: a router shows GNS3's compute
// defaults of its platform, whatever it was created with first.
func TestService_CreateNode_DynamipsDefaults(t *testing.T) {
	tests := []struct {
		name string
		give map[string]any
		want map[string]any
		gone []string
	}{
		{"c7200", nil, map[string]any{"platform": "c7200", "ram": 256.0, "nvram": 128.0, "clock_divisor": 4.0, "npe": "npe-400",
			"midplane": "vxr", "slot0": "C7200-IO-FE", "slot6": nil, "disk0": 64.0, "idlemax": 500.0, "idlesleep": 30.0,
			"exec_area": 64.0, "mmap": true, "sparsemem": true, "system_id": "FTX0945W0MY", "idlepc": ""}, []string{"iomem", "chassis"}},
		{"c3725", map[string]any{"platform": "c3725"}, map[string]any{"ram": 128.0, "nvram": 112.0, "iomem": 5.0, "clock_divisor": 8.0,
			"slot0": "GT96100-FE", "slot2": nil, "disk0": 16.0}, []string{"npe", "midplane", "slot3", "chassis"}},
		{"c3745", map[string]any{"platform": "c3745", "ram": 192}, map[string]any{"ram": 192.0, "nvram": 304.0, "slot4": nil}, []string{"slot5"}},
		{"c3600", map[string]any{"platform": "c3600"}, map[string]any{"chassis": "3640", "slot0": nil, "slot3": nil, "clock_divisor": 4.0}, []string{"slot4"}},
		{"c3660", map[string]any{"platform": "c3600", "chassis": "3660"}, map[string]any{"chassis": "3660", "slot0": "Leopard-2FE", "slot6": nil}, nil},
		{"c3620", map[string]any{"platform": "c3600", "chassis": "3620"}, map[string]any{"chassis": "3620", "slot0": nil, "slot1": nil}, []string{"slot2", "slot3"}},
		{"c2600", map[string]any{"platform": "c2600"}, map[string]any{"chassis": "2610", "slot0": "C2600-MB-1E", "sparsemem": false, "iomem": 15.0, "ram": 64.0}, nil},
		{"c1700", map[string]any{"platform": "c1700", "chassis": "1760"}, map[string]any{"slot0": "C1700-MB-1FE", "slot1": "C1700-MB-WIC1", "nvram": 32.0}, nil},
		{"c2691", map[string]any{"platform": "c2691"}, map[string]any{"slot0": "GT96100-FE", "slot1": nil, "nvram": 112.0}, []string{"slot2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _ := newService(t)
			c := app.NodeCreate{Type: app.Dynamips}
			if tt.give != nil {
				c.Properties = dynamipsUpdate(t, tt.give)
			}
			n := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, c)
			var v map[string]any
			b, _ := json.Marshal(n.PropertiesView())
			_ = json.Unmarshal(b, &v)
			for k, want := range tt.want {
				if got, ok := v[k]; !ok || !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %v (shown %v); want %v", k, got, ok, want)
				}
			}
			for _, k := range tt.gone {
				if _, ok := v[k]; ok {
					t.Errorf("%s shown (%v); a %s has none", k, v[k], tt.name)
				}
			}
			if v["dynamips_id"] != 1.0 || n.Aux == 0 || v["aux"] != float64(n.Aux) {
				t.Errorf("dynamips_id %v, aux %v (node's %d); want 1 and the node's aux port", v["dynamips_id"], v["aux"], n.Aux)
			}
		})
	}
}

// TestService_UpdateNode_DynamipsChecks: values GNS3's schema refuses are
// refused, naming the key; null takes a setting back to its default.
func TestService_UpdateNode_DynamipsChecks(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	n := mustCreateNode(t, svc, mustCreateProject(t, svc, "lab").ID, app.NodeCreate{Type: app.Dynamips})
	for _, bad := range []map[string]any{
		{"platform": "c9999"}, {"idlepc": "6025a4b8"}, {"npe": "npe-500"}, {"midplane": "big"}, {"ram": 0}, {"iomem": 101},
		{"mac_addr": "00:11:22:33:44:55"}, {"chassis": "36x0"}, {"slot1": "PA-NOPE"}, {"wic0": "WIC-9T"}, {"mmap": "yes"},
		{"dynamips_id": 0}, {"dynamips_id": 4097},
	} {
		_, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Properties: dynamipsUpdate(t, bad)})
		for k := range bad {
			if app.ErrorCode(err) != app.EINVALID || !strings.Contains(app.ErrorMessage(err), k) {
				t.Errorf("%v: error %v; want invalid naming %s", bad, err, k)
			}
		}
	}
	got, err := svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Properties: dynamipsUpdate(t, map[string]any{
		"idlepc": "0xffffffff80008040", "slot1": "PA-FE-TX", "mac_addr": "ca01.0a0b.0000"})})
	if err != nil {
		t.Fatal(err)
	}
	if v := got.PropertiesView(); fmt.Sprintf("%s", v["idlepc"]) != `"0xffffffff80008040"` || len(got.Ports()) != 2 {
		t.Errorf("idlepc %s, %d ports; want the value set and 2 ports (Fa0/0, Fa1/0)", v["idlepc"], len(got.Ports()))
	}
	got, err = svc.UpdateNode(ctx, ref(n), app.NodeUpdate{Properties: dynamipsUpdate(t, map[string]any{"slot1": nil, "ram": nil})})
	if err != nil {
		t.Fatal(err)
	}
	if v := got.PropertiesView(); v["ram"] != 256 || v["slot1"] != nil || len(got.Ports()) != 1 {
		t.Errorf("after null: ram %v, slot1 %v, %d ports; want 256, null, 1", v["ram"], v["slot1"], len(got.Ports()))
	}
}

// TestService_CreateNode_DynamipsID: each router of a project gets its own
// dynamips_id, the lowest free one; a router given a taken one gets
// another; another project counts from 1 again.
func TestService_CreateNode_DynamipsID(t *testing.T) {
	svc, _ := newService(t)
	p := mustCreateProject(t, svc, "lab")
	ids := func(n *app.Node) int { return mustFindNode(t, svc, n).DynamipsID() }
	r1 := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.Dynamips})
	r2 := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.Dynamips, NodeUpdate: app.NodeUpdate{Properties: dynamipsUpdate(t, map[string]any{"dynamips_id": 7})}})
	r3 := mustCreateNode(t, svc, p.ID, app.NodeCreate{Type: app.Dynamips, NodeUpdate: app.NodeUpdate{Properties: dynamipsUpdate(t, map[string]any{"dynamips_id": 7})}})
	other := mustCreateNode(t, svc, mustCreateProject(t, svc, "other").ID, app.NodeCreate{Type: app.Dynamips})
	if got := []int{ids(r1), ids(r2), ids(r3), ids(other)}; !reflect.DeepEqual(got, []int{1, 7, 2, 1}) {
		t.Errorf("dynamips ids %v; want [1 7 2 1]", got)
	}
	if got := app.DynamipsStartupConfig(7); got != "configs/i7_startup-config.cfg" {
		t.Errorf("startup config of router 7 at %s", got)
	}
}

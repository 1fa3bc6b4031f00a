package api

import (
	"strings"
	"testing"
)

// TestGNS3VM: the GNS3 VM settings and engines as GNS3 answers them, so
// that the GNS3 desktop GUI's GNS3 VM preferences open (it reads
// allocate_vcpus_ram, and support_* of each engine).
func TestGNS3VM(t *testing.T) {
	ts := mustOpenServer(t)
	vm := ts.Do("GET", "/v2/gns3vm", nil).Want(t, 200).JSON(t)
	if vm["enable"] != false || vm["allocate_vcpus_ram"] != true || vm["engine"] != "vmware" || vm["when_exit"] != "stop" || vm["vmname"] != nil {
		t.Errorf("gns3vm %v", vm)
	}
	engines := ts.Do("GET", "/v2/gns3vm/engines", nil).Want(t, 200).List(t)
	var ids []string
	for _, e := range engines {
		ids = append(ids, e["engine_id"].(string))
	}
	if len(ids) < 3 || ids[0] != "vmware" || ids[1] != "virtualbox" || ids[2] != "remote" {
		t.Fatalf("engines %v, want vmware, virtualbox, remote first", ids)
	}
	if r := engines[2]; r["support_ram"] != false || r["support_headless"] != false || r["support_when_exit"] != false {
		t.Errorf("remote engine %v supports nothing in GNS3", r)
	}
	ts.Do("PUT", "/v2/gns3vm/engines", map[string]any{}).Want(t, 405)
	// The GUI lists an engine's VMs when one is chosen: none, for each.
	for _, id := range ids {
		if vms := ts.Do("GET", "/v2/gns3vm/engines/"+id+"/vms", nil).Want(t, 200).List(t); len(vms) != 0 {
			t.Errorf("%s VMs %v, want none", id, vms)
		}
	}
	if e := ts.Do("GET", "/v2/gns3vm/engines/parallels/vms", nil).Want(t, 404).JSON(t); !strings.Contains(e["message"].(string), "GET /v2/gns3vm/engines") {
		t.Errorf("unknown engine: %v, want a message naming the list", e)
	}
}

// TestIOULicense: GNS3's settings before any is saved, a partial PUT
// answered 201 with the whole settings, kept across a restart.
func TestIOULicense(t *testing.T) {
	ts := mustOpenServer(t)
	if l := ts.Do("GET", "/v2/iou_license", nil).Want(t, 200).JSON(t); l["iourc_content"] != "" || l["license_check"] != true {
		t.Errorf("default IOU license %v", l)
	}
	// The GUI's save: both fields.
	iourc := "[license]\nnodedesk = 0123456789abcdef;\n"
	l := ts.Do("PUT", "/v2/iou_license", map[string]any{"iourc_content": iourc, "license_check": true}).Want(t, 201).JSON(t)
	if l["iourc_content"] != iourc || l["license_check"] != true {
		t.Errorf("after PUT: %v", l)
	}
	l = ts.Do("PUT", "/v2/iou_license", map[string]any{"license_check": false}).Want(t, 201).JSON(t)
	if l["iourc_content"] != iourc || l["license_check"] != false {
		t.Errorf("a partial PUT changed more than its field: %v", l)
	}
	ts.Do("PUT", "/v2/iou_license", map[string]any{"license_check": false}).Want(t, 201) // no change
	for body, field := range map[string]string{
		`{"license_check": "yes"}`: "license_check",
		`{"iourc_content": null}`:  "iourc_content",
		`{"iourc": ""}`:            "iourc",
	} {
		if r := ts.Do("PUT", "/v2/iou_license", body).Want(t, 400).JSON(t); r["field"] != field {
			t.Errorf("%s: field %v, want %s", body, r["field"], field)
		}
	}
	ts.restart()
	if l := ts.Do("GET", "/v2/iou_license", nil).Want(t, 200).JSON(t); l["iourc_content"] != iourc || l["license_check"] != false {
		t.Errorf("after restart: %v", l)
	}
}

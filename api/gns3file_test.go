package api

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"nodedesk/app/hostnet"
)

// The ids of the lab labFile writes.
var (
	idPC1     = uuidN("00000001", 1)
	idSW1     = uuidN("00000001", 2)
	idHub1    = uuidN("00000001", 3)
	idFR1     = uuidN("00000001", 4)
	idATM1    = uuidN("00000001", 5)
	idCloud1  = uuidN("00000001", 6)
	idNAT1    = uuidN("00000001", 7)
	idQEMU1   = uuidN("00000001", 8)
	idR1      = uuidN("00000001", 9)
	idR2      = uuidN("00000001", 10)
	idIOU1    = uuidN("00000001", 11)
	idDocker1 = uuidN("00000001", 12)
	idVMware1 = uuidN("00000001", 13)
	idVBox1   = uuidN("00000001", 14)
	idTrace1  = uuidN("00000001", 15)
)

const labScript = "set pcname PC1\r\nip 10.0.0.1/24 10.0.0.254\r\n"

// labFile writes a lab of every node type GNS3 2.2 has, linked through the
// ports real files use (a Dynamips router's slot and WIC ports, a QEMU VM's
// fourth adapter, IOU serial ports, an ATM switch's VPI/VCI ports), as a
// GNS3 of that revision saves it.
func labFile(revision int) *gns3Project {
	g := newGNS3Project("lab", revision)
	g.top["grid_size"], g.top["drawing_grid_size"] = 50, 10
	g.top["variables"] = []any{map[string]any{"name": "site", "value": "lyon"}}
	g.top["supplier"] = map[string]any{"logo": "logo.png", "url": "https://example.com"}

	vpcsProps := map[string]any{}
	if revision < 8 { // GNS3 2.0 kept the script in the properties
		vpcsProps = map[string]any{"startup_script": labScript, "startup_script_path": "startup.vpc"}
	} else {
		g.files["project-files/vpcs/"+idPC1+"/startup.vpc"] = labScript
	}
	g.node(idPC1, "vpcs", "PC1", -200, -100, vpcsProps, map[string]any{"console": 5100, "console_type": "telnet", "symbol": ":/symbols/vpcs_guest.svg"})
	swPorts := []any{}
	for i := range 8 {
		p := map[string]any{"name": fmt.Sprintf("Ethernet%d", i), "port_number": i, "type": "access", "vlan": 1}
		switch i {
		case 1:
			p["type"] = "dot1q"
		case 2:
			p["type"], p["vlan"], p["ethertype"] = "qinq", 100, "0x88A8"
		case 3:
			p["vlan"] = 20
		}
		swPorts = append(swPorts, p)
	}
	g.node(idSW1, "ethernet_switch", "SW1", 0, 0, map[string]any{"ports_mapping": swPorts}, map[string]any{"symbol": ":/symbols/ethernet_switch.svg", "width": 72, "height": 32})
	hubPorts := []any{}
	for i := range 4 {
		hubPorts = append(hubPorts, map[string]any{"name": fmt.Sprintf("Ethernet%d", i), "port_number": i})
	}
	g.node(idHub1, "ethernet_hub", "HUB1", 200, 0, map[string]any{"ports_mapping": hubPorts}, map[string]any{"symbol": ":/symbols/hub.svg"})
	g.node(idFR1, "frame_relay_switch", "FR1", 400, 0, map[string]any{"mappings": map[string]any{"1:101": "2:201", "3:301": "4:401"}}, map[string]any{"symbol": ":/symbols/frame_relay_switch.svg"})
	g.node(idATM1, "atm_switch", "ATM1", 400, 200, map[string]any{"mappings": map[string]any{"1:0:100": "10:0:200"}}, map[string]any{"symbol": ":/symbols/atm_switch.svg"})
	g.node(idCloud1, "cloud", "Cloud1", 200, 200, map[string]any{
		"interfaces": []any{map[string]any{"name": "eth0", "special": false, "type": "ethernet"}},
		"ports_mapping": []any{
			map[string]any{"interface": "eth0", "name": "eth0", "port_number": 0, "type": "ethernet"},
			map[string]any{"lport": 20001, "name": "UDP tunnel 1", "port_number": 1, "rhost": "192.0.2.1", "rport": 20002, "type": "udp"},
		},
		"remote_console_host": "", "remote_console_port": 23, "remote_console_type": "none", "remote_console_http_path": "/",
	}, map[string]any{"symbol": ":/symbols/cloud.svg"})
	g.node(idNAT1, "nat", "NAT1", 0, 200, map[string]any{"ports_mapping": []any{map[string]any{"interface": "virbr0", "name": "nat0", "port_number": 0, "type": "ethernet"}}}, map[string]any{"symbol": ":/symbols/nat.svg"})
	qemu := map[string]any{"adapters": 4, "adapter_type": "e1000", "hda_disk_image": "linux.qcow2", "mac_address": "0c:7b:6a:00:00:00", "ram": 256}
	switch revision {
	case 7:
		qemu["acpi_shutdown"] = true
	case 8:
		qemu["acpi_shutdown"], qemu["save_vm_state"] = false, false
	default:
		qemu["on_close"] = "power_off"
	}
	g.node(idQEMU1, "qemu", "QEMU1", -200, 100, qemu, map[string]any{"console": 5101, "console_type": "telnet", "port_name_format": "eth{0}",
		"custom_adapters": []any{map[string]any{"adapter_number": 2, "port_name": "mgmt"}}, "symbol": ":/symbols/qemu_guest.svg"})
	r1 := map[string]any{"platform": "c7200", "image": "c7200-adventerprisek9-mz.124-24.T5.image", "ram": 512, "dynamips_id": 1, "mac_addr": "ca01.1234.0000",
		"slot0": "C7200-IO-FE", "slot1": "PA-4T+", "slot2": nil, "slot3": "PA-A1", "slot4": nil, "slot5": nil, "slot6": nil}
	if revision < 8 {
		r1["startup_config_content"] = "hostname R1\n"
	}
	g.node(idR1, "dynamips", "R1", 0, -200, r1, map[string]any{"console": 5102, "console_type": "telnet", "symbol": ":/symbols/router.svg"})
	g.node(idR2, "dynamips", "R2", 200, -200, map[string]any{"platform": "c3745", "image": "c3745-adventerprisek9-mz.124-25d.image", "ram": 256, "dynamips_id": 2,
		"slot0": "GT96100-FE", "slot1": "NM-1FE-TX", "slot2": nil, "slot3": nil, "slot4": nil, "wic0": "WIC-2T", "wic1": nil, "wic2": "WIC-1T"},
		map[string]any{"console": 5103, "console_type": "telnet", "symbol": ":/symbols/router.svg"})
	g.node(idIOU1, "iou", "IOU1", -400, 0, map[string]any{"path": "i86bi-linux-l3.bin", "ethernet_adapters": 2, "serial_adapters": 1, "application_id": 1},
		map[string]any{"console": 5104, "console_type": "telnet", "port_name_format": "Ethernet{segment0}/{port0}", "port_segment_size": 4, "symbol": ":/symbols/multilayer_switch.svg"})
	g.node(idDocker1, "docker", "Docker1", -400, 200, map[string]any{"image": "alpine:latest", "adapters": 2, "start_command": nil, "environment": nil},
		map[string]any{"console": 5105, "console_type": "telnet", "symbol": ":/symbols/docker_guest.svg"})
	g.node(idVMware1, "vmware", "VMware1", -400, -200, map[string]any{"vmx_path": "/vms/w.vmx", "adapters": 1}, map[string]any{"symbol": ":/symbols/vmware_guest.svg"})
	g.node(idVBox1, "virtualbox", "VBox1", -400, 400, map[string]any{"vmname": "vm1", "adapters": 2}, map[string]any{"symbol": ":/symbols/vbox_guest.svg"})
	g.node(idTrace1, "traceng", "TraceNG1", 0, 400, map[string]any{"ip_address": "10.0.0.9", "default_destination": "10.0.0.1"}, map[string]any{"symbol": ":/symbols/traceng.svg"})

	label := map[string]any{"text": "e0", "style": "font-size: 10;", "x": 12, "y": -4, "rotation": 90}
	g.link(uuidN("00000002", 1), []any{idPC1, 0, 0, label}, []any{idSW1, 0, 0}, nil)
	g.link(uuidN("00000002", 2), []any{idSW1, 0, 1}, []any{idQEMU1, 3, 0}, map[string]any{
		"filters":    map[string]any{"delay": []any{100, 10}, "packet_loss": []any{5}},
		"link_style": map[string]any{"color": "#ff0000", "width": 3, "type": 2},
	})
	g.link(uuidN("00000002", 3), []any{idR1, 1, 1}, []any{idFR1, 0, 1}, nil)
	g.link(uuidN("00000002", 4), []any{idR2, 0, 16}, []any{idFR1, 0, 2}, nil)
	g.link(uuidN("00000002", 5), []any{idR2, 0, 48}, []any{idFR1, 0, 3}, nil)
	g.link(uuidN("00000002", 6), []any{idR1, 3, 0}, []any{idATM1, 0, 1}, nil)
	g.link(uuidN("00000002", 7), []any{idIOU1, 1, 2}, []any{idHub1, 0, 1}, nil)
	g.link(uuidN("00000002", 8), []any{idIOU1, 2, 0}, []any{idFR1, 0, 4}, nil)
	g.link(uuidN("00000002", 9), []any{idDocker1, 1, 0}, []any{idSW1, 0, 2}, map[string]any{"suspend": true})
	g.link(uuidN("00000002", 10), []any{idCloud1, 0, 1}, []any{idHub1, 0, 2}, nil)
	g.link(uuidN("00000002", 11), []any{idNAT1, 0, 0}, []any{idSW1, 0, 3}, nil)
	g.link(uuidN("00000002", 12), []any{idTrace1, 0, 0}, []any{idSW1, 0, 4}, nil)
	g.link(uuidN("00000002", 13), []any{idVMware1, 0, 0}, []any{idSW1, 0, 5}, nil)
	g.link(uuidN("00000002", 14), []any{idVBox1, 1, 0}, []any{idHub1, 0, 3}, nil)
	g.link(uuidN("00000002", 15), []any{idR1, 0, 0}, []any{idSW1, 0, 6}, nil)
	g.link(uuidN("00000002", 16), []any{idR2, 1, 0}, []any{idSW1, 0, 7}, nil)

	g.drawing(uuidN("00000003", 1), `<svg height="100" width="200"><rect fill="#ffffff" height="100" width="200" /></svg>`, -300, -200, 0, 0, false)
	g.drawing(uuidN("00000003", 2), "my-picture.png", 10, 20, 2, 45, true)
	g.files["project-files/images/my-picture.png"] = "\x89PNG\r\n\x1a\nnot really"
	g.files["project-files/qemu/"+idQEMU1+"/notes.txt"] = "qemu notes"
	g.files["project-files/dynamips/"+idR1+"/configs/i1_startup-config.cfg"] = "hostname R1\n"
	g.files["README.txt"] = "read me"
	return g
}

// byName indexes GET answers by name.
func byName(list []map[string]any) map[string]map[string]any {
	m := map[string]map[string]any{}
	for _, x := range list {
		m[x["name"].(string)] = x
	}
	return m
}

// portNames lists a node's ports as "adapter/port name".
func portNames(n map[string]any) []string {
	var out []string
	for _, p := range n["ports"].([]any) {
		p := p.(map[string]any)
		out = append(out, fmt.Sprintf("%v/%v %v %v", p["adapter_number"], p["port_number"], p["name"], p["link_type"]))
	}
	return out
}

// checkLab checks that a project holds labFile's lab.
func checkLab(t *testing.T, st projectState, revision int) {
	t.Helper()
	nodes := byName(st.nodes)
	if len(st.nodes) != 15 || len(st.links) != 16 || len(st.drawings) != 2 {
		t.Fatalf("%d nodes, %d links, %d drawings; want 15, 16, 2", len(st.nodes), len(st.links), len(st.drawings))
	}
	for name, typ := range map[string]string{"PC1": "vpcs", "SW1": "ethernet_switch", "HUB1": "ethernet_hub", "FR1": "frame_relay_switch",
		"ATM1": "atm_switch", "Cloud1": "cloud", "NAT1": "nat", "QEMU1": "qemu", "R1": "dynamips", "R2": "dynamips", "IOU1": "iou",
		"Docker1": "docker", "VMware1": "vmware", "VBox1": "virtualbox", "TraceNG1": "traceng"} {
		n := nodes[name]
		if n == nil || n["node_type"] != typ || n["compute_id"] != "local" {
			t.Errorf("node %s: %v", name, n)
		}
	}
	pc := nodes["PC1"]
	if pc["properties"].(map[string]any)["startup_script"] != labScript || pc["x"] != -200.0 || pc["y"] != -100.0 || pc["z"] != 1.0 ||
		pc["console"] != 5100.0 || pc["status"] != "stopped" || pc["symbol"] != ":/symbols/vpcs_guest.svg" {
		t.Errorf("PC1 %v", pc)
	}
	if l := pc["label"].(map[string]any); l["text"] != "PC1" || l["x"] != 10.0 || l["y"] != -25.0 || !strings.Contains(l["style"].(string), "TypeWriter") {
		t.Errorf("PC1's label %v", l)
	}
	if p := nodes["SW1"]["properties"].(map[string]any)["ports_mapping"].([]any); len(p) != 8 ||
		p[2].(map[string]any)["ethertype"] != "0x88A8" || p[2].(map[string]any)["vlan"] != 100.0 || p[3].(map[string]any)["vlan"] != 20.0 {
		t.Errorf("SW1's ports %v", p)
	}
	q := nodes["QEMU1"]["properties"].(map[string]any)
	wantOnClose := map[int]string{7: "save_vm_state", 8: "power_off", 9: "power_off"}[revision]
	if q["on_close"] != wantOnClose || q["acpi_shutdown"] != nil || q["save_vm_state"] != nil || q["adapters"] != 4.0 || q["hda_disk_image"] != "linux.qcow2" {
		t.Errorf("QEMU1's properties %v; want on_close %s from revision %d", q, wantOnClose, revision)
	}
	r1 := nodes["R1"]["properties"].(map[string]any)
	if _, ok := r1["startup_config_content"]; ok || r1["platform"] != "c7200" {
		t.Errorf("R1's properties %v", r1)
	}
	if v, ok := r1["slot2"]; !ok || v != nil {
		t.Errorf("R1's empty slot2 is %v (present %v); want null, kept as given", v, ok)
	}
	for name, want := range map[string][]string{
		"QEMU1":    {"0/0 eth0 ethernet", "1/0 eth1 ethernet", "2/0 mgmt ethernet", "3/0 eth3 ethernet"},
		"R1":       {"0/0 FastEthernet0/0 ethernet", "1/0 Serial1/0 serial", "1/1 Serial1/1 serial", "1/2 Serial1/2 serial", "1/3 Serial1/3 serial", "3/0 ATM3/0 serial"},
		"R2":       {"0/0 FastEthernet0/0 ethernet", "0/1 FastEthernet0/1 ethernet", "1/0 FastEthernet1/0 ethernet", "0/16 Serial0/0 serial", "0/17 Serial0/1 serial", "0/48 Serial0/2 serial"},
		"IOU1":     {"0/0 Ethernet0/0 ethernet", "0/1 Ethernet0/1 ethernet", "0/2 Ethernet0/2 ethernet", "0/3 Ethernet0/3 ethernet", "1/0 Ethernet1/0 ethernet", "1/1 Ethernet1/1 ethernet", "1/2 Ethernet1/2 ethernet", "1/3 Ethernet1/3 ethernet", "2/0 Serial2/0 serial", "2/1 Serial2/1 serial", "2/2 Serial2/2 serial", "2/3 Serial2/3 serial"},
		"Docker1":  {"0/0 eth0 ethernet", "1/0 eth1 ethernet"},
		"ATM1":     {"0/1 1 serial", "0/10 10 serial"},
		"FR1":      {"0/1 1 serial", "0/2 2 serial", "0/3 3 serial", "0/4 4 serial"},
		"TraceNG1": {"0/0 Ethernet0 ethernet"},
		"VBox1":    {"0/0 Ethernet0 ethernet", "1/0 Ethernet1 ethernet"},
	} {
		if got := portNames(nodes[name]); !reflect.DeepEqual(got, want) {
			t.Errorf("%s's ports %v, want %v", name, got, want)
		}
	}
	names := map[any]string{}
	for _, n := range st.nodes {
		names[n["node_id"]] = n["name"].(string)
	}
	var ends []string
	for _, l := range st.links {
		var e []string
		for _, x := range l["nodes"].([]any) {
			x := x.(map[string]any)
			e = append(e, fmt.Sprintf("%s %v/%v", names[x["node_id"]], x["adapter_number"], x["port_number"]))
		}
		ends = append(ends, strings.Join(e, " - "))
		switch strings.Join(e, " - ") {
		case "PC1 0/0 - SW1 0/0":
			if lb := l["nodes"].([]any)[0].(map[string]any)["label"].(map[string]any); lb["text"] != "e0" || lb["x"] != 12.0 || lb["y"] != -4.0 || lb["rotation"] != 90.0 || lb["style"] != "font-size: 10;" {
				t.Errorf("label %v", lb)
			}
		case "SW1 0/1 - QEMU1 3/0":
			if f := l["filters"].(map[string]any); !reflect.DeepEqual(f, map[string]any{"delay": []any{100.0, 10.0}, "packet_loss": []any{5.0}}) {
				t.Errorf("filters %v", f)
			}
			if s := l["link_style"].(map[string]any); s["color"] != "#ff0000" || s["width"] != 3.0 || s["type"] != 2.0 {
				t.Errorf("link style %v", s)
			}
		case "Docker1 1/0 - SW1 0/2":
			if l["suspend"] != true {
				t.Errorf("link %v lost its suspension", e)
			}
		}
	}
	want := []string{"PC1 0/0 - SW1 0/0", "SW1 0/1 - QEMU1 3/0", "R1 1/1 - FR1 0/1", "R2 0/16 - FR1 0/2", "R2 0/48 - FR1 0/3", "R1 3/0 - ATM1 0/1",
		"IOU1 1/2 - HUB1 0/1", "IOU1 2/0 - FR1 0/4", "Docker1 1/0 - SW1 0/2", "Cloud1 0/1 - HUB1 0/2", "NAT1 0/0 - SW1 0/3", "TraceNG1 0/0 - SW1 0/4",
		"VMware1 0/0 - SW1 0/5", "VBox1 1/0 - HUB1 0/3", "R1 0/0 - SW1 0/6", "R2 1/0 - SW1 0/7"}
	if !reflect.DeepEqual(ends, want) {
		t.Errorf("links %v\nwant %v", ends, want)
	}
	d := st.drawings[1]
	if d["svg"] != "my-picture.png" || d["x"] != 10.0 || d["y"] != 20.0 || d["z"] != 2.0 || d["rotation"] != 45.0 || d["locked"] != true {
		t.Errorf("drawing %v", d)
	}
	if !strings.HasPrefix(st.drawings[0]["svg"].(string), "<svg") {
		t.Errorf("drawing %v", st.drawings[0])
	}
}

// TestProjectImportExport imports a lab written by GNS3 2.0, 2.1 and 2.2
// (revisions 7, 8, 9), checks every node, port, link and drawing, exports
// it, checks the archive is GNS3 2.2's (revision 9 topology dump, node
// files), imports that and finds the same project.
func TestProjectImportExport(t *testing.T) {
	for _, rev := range []int{7, 8, 9} {
		t.Run(fmt.Sprintf("revision %d", rev), func(t *testing.T) {
			ts := mustOpenServer(t)
			g := labFile(rev)
			ctl, _ := ts.WSListen(t, "/v2/notifications/ws")
			pid := uuidN("0000000a", rev)
			p := ts.importArchive(pid, g.archive(t), "").Want(t, 201).JSON(t)
			if p["project_id"] != pid || p["name"] != "lab" || p["status"] != "closed" || p["auto_open"] != false || p["auto_close"] != true {
				t.Errorf("imported project %v", p)
			}
			wantDrawingGrid := map[int]float64{7: 50, 8: 50, 9: 10}[rev] // before 2.2, drawings took the grid size
			if p["grid_size"] != 50.0 || p["drawing_grid_size"] != wantDrawingGrid || p["supplier"].(map[string]any)["url"] != "https://example.com" ||
				p["variables"].([]any)[0].(map[string]any)["value"] != "lyon" {
				t.Errorf("imported settings %v", p)
			}
			if e := ctl(); e.Action != "project.created" || e.Event["project_id"] != pid {
				t.Errorf("event %v", e)
			}
			first := ts.state(t, pid)
			checkLab(t, first, rev)
			nodes := byName(first.nodes)
			for _, n := range first.nodes {
				if n["node_id"] == idPC1 || strings.HasPrefix(n["node_id"].(string), "00000001-") {
					t.Errorf("node %s kept the file's id %v; an import gives new ones", n["name"], n["node_id"])
				}
			}
			// The node folders followed their nodes to their new ids.
			base := "/v2/projects/" + pid
			if r := ts.Do("GET", base+"/files/project-files/qemu/"+nodes["QEMU1"]["node_id"].(string)+"/notes.txt", nil).Want(t, 200); string(r.Body) != "qemu notes" {
				t.Errorf("qemu notes %q", r.Body)
			}
			if r := ts.Do("GET", base+"/files/README.txt", nil).Want(t, 200); string(r.Body) != "read me" {
				t.Errorf("README %q", r.Body)
			}
			if r := ts.Do("GET", base+"/files/project-files/vpcs/"+nodes["PC1"]["node_id"].(string)+"/startup.vpc", nil).Want(t, 200); string(r.Body) != labScript {
				t.Errorf("startup.vpc through the project's files: %q", r.Body)
			}
			// A node nodedesk does not run says so.
			r := ts.Do("POST", base+"/nodes/"+nodes["TraceNG1"]["node_id"].(string)+"/start", nil).Want(t, 409).JSON(t)
			if !strings.HasPrefix(r["message"].(string), "nodedesk does not run traceng nodes") {
				t.Errorf("start of TraceNG1: %v", r["message"])
			}

			// Export: GNS3 2.2's archive.
			res := ts.Do("GET", base+"/export", nil).Want(t, 200)
			if ct, cd := res.Header.Get("Content-Type"), res.Header.Get("Content-Disposition"); ct != "application/gns3project" || cd != `attachment; filename="lab.gns3project"` {
				t.Errorf("headers %q %q", ct, cd)
			}
			entries := readZip(t, res.Body)
			checkTopologyDump(t, entries["project.gns3"], pid)
			for path, want := range map[string]string{
				"project-files/vpcs/" + nodes["PC1"]["node_id"].(string) + "/startup.vpc": labScript,
				"project-files/qemu/" + nodes["QEMU1"]["node_id"].(string) + "/notes.txt": "qemu notes",
				"project-files/images/my-picture.png":                                     g.files["project-files/images/my-picture.png"],
				"README.txt":                                                              "read me",
			} {
				if got, ok := entries[path]; !ok || string(got) != want {
					t.Errorf("export's %s = %q (%v), want %q", path, got, ok, want)
				}
			}

			// And back: the same project.
			again := uuidN("0000000b", rev)
			p2 := ts.importArchive(again, res.Body, "name=lab").Want(t, 201).JSON(t)
			if p2["name"] != "lab-1" {
				t.Errorf("second import named %v, want lab-1 (GNS3's free name)", p2["name"])
			}
			second := ts.state(t, again)
			if a, b := normalized(first), normalized(second); !reflect.DeepEqual(a, b) {
				diffStates(t, a, b)
			}
			for i, n := range second.nodes {
				if n["console"] != nil && n["console"] == first.nodes[i]["console"] {
					t.Errorf("%s got console %v, which the first import's %s owns", n["name"], n["console"], first.nodes[i]["name"])
				}
			}
		})
	}
}

// diffStates reports where two normalized states differ.
func diffStates(t *testing.T, a, b map[string]any) {
	t.Helper()
	for _, k := range []string{"nodes", "links", "drawings"} {
		x, y := a[k].([]any), b[k].([]any)
		if len(x) != len(y) {
			t.Errorf("%s: %d, then %d", k, len(x), len(y))
			continue
		}
		for i := range x {
			if !reflect.DeepEqual(x[i], y[i]) {
				t.Errorf("%s %d differs after export and import:\n%v\n%v", k, i, x[i], y[i])
			}
		}
	}
}

// checkTopologyDump checks an exported project.gns3 against the shape GNS3
// 2.2 validates (its TOPOLOGY_SCHEMA): revision 9, the keys GNS3 writes
// and no other, no computes, every node on compute local.
func checkTopologyDump(t *testing.T, raw []byte, pid string) {
	t.Helper()
	var top map[string]any
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatalf("project.gns3: %v", err)
	}
	keys := func(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
	want := []string{"auto_close", "auto_open", "auto_start", "drawing_grid_size", "grid_size", "name", "project_id", "revision", "scene_height",
		"scene_width", "show_grid", "show_interface_labels", "show_layers", "snap_to_grid", "supplier", "topology", "type", "variables", "version", "zoom"}
	if got := keys(top); !reflect.DeepEqual(got, want) {
		t.Errorf("top keys %v", got)
	}
	if top["revision"] != 9.0 || top["type"] != "topology" || top["project_id"] != pid || top["version"] != GNS3Version {
		t.Errorf("header %v %v %v %v", top["revision"], top["type"], top["project_id"], top["version"])
	}
	topo := top["topology"].(map[string]any)
	if got := keys(topo); !reflect.DeepEqual(got, []string{"computes", "drawings", "links", "nodes"}) || len(topo["computes"].([]any)) != 0 {
		t.Errorf("topology %v, computes %v", got, topo["computes"])
	}
	nodeKeys := []string{"compute_id", "console", "console_auto_start", "console_type", "custom_adapters", "first_port_name", "height", "label", "locked",
		"name", "node_id", "node_type", "port_name_format", "port_segment_size", "properties", "symbol", "template_id", "width", "x", "y", "z"}
	for _, n := range topo["nodes"].([]any) {
		n := n.(map[string]any)
		if got := keys(n); !reflect.DeepEqual(got, nodeKeys) || n["compute_id"] != "local" {
			t.Errorf("node keys %v, compute %v", got, n["compute_id"])
		}
		if ct := n["console_type"]; !slices.Contains([]any{"telnet", "vnc", "http", "none"}, ct) {
			t.Errorf("node %v: console_type %v", n["name"], ct)
		}
		if n["node_type"] == "vpcs" && len(n["properties"].(map[string]any)) != 0 {
			t.Errorf("VPCS properties %v; GNS3 2.2 keeps the script in startup.vpc", n["properties"])
		}
	}
	for _, l := range topo["links"].([]any) {
		if got := keys(l.(map[string]any)); !reflect.DeepEqual(got, []string{"filters", "link_id", "link_style", "nodes", "suspend"}) {
			t.Errorf("link keys %v", got)
		}
	}
	for _, d := range topo["drawings"].([]any) {
		if got := keys(d.(map[string]any)); !reflect.DeepEqual(got, []string{"drawing_id", "locked", "rotation", "svg", "x", "y", "z"}) {
			t.Errorf("drawing keys %v", got)
		}
	}
}

// TestProjectExportOptions: compression none stores, reset_mac_addresses
// clears MACs, include_snapshots adds each snapshot as an archive GNS3
// names by its date, a running project is refused, bad options are 400.
func TestProjectExportOptions(t *testing.T) {
	ts := mustOpenServer(t)
	pid := uuidN("0000000c", 1)
	ts.importArchive(pid, labFile(9).archive(t), "").Want(t, 201)
	base := "/v2/projects/" + pid
	ts.Do("POST", base+"/snapshots", map[string]any{"name": "before"}).Want(t, 201)

	plain := ts.Do("GET", base+"/export?compression=none&reset_mac_addresses=yes&include_images=yes&include_snapshots=yes", nil).Want(t, 200)
	zr, err := zip.NewReader(bytes.NewReader(plain.Body), int64(len(plain.Body)))
	if err != nil {
		t.Fatal(err)
	}
	var snapshot string
	for _, f := range zr.File {
		if f.Method != zip.Store {
			t.Errorf("%s compressed with method %d, want stored", f.Name, f.Method)
		}
		if strings.HasPrefix(f.Name, "snapshots/") {
			snapshot = f.Name
		}
	}
	entries := readZip(t, plain.Body)
	if !strings.HasPrefix(snapshot, "snapshots/before_") || !strings.HasSuffix(snapshot, ".gns3project") {
		t.Fatalf("snapshot entry %q", snapshot)
	}
	inner := readZip(t, entries[snapshot])
	checkTopologyDump(t, inner["project.gns3"], pid)
	for name, props := range nodeProperties(t, entries["project.gns3"]) {
		for _, k := range []string{"mac_address", "mac_addr"} {
			if v, ok := props[k]; ok && v != nil {
				t.Errorf("%s's %s is %v after reset_mac_addresses", name, k, v)
			}
		}
	}
	// The default: deflated, no snapshots.
	for _, f := range readZipFiles(t, ts.Do("GET", base+"/export", nil).Want(t, 200).Body) {
		if f.Method != zip.Deflate || strings.HasPrefix(f.Name, "snapshots/") {
			t.Errorf("default export's %s (method %d)", f.Name, f.Method)
		}
	}
	for _, q := range []string{"compression=bzip2", "compression=lzma", "compression=rar", "include_snapshots=maybe"} {
		ts.Do("GET", base+"/export?"+q, nil).Want(t, 400)
	}
	ts.Do("GET", "/v2/projects/"+uuidN("0000000c", 9)+"/export", nil).Want(t, 404)

	// A running node: GNS3's refusal.
	pc := byName(ts.Do("GET", base+"/nodes", nil).List(t))["PC1"]["node_id"].(string)
	ts.Do("POST", base+"/nodes/"+pc+"/start", nil).Want(t, 200)
	r := ts.Do("GET", base+"/export", nil).Want(t, 409).JSON(t)
	if !strings.HasPrefix(r["message"].(string), "Project must be stopped in order to export it") || !strings.Contains(r["message"].(string), "PC1") {
		t.Errorf("409 %v", r["message"])
	}
	ts.Do("POST", base+"/nodes/"+pc+"/stop", nil).Want(t, 200)
	ts.Do("GET", base+"/export", nil).Want(t, 200)

	// A name that needs more than ASCII.
	ts.Do("PUT", base, map[string]any{"name": `café "lab"`}).Want(t, 200)
	if cd := ts.Do("GET", base+"/export", nil).Want(t, 200).Header.Get("Content-Disposition"); cd != `attachment; filename="caf_ _lab_.gns3project"; filename*=UTF-8''caf%C3%A9%20%22lab%22.gns3project` {
		t.Errorf("Content-Disposition %s", cd)
	}
}

func readZipFiles(t *testing.T, b []byte) []*zip.File {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return zr.File
}

// TestProjectImportQuirks imports files with the quirks real GNS3 files
// have, each on its own, and checks what nodedesk made of them.
func TestProjectImportQuirks(t *testing.T) {
	ts := mustOpenServer(t)
	pcID, swID := uuidN("00000004", 1), uuidN("00000004", 2)
	basic := func(rev int) *gns3Project {
		g := newGNS3Project("quirk", rev)
		g.node(pcID, "vpcs", "PC1", 1, 2, map[string]any{}, map[string]any{"console": 5200, "console_type": "telnet"})
		g.node(swID, "ethernet_switch", "SW1", 3, 4, map[string]any{"ports_mapping": []any{map[string]any{"name": "Ethernet0", "port_number": 0, "type": "access", "vlan": 1}}}, nil)
		g.link(uuidN("00000005", 1), []any{pcID, 0, 0}, []any{swID, 0, 0}, nil)
		return g
	}
	type check func(t *testing.T, p map[string]any, st projectState)
	for i, c := range []struct {
		name  string
		give  func() []byte
		check check
	}{
		{"optional keys missing", func() []byte {
			g := basic(9)
			for _, k := range []string{"grid_size", "drawing_grid_size", "supplier", "variables", "auto_close", "auto_open", "auto_start", "zoom", "scene_width", "scene_height", "show_grid", "snap_to_grid", "show_layers", "show_interface_labels"} {
				delete(g.top, k)
			}
			for _, n := range g.nodes {
				for _, k := range []string{"locked", "template_id", "console_auto_start", "custom_adapters", "width", "height", "first_port_name", "port_name_format", "port_segment_size", "z", "label", "symbol"} {
					delete(n, k)
				}
			}
			for _, l := range g.links {
				delete(l, "filters")
				delete(l, "link_style")
				delete(l, "suspend")
			}
			return g.json(t)
		}, func(t *testing.T, p map[string]any, st projectState) {
			if p["grid_size"] != 75.0 || p["drawing_grid_size"] != 25.0 || p["zoom"] != 100.0 || p["supplier"] != nil || p["variables"] != nil {
				t.Errorf("defaults %v", p)
			}
			n := byName(st.nodes)["PC1"]
			if n["z"] != 1.0 || n["locked"] != false || n["symbol"] != ":/symbols/vpcs_guest.svg" || n["label"].(map[string]any)["text"] != "PC1" || n["port_name_format"] != "Ethernet{0}" {
				t.Errorf("node defaults %v", n)
			}
		}},
		{"remote compute by UUID", func() []byte {
			g := basic(9)
			g.nodes[0]["compute_id"] = "a4c3b1e2-0000-4000-8000-000000000001"
			return g.json(t)
		}, func(t *testing.T, p map[string]any, st projectState) {
			if n := byName(st.nodes)["PC1"]; n["compute_id"] != "local" {
				t.Errorf("compute %v", n["compute_id"])
			}
		}},
		{"console_type null and spice", func() []byte {
			g := basic(9)
			g.node(uuidN("00000004", 3), "qemu", "VM1", 0, 0, map[string]any{"adapters": 1}, map[string]any{"console_type": nil, "console": 5300})
			g.node(uuidN("00000004", 4), "qemu", "VM2", 0, 0, map[string]any{"adapters": 1}, map[string]any{"console_type": "spice", "console": 5301})
			g.node(uuidN("00000004", 5), "docker", "D1", 0, 0, map[string]any{"adapters": 1}, map[string]any{"console_type": "https", "console": 5302})
			g.nodes[0]["console_type"] = "none" // a VPCS always has a telnet console here
			return g.json(t)
		}, func(t *testing.T, p map[string]any, st projectState) {
			n := byName(st.nodes)
			if n["VM1"]["console_type"] != nil || n["VM1"]["console"] != nil {
				t.Errorf("VM1 console %v %v", n["VM1"]["console_type"], n["VM1"]["console"])
			}
			if c, _ := n["VM2"]["console"].(float64); n["VM2"]["console_type"] != "vnc" || c < 5900 || n["D1"]["console_type"] != "http" {
				t.Errorf("spice/https consoles %v %v %v", n["VM2"]["console_type"], n["VM2"]["console"], n["D1"]["console_type"])
			}
			if n["PC1"]["console_type"] != "telnet" || n["PC1"]["console"] == nil {
				t.Errorf("PC1 console %v %v", n["PC1"]["console_type"], n["PC1"]["console"])
			}
		}},
		{"first_port_name null and empty", func() []byte {
			g := basic(9)
			g.node(uuidN("00000004", 3), "qemu", "VM1", 0, 0, map[string]any{"adapters": 2}, map[string]any{"first_port_name": ""})
			g.node(uuidN("00000004", 4), "qemu", "VM2", 0, 0, map[string]any{"adapters": 2}, map[string]any{"first_port_name": "mgmt0"})
			return g.json(t)
		}, func(t *testing.T, p map[string]any, st projectState) {
			n := byName(st.nodes)
			if got := portNames(n["VM1"]); n["VM1"]["first_port_name"] != "" || !reflect.DeepEqual(got, []string{"0/0 Ethernet0 ethernet", "1/0 Ethernet1 ethernet"}) {
				t.Errorf("VM1 %v %v", n["VM1"]["first_port_name"], got)
			}
			if got := portNames(n["VM2"]); !reflect.DeepEqual(got, []string{"0/0 mgmt0 ethernet", "1/0 Ethernet0 ethernet"}) {
				t.Errorf("VM2 ports %v", got)
			}
			if n["PC1"]["first_port_name"] != nil {
				t.Errorf("PC1 first_port_name %v", n["PC1"]["first_port_name"])
			}
		}},
		{"custom symbol and image drawing", func() []byte {
			g := basic(9)
			g.nodes[0]["symbol"] = "my_router.svg"
			g.drawing(uuidN("00000006", 1), "photo.jpg", 5, 6, 1, 0, false)
			return g.json(t)
		}, func(t *testing.T, p map[string]any, st projectState) {
			if n := byName(st.nodes)["PC1"]; n["symbol"] != "my_router.svg" || n["width"] != 65.0 {
				t.Errorf("symbol %v, width %v", n["symbol"], n["width"])
			}
			if st.drawings[0]["svg"] != "photo.jpg" {
				t.Errorf("drawing %v", st.drawings[0])
			}
		}},
		{"CRLF line endings and a BOM", func() []byte {
			raw := strings.ReplaceAll(string(basic(9).json(t)), "\n", "\r\n")
			return []byte("\xef\xbb\xbf" + raw)
		}, func(t *testing.T, p map[string]any, st projectState) {
			if len(st.nodes) != 2 || len(st.links) != 1 {
				t.Errorf("%d nodes %d links", len(st.nodes), len(st.links))
			}
		}},
		{"BOM inside an archive", func() []byte {
			return makeZip(t, zipEntry{name: "project.gns3", body: append([]byte("\xef\xbb\xbf"), basic(9).json(t)...)})
		}, func(t *testing.T, p map[string]any, st projectState) {
			if len(st.nodes) != 2 {
				t.Errorf("%d nodes", len(st.nodes))
			}
		}},
		{"Frame Relay and ATM mappings", func() []byte {
			g := basic(9)
			g.node(uuidN("00000004", 3), "frame_relay_switch", "FR1", 0, 0, map[string]any{"mappings": map[string]any{"1:102": "2:201", "1:103": "3:301"}}, nil)
			g.node(uuidN("00000004", 4), "atm_switch", "ATM1", 0, 0, map[string]any{"mappings": map[string]any{"1:0:100": "2:0:200", "1:1:100": "3:0:300"}}, nil)
			g.link(uuidN("00000005", 2), []any{uuidN("00000004", 3), 0, 3}, []any{uuidN("00000004", 4), 0, 3}, nil)
			return g.json(t)
		}, func(t *testing.T, p map[string]any, st projectState) {
			n := byName(st.nodes)
			if got := portNames(n["FR1"]); !reflect.DeepEqual(got, []string{"0/1 1 serial", "0/2 2 serial", "0/3 3 serial"}) {
				t.Errorf("FR ports %v", got)
			}
			if got := portNames(n["ATM1"]); !reflect.DeepEqual(got, []string{"0/1 1 serial", "0/2 2 serial", "0/3 3 serial"}) {
				t.Errorf("ATM ports %v", got)
			}
			if m := n["FR1"]["properties"].(map[string]any)["mappings"].(map[string]any); m["1:103"] != "3:301" {
				t.Errorf("FR mappings %v", m)
			}
		}},
		{"revision 9 of 2.2's development", func() []byte {
			g := basic(9)
			g.nodes[0]["appliance_id"] = "19021f99-e36f-394d-b4a1-8aaa902ab9cc"
			delete(g.nodes[0], "template_id")
			g.top["variables"] = []any{map[string]any{"name": ""}, map[string]any{"name": "x", "value": "1"}}
			return g.json(t)
		}, func(t *testing.T, p map[string]any, st projectState) {
			if n := byName(st.nodes)["PC1"]; n["template_id"] != "19021f99-e36f-394d-b4a1-8aaa902ab9cc" {
				t.Errorf("template_id %v", n["template_id"])
			}
			if v := p["variables"].([]any); len(v) != 1 || v[0].(map[string]any)["name"] != "x" {
				t.Errorf("variables %v", v)
			}
		}},
		{"a console port another node owns", func() []byte {
			g := basic(9)
			g.nodes[0]["console"] = 5000 // the first project's PC owns it
			return g.json(t)
		}, func(t *testing.T, p map[string]any, st projectState) {
			if c := byName(st.nodes)["PC1"]["console"]; c == nil || c == 5000.0 {
				t.Errorf("console %v, want a free one", c)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if i == 0 {
				owner := ts.MustCreateProject("owner")
				ts.MustCreateNode(owner, map[string]any{"node_type": "vpcs", "console": 5000})
			}
			pid := uuidN("0000000d", i)
			p := ts.importArchive(pid, c.give(), "").Want(t, 201).JSON(t)
			first := ts.state(t, pid)
			c.check(t, p, first)
			// Exported and imported again, the project is the same.
			archive := ts.Do("GET", "/v2/projects/"+pid+"/export", nil).Want(t, 200).Body
			again := uuidN("0000000d", 100+i)
			ts.importArchive(again, archive, "").Want(t, 201)
			if a, b := normalized(first), normalized(ts.state(t, again)); !reflect.DeepEqual(a, b) {
				diffStates(t, a, b)
			}
		})
	}
}

// A console port the file gives that another program of this machine
// holds is replaced by a free one on import, as gns3-server does, so that
// the node starts instead of answering 409.
func TestProjectImport_ConsolePortHeldElsewhere(t *testing.T) {
	ts := mustOpenServerWith(t, testOptions{portFree: hostnet.PortFree("127.0.0.1")})
	var held net.Listener
	for p := 5000; held == nil && p < 5100; p++ {
		held, _ = net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
	}
	if held == nil {
		t.Fatal("no port of 5000–5099 to hold")
	}
	defer held.Close()
	port := held.Addr().(*net.TCPAddr).Port
	g := newGNS3Project("held", 9)
	g.node(uuidN("00000006", 1), "vpcs", "PC1", 0, 0, map[string]any{}, map[string]any{"console": port, "console_type": "telnet"})
	pid := uuidN("0000000e", 1)
	ts.importArchive(pid, g.json(t), "").Want(t, 201)
	if c := byName(ts.state(t, pid).nodes)["PC1"]["console"]; c == nil || c == float64(port) {
		t.Errorf("PC1's console is %v; another program holds %d, so it should have a free one", c, port)
	}
}

// TestProjectImportRefused: files nodedesk does not import answer a JSON
// error that says why, and leave nothing behind.
func TestProjectImportRefused(t *testing.T) {
	ts := mustOpenServer(t)
	pcID, swID := uuidN("00000004", 1), uuidN("00000004", 2)
	basic := func(rev int) *gns3Project {
		g := newGNS3Project("refused", rev)
		g.node(pcID, "vpcs", "PC1", 1, 2, map[string]any{}, map[string]any{"console_type": "telnet"})
		g.node(swID, "ethernet_switch", "SW1", 3, 4, map[string]any{"ports_mapping": []any{map[string]any{"name": "Ethernet0", "port_number": 0, "type": "access", "vlan": 1}}}, nil)
		return g
	}
	existing := uuidN("0000000e", 99)
	ts.Do("POST", "/v2/projects", map[string]any{"name": "there", "project_id": existing}).Want(t, 201)
	for i, c := range []struct {
		name       string
		give       func() []byte
		id         string
		wantStatus int
		wantMsg    []string
	}{
		{"revision 10", func() []byte { return basic(10).json(t) }, "", 409, []string{"newer GNS3", "revision 10", "upgrade"}},
		{"revision 6", func() []byte { return basic(6).json(t) }, "", 409, []string{"revision 6", "GNS3 2.2"}},
		{"no revision", func() []byte {
			g := basic(9)
			delete(g.top, "revision")
			return g.json(t)
		}, "", 409, []string{"revision 0"}},
		{"unknown node type", func() []byte {
			g := basic(9)
			g.node(uuidN("00000004", 3), "quantum", "Q1", 0, 0, map[string]any{}, nil)
			return g.json(t)
		}, "", 400, []string{"Q1", `"quantum"`}},
		{"link to a missing node", func() []byte {
			g := basic(9)
			g.link(uuidN("00000005", 7), []any{pcID, 0, 0}, []any{uuidN("00000004", 9), 0, 0}, nil)
			return g.json(t)
		}, "", 400, []string{uuidN("00000005", 7), uuidN("00000004", 9)}},
		{"port used twice", func() []byte {
			g := basic(9)
			g.node(uuidN("00000004", 3), "vpcs", "PC2", 0, 0, map[string]any{}, nil)
			g.link(uuidN("00000005", 1), []any{pcID, 0, 0}, []any{swID, 0, 0}, nil)
			g.link(uuidN("00000005", 2), []any{uuidN("00000004", 3), 0, 0}, []any{swID, 0, 0}, nil)
			return g.json(t)
		}, "", 400, []string{uuidN("00000005", 1), uuidN("00000005", 2), "0/0"}},
		{"a port the node lacks", func() []byte {
			g := basic(9)
			g.link(uuidN("00000005", 3), []any{pcID, 0, 0}, []any{swID, 0, 5}, nil)
			return g.json(t)
		}, "", 400, []string{uuidN("00000005", 3), "SW1", "0/5"}},
		{"a link with one end", func() []byte {
			g := basic(9)
			g.links = append(g.links, map[string]any{"link_id": uuidN("00000005", 4), "nodes": []any{map[string]any{"node_id": pcID, "adapter_number": 0, "port_number": 0}}})
			return g.json(t)
		}, "", 400, []string{uuidN("00000005", 4), "two"}},
		{"a VLAN out of range", func() []byte {
			g := basic(9)
			g.nodes[1]["properties"] = map[string]any{"ports_mapping": []any{map[string]any{"name": "Ethernet0", "port_number": 0, "type": "access", "vlan": 5000}}}
			return g.json(t)
		}, "", 400, []string{"SW1", "vlan"}},
		{"a wrong type", func() []byte {
			return []byte(`{"type": "topology", "revision": 9, "name": "x", "topology": {"nodes": [{"node_type": "vpcs", "x": "left"}]}}`)
		}, "", 400, []string{"topology.nodes.x"}},
		{"not a topology", func() []byte { return []byte(`{"name": "x", "revision": 9}`) }, "", 400, []string{"not a GNS3 topology"}},
		{"empty body", func() []byte { return nil }, "", 400, []string{"empty"}},
		{"not JSON", func() []byte { return []byte("{nope") }, "", 400, []string{"not valid JSON"}},
		{"files, then a link that cannot be made", func() []byte {
			g := basic(9)
			g.files["README.txt"] = "staged, then removed"
			g.files["project-files/vpcs/"+pcID+"/startup.vpc"] = "ip dhcp"
			g.link(uuidN("00000005", 5), []any{pcID, 0, 0}, []any{pcID, 0, 0}, nil)
			return g.archive(t)
		}, "", 400, []string{uuidN("00000005", 5), "itself"}},
		{"a taken project id", func() []byte { return basic(9).json(t) }, existing, 409, []string{existing, "already exists"}},
		{"a project id that is no UUID", func() []byte { return basic(9).json(t) }, "nope", 400, []string{"nope"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := cmpOr(c.id, uuidN("0000000e", i))
			mustWrite(t, filepath.Join(ts.dataDir(), "projects", ".keep"), nil) // the projects folder is nodedesk's own
			before := tree(t, ts.dataDir())
			projects := len(ts.Do("GET", "/v2/projects", nil).List(t))
			r := ts.importArchive(id, c.give(), "").Want(t, c.wantStatus).JSON(t)
			if msg := r["message"].(string); !containsAll(msg, c.wantMsg...) {
				t.Errorf("message %q, want it to say %q", msg, c.wantMsg)
			}
			if after := tree(t, ts.dataDir()); !reflect.DeepEqual(after, before) {
				t.Errorf("the data folder changed:\nbefore %v\nafter  %v", before, after)
			}
			if n := len(ts.Do("GET", "/v2/projects", nil).List(t)); n != projects {
				t.Errorf("%d projects after a refused import, want %d", n, projects)
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestProjectLoad opens a .gns3 of this machine: the file's ids, its files
// copied into nodedesk's folder, the project opened; loading it again
// gives the same project.
func TestProjectLoad(t *testing.T) {
	ts := mustOpenServer(t)
	g := labFile(9)
	path := g.writeDir(t, t.TempDir())
	mustWrite(t, strings.TrimSuffix(path, "lab.gns3")+"project-files/captures/big.pcap", []byte("not copied"))
	checks := "{\"version\": 1,\n \"checks\": [{\"id\": \"q\", \"kind\": \"reach\", \"from\": \"QEMU1\", \"to\": \"10.0.0.9\"}]}\n"
	mustWrite(t, strings.TrimSuffix(path, "lab.gns3")+"checks.json", []byte(checks))
	p := ts.Do("POST", "/v2/projects/load", map[string]any{"path": path}).Want(t, 201).JSON(t)
	pid := g.top["project_id"].(string)
	if p["project_id"] != pid || p["status"] != "opened" || p["name"] != "lab" {
		t.Errorf("loaded %v", p)
	}
	st := ts.state(t, pid)
	checkLab(t, st, 9)
	if n := byName(st.nodes)["QEMU1"]; n["node_id"] != idQEMU1 {
		t.Errorf("a load keeps the file's ids: %v", n["node_id"])
	}
	if r := ts.Do("GET", "/v2/projects/"+pid+"/files/project-files/qemu/"+idQEMU1+"/notes.txt", nil).Want(t, 200); string(r.Body) != "qemu notes" {
		t.Errorf("notes %q", r.Body)
	}
	ts.Do("GET", "/v2/projects/"+pid+"/files/project-files/captures/big.pcap", nil).Want(t, 404)
	ts.Do("GET", "/v2/projects/"+pid+"/files/README.txt", nil).Want(t, 404) // only project-files and the checks are copied
	if r := ts.Do("GET", "/v2/projects/"+pid+"/files/checks.json", nil).Want(t, 200); string(r.Body) != checks {
		t.Errorf("the checks file beside the .gns3 is %q, not copied byte for byte", r.Body)
	}

	// Again: the same project, opened.
	ts.Do("POST", "/v2/projects/"+pid+"/close", nil).Want(t, 204)
	if again := ts.Do("POST", "/v2/projects/load", map[string]any{"path": path}).Want(t, 201).JSON(t); again["project_id"] != pid || again["status"] != "opened" {
		t.Errorf("second load %v", again)
	}
	if n := len(ts.Do("GET", "/v2/projects", nil).List(t)); n != 1 {
		t.Errorf("%d projects after two loads", n)
	}
	// Another file with that name is a conflict, as in GNS3.
	other := labFile(9)
	other.top["project_id"] = uuidN("00000010", 1)
	r := ts.Do("POST", "/v2/projects/load", map[string]any{"path": other.writeDir(t, t.TempDir())}).Want(t, 409).JSON(t)
	if !strings.Contains(r["message"].(string), `"lab" already exists`) {
		t.Errorf("409 %v", r["message"])
	}
	ts.Do("POST", "/v2/projects/load", map[string]any{"path": "relative/lab.gns3"}).Want(t, 400)
	ts.Do("POST", "/v2/projects/load", map[string]any{"path": "/nonexistent/lab.gns3"}).Want(t, 404)
	ts.Do("POST", "/v2/projects/load", map[string]any{"path": t.TempDir()}).Want(t, 400)
	ts.Do("POST", "/v2/projects/load", map[string]any{}).Want(t, 400)
}

// TestProjectLoad_OwnFile: the path and filename a project's JSON gives
// name the project itself, though nodedesk writes no .gns3 there; the
// GNS3 desktop GUI reopens a project so after a snapshot restore. Another
// name in that folder, or a folder of no project, is read as a file (404).
func TestProjectLoad_OwnFile(t *testing.T) {
	ts := mustOpenServer(t)
	p := ts.Do("POST", "/v2/projects", map[string]any{"name": "lab"}).Want(t, 201).JSON(t)
	pid := p["project_id"].(string)
	ts.Do("POST", "/v2/projects/"+pid+"/close", nil).Want(t, 204)
	own := filepath.Join(p["path"].(string), p["filename"].(string))
	got := ts.Do("POST", "/v2/projects/load", map[string]any{"path": own}).Want(t, 201).JSON(t)
	if got["project_id"] != pid || got["status"] != "opened" {
		t.Errorf("loading the project's own file: %v, want project %s opened", got, pid)
	}
	if n := len(ts.Do("GET", "/v2/projects", nil).List(t)); n != 1 {
		t.Errorf("%d projects, want the one", n)
	}
	ts.Do("POST", "/v2/projects/load", map[string]any{"path": filepath.Join(p["path"].(string), "other.gns3")}).Want(t, 404)
	gone := filepath.Join(filepath.Dir(p["path"].(string)), uuidN("00000011", 1), "lab.gns3")
	ts.Do("POST", "/v2/projects/load", map[string]any{"path": gone}).Want(t, 404)
}

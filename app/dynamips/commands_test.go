package dynamips

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"nodedesk/app"
)

func mustSettings(t *testing.T, props map[string]any) settings {
	t.Helper()
	raw := map[string]json.RawMessage{"dynamips_id": json.RawMessage("3")}
	for k, v := range props {
		raw[k], _ = json.Marshal(v)
	}
	s, err := readSettings(raw)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCreateCommands: only what differs from the platform's defaults is
// sent, in gns3-server's order; built-in adapters are not bound again;
// a changed one is removed first; WICs go to slot 0 at 16, 32, 48.
func TestCreateCommands(t *testing.T) {
	in := instance{name: "R1", image: "/i/c.image", moduleDir: "/p/dynamips", nodeDir: "/p/dynamips/n", console: 2001,
		nios: []nio{{slot: 1, port: 0, name: "udp-x", local: 10000, remote: 10001}}}
	tests := []struct {
		name  string
		props map[string]any
		want  []string
	}{
		{"c7200 defaults", map[string]any{"platform": "c7200"}, []string{
			`vm create "R1" 3 c7200`, `vm set_con_tcp_port "R1" 2001`, `c7200 get_mac_addr "R1"`,
			`vm slot_add_binding "R1" 0 0 C7200-IO-FE`, `vm set_ios "R1" "/i/c.image"`,
			`nio create_udp udp-x 10000 127.0.0.1 10001`, `vm slot_add_nio_binding "R1" 1 0 udp-x`}},
		{"c7200 changed", map[string]any{"platform": "c7200", "ram": 512, "npe": "npe-g2", "slot0": "C7200-IO-2FE",
			"slot1": "PA-FE-TX", "idlepc": "0x60606060", "disk0": 0, "mmap": false}, []string{
			`vm create "R1" 3 c7200`, `vm set_con_tcp_port "R1" 2001`, `c7200 get_mac_addr "R1"`,
			`vm slot_add_binding "R1" 0 0 C7200-IO-FE`, `vm set_ios "R1" "/i/c.image"`, `vm set_ram "R1" 512`,
			`vm set_ram_mmap "R1" 0`, `vm set_idle_pc "R1" 0x60606060`, `c7200 set_npe "R1" npe-g2`,
			`vm slot_remove_binding "R1" 0 0`, `vm slot_add_binding "R1" 0 0 C7200-IO-2FE`, `vm slot_add_binding "R1" 1 0 PA-FE-TX`,
			`vm set_disk0 "R1" 0`, `nio create_udp udp-x 10000 127.0.0.1 10001`, `vm slot_add_nio_binding "R1" 1 0 udp-x`}},
		{"c3725 WICs", map[string]any{"platform": "c3725", "slot0": "GT96100-FE", "wic0": "WIC-1T", "wic2": "WIC-2T", "iomem": 10}, []string{
			`vm create "R1" 3 c3725`, `vm set_con_tcp_port "R1" 2001`, `c3725 get_mac_addr "R1"`, `vm set_ios "R1" "/i/c.image"`,
			`c3725 set_iomem "R1" 10`, `vm slot_add_binding "R1" 0 16 WIC-1T`, `vm slot_add_binding "R1" 0 48 WIC-2T`,
			`nio create_udp udp-x 10000 127.0.0.1 10001`, `vm slot_add_nio_binding "R1" 1 0 udp-x`}},
		{"c3600 chassis", map[string]any{"platform": "c3600", "chassis": "3660"}, []string{
			`vm create "R1" 3 c3600`, `vm set_con_tcp_port "R1" 2001`, `c3600 get_mac_addr "R1"`,
			`c3600 set_chassis "R1" 3660`, `vm set_ios "R1" "/i/c.image"`,
			`nio create_udp udp-x 10000 127.0.0.1 10001`, `vm slot_add_nio_binding "R1" 1 0 udp-x`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := createCommands(mustSettings(t, tt.props), in)
			head := []string{"hypervisor version", `hypervisor working_dir "/p/dynamips"`, `hypervisor working_dir "/p/dynamips/n"`}
			if !slices.Equal(got[:3], head) || !slices.Equal(got[3:], tt.want) {
				t.Errorf("commands:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(append(head, tt.want...), "\n\t"))
			}
		})
	}
}

// TestStartCommands: the configs are named after the dynamips id, the
// private one only when there is one; idle max and sleep go after the
// start only when they are not Dynamips' defaults.
func TestStartCommands(t *testing.T) {
	s := mustSettings(t, map[string]any{"platform": "c7200", "idlemax": 1500})
	got := append(startCommands(s, instance{name: "R1"}), runningCommands(s, instance{name: "R1"})...)
	want := []string{`vm get_status "R1"`, `vm set_config "R1" "configs/i3_startup-config.cfg" ""`, `vm start "R1"`, `vm set_idle_max "R1" 0 1500`}
	if !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
	if got := startCommands(s, instance{name: "R1", privateConfig: true})[1]; got != `vm set_config "R1" "configs/i3_startup-config.cfg" "configs/i3_private-config.cfg"` {
		t.Errorf("with a private config: %s", got)
	}
}

// TestGhostFile: GNS3's name, and none without mmap or on an NPE-G2.
func TestGhostFile(t *testing.T) {
	for _, tt := range []struct {
		props map[string]any
		want  string
	}{
		{map[string]any{"platform": "c7200", "ram": 512}, "/p/c7200.image-512.ghost"},
		{map[string]any{"platform": "c7200", "mmap": false}, ""},
		{map[string]any{"platform": "c7200", "npe": "npe-g2"}, ""},
		{map[string]any{"platform": "c3725", "ghost": false}, ""},
	} {
		if got := ghostFile(mustSettings(t, tt.props), "/p", "/images/IOS/c7200.image"); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.props, got, tt.want)
		}
	}
}

// TestCheckImage: a file that is not a 32-bit big-endian ELF is refused,
// named.
func TestCheckImage(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"zip.image": "PK\x03\x04rest", "elf64.image": "\x7fELF\x02\x02\x01rest", "short.image": "\x7fE"} {
		p := dir + "/" + name
		if err := writeFile(p, content); err != nil {
			t.Fatal(err)
		}
		if err := checkImage("R1", p); app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(app.ErrorMessage(err), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
	p := dir + "/ok.image"
	_ = writeFile(p, "\x7fELF\x01\x02\x01rest")
	if err := checkImage("R1", p); err != nil {
		t.Errorf("a MIPS big-endian ELF: %v", err)
	}
}

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o644) }

// TestPrepareConfigs: a router without configs gets a startup config
// naming it (or the content a controller gave); one whose folder holds
// another number's configs (a duplicate's copy) takes them; an empty
// private config is not given to Dynamips.
func TestPrepareConfigs(t *testing.T) {
	dir := t.TempDir()
	s := mustSettings(t, map[string]any{"platform": "c7200"})
	p := app.Process{Name: "R9", Dir: dir}
	private, err := prepareConfigs(s, p)
	if b, _ := os.ReadFile(dir + "/configs/i3_startup-config.cfg"); err != nil || private || !strings.Contains(string(b), "hostname R9") {
		t.Errorf("new router: %q, private %v, %v", b, private, err)
	}
	dup := t.TempDir()
	_ = os.MkdirAll(dup+"/configs", 0o755)
	_ = writeFile(dup+"/configs/i1_startup-config.cfg", "hostname R1-copy\n")
	_ = writeFile(dup+"/configs/i1_private-config.cfg", "secret\n")
	private, err = prepareConfigs(s, app.Process{Name: "R9", Dir: dup})
	if b, _ := os.ReadFile(dup + "/configs/i3_startup-config.cfg"); err != nil || !private || string(b) != "hostname R1-copy\n" {
		t.Errorf("copied folder: %q, private %v, %v", b, private, err)
	}
	given := t.TempDir()
	s.StartupConfigContent = "hostname %h\r\n"
	if _, err := prepareConfigs(s, app.Process{Name: "R5", Dir: given}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(given + "/configs/i3_startup-config.cfg"); string(b) != "!\nhostname R5\n" {
		t.Errorf("controller's content: %q", b)
	}
}

// TestStart_NoDynamips: without the program, a start is a conflict that
// says what to install, and nothing runs.
func TestStart_NoDynamips(t *testing.T) {
	r := New(Config{Binary: "/nonexistent/dynamips"})
	p := app.Process{Name: "R1", NodeID: "n1", Dir: t.TempDir(),
		Properties: map[string]json.RawMessage{"platform": json.RawMessage(`"c7200"`), "dynamips_id": json.RawMessage("1")}}
	_, err := r.Start(p)
	if app.ErrorCode(err) != app.ECONFLICT || !strings.Contains(app.ErrorMessage(err), "Install Dynamips") {
		t.Errorf("start without dynamips: %v", err)
	}
	if r.routers.Len() != 0 {
		t.Errorf("%d routers recorded", r.routers.Len())
	}
}

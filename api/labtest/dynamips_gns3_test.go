package labtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"nodedesk/app/dynamips/dynamipstest"
	"nodedesk/app/kit"
)

// gns3Recordings holds what gns3-server 2.2.59 sent to a real Dynamips
// for a few routers (scripts/record-gns3-dynamips.sh; its README says
// how): each <case>.log has "#" lines describing the node, its links and
// the steps taken, then Dynamips' "HYPERVISOR: exec_cmd:" log lines.
const gns3Recordings = "../../app/dynamips/testdata/gns3-2.2.59"

// TestDynamips_SameCommandsAsGNS3: for each recording, nodedesk runs the
// same router (the properties gns3-server showed, the same links, the
// same steps) and Dynamips' own log of the commands it was sent matches
// gns3-server's, once both are normalised (normaliseCommands). The test
// is skipped only when the recordings' folder is absent.
func TestDynamips_SameCommandsAsGNS3(t *testing.T) {
	logs, _ := filepath.Glob(filepath.Join(gns3Recordings, "*.log"))
	if _, err := os.Stat(gns3Recordings); os.IsNotExist(err) {
		t.Skipf("no recordings of gns3-server in %s yet", gns3Recordings)
	}
	if len(logs) == 0 {
		t.Fatalf("%s holds no recording", gns3Recordings)
	}
	for _, path := range logs {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".log"), func(t *testing.T) {
			rec := readRecording(t, path)
			mine := runLikeRecording(t, rec)
			want := normaliseCommands(rec.commands, rec.linked, rec.steps)
			if rec.props["aux"] == nil { // nodedesk gives every router an aux console; gns3-server one it is asked for
				mine = slices.DeleteFunc(mine, func(c string) bool { return strings.HasPrefix(c, "vm set_aux_tcp_port ") })
			}
			got := normaliseCommands(withoutIdlePCRestore(mine), rec.linked, "")
			if !slices.Equal(got, want) {
				t.Errorf("nodedesk's commands differ from gns3-server's.\n nodedesk:\n\t%s\n gns3-server:\n\t%s",
					strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
			}
		})
	}
}

// recording is one case of gns3Recordings.
type recording struct {
	props    map[string]any // the node's properties as gns3-server showed them
	links    []recordedLink
	linked   map[string]bool // the router's linked ports, "slot/port"
	steps    string
	commands []string
}

type recordedLink struct {
	LinkType   string `json:"link_type"`
	Peer       string `json:"peer"`
	PeerPort   string `json:"peer_port"`
	PeerType   string `json:"peer_type"`
	RouterPort string `json:"router_port"`
}

func readRecording(t *testing.T, path string) recording {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := recording{linked: map[string]bool{}}
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "# node as created"):
			var n struct {
				Properties map[string]any `json:"properties"`
			}
			if err := json.Unmarshal([]byte(line[strings.Index(line, "): {")+3:]), &n); err != nil {
				t.Fatalf("%s: node: %v", path, err)
			}
			rec.props = n.Properties
		case strings.HasPrefix(line, "# links: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "# links: ")), &rec.links); err != nil {
				t.Fatalf("%s: links: %v", path, err)
			}
		case strings.HasPrefix(line, "# steps: "):
			rec.steps = strings.TrimPrefix(line, "# steps: ")
		}
	}
	for _, l := range rec.links {
		rec.linked[l.RouterPort] = true
	}
	rec.commands = execCommands(string(b))
	if rec.props == nil || len(rec.commands) == 0 {
		t.Fatalf("%s has no node or no commands", path)
	}
	return rec
}

// execCommands are the commands a Dynamips log says it ran.
func execCommands(log string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		if _, cmd, ok := strings.Cut(line, "HYPERVISOR: exec_cmd: "); ok {
			out = append(out, strings.Join(strings.Fields(cmd), " "))
		}
	}
	return out
}

// runLikeRecording makes and drives the recording's router in nodedesk
// and returns the commands its Dynamips logged.
func runLikeRecording(t *testing.T, rec recording) []string {
	l := Start(t, with(dynamipstest.Emulator))
	props := map[string]any{}
	for k, v := range rec.props {
		switch k {
		case "aux", "dynamips_id", "mac_addr", "image_md5sum": // the compute's own, or read from Dynamips
		default:
			props[k] = v
		}
	}
	image, _ := props["image"].(string)
	iosImage(t, l, image, props["platform"].(string))
	pid := l.MustCreateProject("as-gns3")
	r := routerNode(t, l, pid, "R1", props)
	rid := r["node_id"].(string)
	path := "/v2/projects/" + pid + "/nodes/" + rid
	for _, lk := range rec.links {
		var peer string
		switch lk.PeerType {
		case "ethernet_switch":
			peer = l.MustCreateSwitch(t, pid, nil)
		case "frame_relay_switch":
			peer = l.MustCreateNode(pid, map[string]any{"node_type": "frame_relay_switch", "name": lk.Peer,
				"properties": map[string]any{"mappings": map[string]any{"0:100": "1:200"}}})["node_id"].(string)
		default:
			t.Fatalf("a link to a %s: not known here", lk.PeerType)
		}
		ra, rp := slotPort(t, lk.RouterPort)
		pa, pp := slotPort(t, lk.PeerPort)
		l.Do("POST", "/v2/projects/"+pid+"/links", map[string]any{"nodes": []any{
			map[string]any{"node_id": rid, "adapter_number": ra, "port_number": rp},
			map[string]any{"node_id": peer, "adapter_number": pa, "port_number": pp}}}).Want(t, 201)
	}
	status := func() string { return l.Do("GET", path, nil).Want(t, 200).JSON(t)["status"].(string) }
	for _, step := range strings.Split(rec.steps, ";") {
		step = strings.TrimSpace(step)
		switch {
		case strings.HasPrefix(step, "start"):
			l.Do("POST", path+"/start", nil).Want(t, 200)
		case strings.HasPrefix(step, "stop"):
			l.Do("POST", path+"/stop", nil).Want(t, 200)
		case strings.HasPrefix(step, "GET auto_idlepc (stopped router)"):
			// nodedesk finds an idle PC on a running router only.
			l.Do("GET", path+"/dynamips/auto_idlepc", nil).Want(t, 409)
		case strings.HasPrefix(step, "GET idlepc_proposals"):
			if status() != "started" {
				l.Do("POST", path+"/start", nil).Want(t, 200)
			}
			var props []string
			if err := json.Unmarshal(l.Do("GET", path+"/dynamips/idlepc_proposals", nil).Want(t, 200).Body, &props); err != nil {
				t.Fatal(err)
			}
			// Dynamips samples the PCs the router runs: the stand-in image's
			// idle loop, or another PC of the loop it runs when idle.
			proposal := regexp.MustCompile(`^0x[0-9a-f]{8} \[[0-9]+\]$`)
			if len(props) == 0 || slices.ContainsFunc(props, func(p string) bool { return !proposal.MatchString(p) }) {
				t.Errorf("the idle-PC proposals %q: want one or more, each an 8-digit address and its hits", props)
			}
		case strings.HasPrefix(step, "delete node"):
			if status() != "stopped" { // Dynamips' log is in the node's folder, which the delete removes
				l.Do("POST", path+"/stop", nil).Want(t, 200)
			}
		default:
			t.Fatalf("step %q: not known here", step)
		}
	}
	dir := r["node_directory"].(string)
	if !kit.WaitFor(5*time.Second, func() bool { return len(dynamipstest.PIDs(dir)) == 0 }) {
		t.Fatalf("Dynamips still runs after the steps")
	}
	b, err := os.ReadFile(filepath.Join(dir, "dynamips_i1_log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	l.Do("DELETE", path, nil).Want(t, 204)
	return execCommands(string(b))
}

func slotPort(t *testing.T, s string) (int, int) {
	a, p, ok := strings.Cut(s, "/")
	ai, err1 := strconv.Atoi(a)
	pi, err2 := strconv.Atoi(p)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("port %q", s)
	}
	return ai, pi
}

var (
	uuidRE    = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	projectRE = regexp.MustCompile(`^.*/projects/[^/]+/project-files/`)
	imagesRE  = regexp.MustCompile(`^.*/images/`)
)

// normaliseCommands makes two runs' commands comparable:
//   - status queries (vm get_status) go: gns3-server asks before most
//     changes, nodedesk only before a stop;
//   - the NIOs of unlinked ports go (nodedesk gives every port a tunnel
//     into its data plane at start, gns3-server one per link), and the
//     NIO commands are compared as a set at the place of the first
//     (gns3-server creates them in the order the links were made);
//   - the unbinding of NIOs at the end goes (nodedesk ends the process),
//     and a command repeated at once counts once (gns3-server reads the
//     configs back at the stop and again at the delete);
//   - with an auto_idlepc step on a stopped router (gns3-server starts
//     it, nodedesk refuses), what gns3-server sent for it goes;
//   - ports, paths, ids and NIO names become placeholders.
func normaliseCommands(cmds []string, linked map[string]bool, steps string) []string {
	if strings.Contains(steps, "auto_idlepc (stopped router)") {
		cmds = withoutAutoIdlePC(cmds)
	}
	// Each NIO by its router port, from its binding.
	nioPort := map[string]string{}
	for _, c := range cmds {
		if f := strings.Fields(c); len(f) == 6 && f[1] == "slot_add_nio_binding" {
			nioPort[f[5]] = f[3] + "/" + f[4]
		}
	}
	var out, nios []string
	nioAt := -1
	for _, c := range cmds {
		f := strings.Fields(c)
		switch {
		case len(f) >= 2 && f[0] == "vm" && f[1] == "get_status",
			len(f) >= 2 && f[0] == "vm" && f[1] == "slot_remove_nio_binding",
			len(f) >= 2 && f[0] == "nio" && f[1] == "delete":
			continue
		case len(f) >= 2 && (f[1] == "create_udp" || f[1] == "slot_add_nio_binding"):
			name := f[2]
			if f[1] == "slot_add_nio_binding" {
				name = f[5]
			}
			port := nioPort[name]
			if !linked[port] {
				continue
			}
			if f[1] == "create_udp" {
				f = []string{"nio", "create_udp", "<NIO " + port + ">", "<L>", f[4], "<R>"}
			} else {
				f[5] = "<NIO " + port + ">"
			}
			nios = append(nios, strings.Join(f, " "))
			if nioAt < 0 {
				nioAt = len(out)
				out = append(out, "<NIOs>")
			}
			continue
		case len(f) == 4 && (f[1] == "set_con_tcp_port" || f[1] == "set_aux_tcp_port"):
			f[3] = "<PORT>"
		}
		for i, tok := range f {
			tok = projectRE.ReplaceAllString(tok, "<PROJECT>/")
			tok = imagesRE.ReplaceAllString(tok, "<IMAGES>/")
			f[i] = uuidRE.ReplaceAllString(tok, "<ID>")
		}
		line := strings.Join(f, " ")
		if len(out) > 0 && out[len(out)-1] == line {
			continue
		}
		out = append(out, line)
	}
	slices.Sort(nios)
	if nioAt >= 0 {
		out[nioAt] = "<NIOs> " + strings.Join(nios, " | ")
	}
	return out
}

// withoutIdlePCRestore drops the idle PC nodedesk gives a router back
// after sampling it for proposals (gns3-server leaves it cleared, and the
// router spins until the user sets one).
func withoutIdlePCRestore(cmds []string) []string {
	var out []string
	for i, c := range cmds {
		if i > 0 && strings.HasPrefix(cmds[i-1], "vm get_idle_pc_prop ") && strings.HasPrefix(c, "vm set_idle_pc_online ") && !strings.HasSuffix(c, " 0x0") {
			continue
		}
		out = append(out, c)
	}
	return out
}

// withoutAutoIdlePC drops what gns3-server sent for an auto_idlepc on a
// stopped router: from its clearing of the idle PC (vm set_idle_pc ...
// 0x0) to the configs read back after the stop that ends it.
func withoutAutoIdlePC(cmds []string) []string {
	from := slices.IndexFunc(cmds, func(c string) bool { return strings.HasPrefix(c, "vm set_idle_pc ") && strings.HasSuffix(c, " 0x0") })
	if from < 0 {
		return cmds
	}
	stopped := false
	for i := from; i < len(cmds); i++ {
		if strings.HasPrefix(cmds[i], "vm stop ") {
			stopped = true
		}
		if stopped && strings.HasPrefix(cmds[i], "vm extract_config ") {
			return append(slices.Clone(cmds[:from]), cmds[i+1:]...)
		}
	}
	return cmds
}

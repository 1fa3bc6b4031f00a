package docker

import (
	"encoding/json"
	"net"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"nodedesk/app"
)

// settings are the properties of a Docker node the runner reads, under
// GNS3's keys (its json tags). The domain has checked them and fills
// their defaults (app/node_properties_docker.go).
type settings struct {
	Image        string   `json:"image"`
	Adapters     int      `json:"adapters"`
	StartCommand string   `json:"start_command"`
	Environment  string   `json:"environment"`
	ExtraHosts   string   `json:"extra_hosts"`
	ExtraVolumes []string `json:"extra_volumes"`
	MACAddress   string   `json:"mac_address"`
	// ConsoleHTTPPort is where the container serves its web interface,
	// on its own loopback (console type http).
	ConsoleHTTPPort int `json:"console_http_port"`
}

// readSettings decodes a node's properties, with the domain's defaults;
// an image named without a tag is its latest, as GNS3 takes it.
func readSettings(props map[string]json.RawMessage) (settings, error) {
	var s settings
	if err := app.DecodeSettings(app.Docker, props, &s); err != nil {
		return s, err
	}
	s.Image = strings.TrimSpace(s.Image)
	if s.Image != "" && !strings.Contains(lastSegment(s.Image), ":") && !strings.Contains(s.Image, "@") {
		s.Image += ":latest"
	}
	return s, nil
}

// lastSegment is what follows the last "/" of an image name: a ":" before
// it is a registry's port, not a tag.
func lastSegment(image string) string { return image[strings.LastIndexByte(image, '/')+1:] }

// validImage reports whether an image reference is safe in the engine's
// URL paths: the characters of Docker's references only.
func validImage(ref string) bool {
	if ref == "" || len(ref) > 255 {
		return false
	}
	for _, r := range ref {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/:@", r)) {
			return false
		}
	}
	return !strings.Contains(ref, "..") && ref[0] != '/' && ref[0] != '.'
}

// baseMAC is a node's MAC address: its mac_address, else the one GNS3
// derives from its id, 02:42 and the id's second to fourth bytes.
func baseMAC(s settings, nodeID string) (net.HardwareAddr, error) {
	m := s.MACAddress
	if m == "" {
		hex := strings.ReplaceAll(nodeID, "-", "")
		for len(hex) < 8 {
			hex += "0"
		}
		m = "02:42:" + hex[2:4] + ":" + hex[4:6] + ":" + hex[6:8] + ":00"
	}
	mac, err := net.ParseMAC(m)
	if err != nil || len(mac) != 6 {
		return nil, app.Errorf(app.EINVALID, "The node's MAC address %q is not one: give it as 02:42:ab:cd:ef:00", m)
	}
	return mac, nil
}

// adapterMACs are the MAC addresses of the node's n adapters: its base
// address plus the adapter's number (app.AdapterMAC), or the adapter's
// custom address.
func adapterMACs(base net.HardwareAddr, n int, custom []app.CustomAdapter) ([]net.HardwareAddr, error) {
	macs := make([]net.HardwareAddr, n)
	for i := range macs {
		macs[i], _ = net.ParseMAC(app.AdapterMAC(base.String(), i))
		for _, c := range custom {
			if c.AdapterNumber == i && c.MACAddress != "" {
				m, err := net.ParseMAC(c.MACAddress)
				if err != nil || len(m) != 6 {
					return nil, app.Errorf(app.EINVALID, "The MAC address %q of adapter %d is not one: give it as 02:42:ab:cd:ef:01", c.MACAddress, i)
				}
				macs[i] = m
			}
		}
	}
	return macs, nil
}

// environment is the container's environment from the node's
// environment property (KEY=VALUE lines) with GNS3's placeholders
// replaced; lines GNS3 skips (no name, or a GNS3_ name, which its init
// reserves) are returned apart.
func environment(s settings, p app.Process) (env, skipped []string) {
	quote := func(v string) string { return `"` + strings.ReplaceAll(v, `"`, `\"`) + `"` }
	projectPath := filepath.Dir(filepath.Dir(filepath.Dir(p.Dir))) // <project>/project-files/docker/<node id>
	r := strings.NewReplacer("%vm-name%", quote(p.Name), "%vm-id%", p.NodeID,
		"%project-id%", p.ProjectID, "%project-path%", quote(projectPath))
	for _, line := range strings.Split(s.Environment, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, _, _ := strings.Cut(line, "=")
		if name == "" || strings.HasPrefix(line, "GNS3_") || strings.HasPrefix(line, "NODEDESK_") {
			skipped = append(skipped, line)
			continue
		}
		env = append(env, r.Replace(line))
	}
	return env, skipped
}

// extraHosts turns the node's extra_hosts ("name:address" lines) into
// /etc/hosts lines ("address<TAB>name").
func extraHosts(s settings) (string, error) {
	lines, err := app.DockerHostsLines(s.ExtraHosts)
	return strings.Join(lines, "\n"), err
}

// persistentFolders are the container's folders kept in the node's folder
// across restarts, as GNS3 keeps them: /etc/network, the image's own
// volumes and the node's extra_volumes; a folder inside another kept one
// is kept with it.
func persistentFolders(s settings, im *imageInfo) ([]string, error) {
	all := []string{"/etc/network"}
	imageVols := make([]string, 0, len(im.Config.Volumes))
	for v := range im.Config.Volumes {
		imageVols = append(imageVols, v)
	}
	slices.Sort(imageVols)
	all = append(all, imageVols...)
	for _, v := range s.ExtraVolumes {
		if err := app.CheckDockerVolume(v); err != nil {
			return nil, err
		}
		all = append(all, v)
	}
	var kept []string
	for _, v := range all {
		v = path.Clean(v)
		if v == "/" {
			return nil, app.Errorf(app.EINVALID, "The container's whole file system (/) cannot be kept as a folder: name the folders to keep, such as /etc/frr")
		}
		if slices.ContainsFunc(kept, func(k string) bool { return within(v, k) }) {
			continue // inside a folder kept already
		}
		kept = slices.DeleteFunc(kept, func(k string) bool { return within(k, v) })
		kept = append(kept, v)
	}
	return kept, nil
}

// mountTargets are the folders bound into a container: the kept ones,
// and each volume of the image inside one of them, bound again from the
// same place of the node's folder (it shows the same files): Docker
// would otherwise mount an anonymous volume of its own there, which
// hides the kept files and goes with the container.
func mountTargets(kept []string, im *imageInfo) []string {
	targets := slices.Clone(kept)
	for v := range im.Config.Volumes {
		if v = path.Clean(v); !slices.Contains(targets, v) {
			targets = append(targets, v)
		}
	}
	slices.Sort(targets) // a folder before those inside it
	return targets
}

// within reports whether folder a is b or inside it.
func within(a, b string) bool { return a == b || strings.HasPrefix(a, b+"/") }

// containerName is the Docker name of a node's container: nodedesk-, the
// node's name in the characters Docker allows, and the start of its id.
func containerName(p app.Process) string {
	return "nodedesk-" + clean(p.Name, "_.-", 40) + "-" + shortID(p.NodeID)
}

// hostname is the container's host name: the node's name in the
// characters a host name allows.
func hostname(name string) string {
	if h := clean(name, "-", 63); h != "" {
		return h
	}
	return "docker"
}

// clean keeps the letters and digits of s and the runes of keep, puts a
// "-" for the others, and cuts it to n bytes.
func clean(s, keep string, n int) string {
	b := []byte(strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(keep, r)) {
			return r
		}
		return '-'
	}, s))
	if len(b) > n {
		b = b[:n]
	}
	return strings.Trim(string(b), "-.")
}

func shortID(id string) string {
	hex := strings.ReplaceAll(id, "-", "")
	if len(hex) > 8 {
		hex = hex[:8]
	}
	return hex
}

package app

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Docker nodes' properties: the keys, defaults and rules of GNS3 2.2.59's
// Docker VM (its compute's schemas/docker.py and docker_vm.py), kept in
// Properties.Extra under GNS3's keys, and one port per adapter
// (node_ports.go). Package app/docker runs the nodes from them. aux, the
// auxiliary console's port, is the node's own (Node.Aux): the view shows
// it, a change cannot set it.

// dockerProps are the properties of a Docker node.
var dockerProps = propertyKind{
	newUpdate: func() PropertiesUpdate { return &DockerUpdate{} },
	init:      func(n *Node, _ newNodeEnv) { n.Properties.Extra = toExtra(dockerView(n)) },
	ports:     (*Node).dockerPorts,
	view:      dockerView,
	unique:    []string{"mac_address"},
	template:  dockerTemplate,
}

// dockerTemplate is what a user Docker template starts with, as GNS3
// 2.2.59's schemas/docker_template.py fills it; it must name an image.
var dockerTemplate = templateKind{nameFormat: "{name}-{0}", category: "guest", settings: map[string]any{
	"image": "", "usage": "", "adapters": 1, "mac_address": "", "start_command": "", "environment": "",
	"console_type": "telnet", "console_auto_start": false, "console_http_port": 80, "console_http_path": "/",
	"console_resolution": "1024x768", "extra_hosts": "", "extra_volumes": []any{}, "custom_adapters": []any{},
}, required: []string{"image"}}

// dockerSettings are the properties GNS3 2.2.59's compute keeps for a
// Docker node, with its defaults for a new one. mac_address's default
// depends on the node (dockerView); the text settings GNS3 keeps as null
// when empty.
var dockerSettings = newSettingTable([]setting{
	{key: "usage", def: "", check: isString},
	{key: "image", def: "", check: isString, unset: []string{""}},
	{key: "adapters", def: 1, check: isWholeNumber(0, 99, "")},
	{key: "mac_address", check: isMAC, unset: []string{""}},
	{key: "start_command", check: isString, unset: []string{""}},
	{key: "environment", check: isString, unset: []string{""}},
	{key: "console_resolution", def: "1024x768", check: isResolution},
	{key: "console_http_port", def: 80, check: isWholeNumber(1, 65535, "")},
	{key: "console_http_path", def: "/", check: isString},
	{key: "extra_hosts", check: isExtraHosts, unset: []string{""}},
	{key: "extra_volumes", def: []any{}, check: isVolumeList},
})

// dockerComputeView is what GNS3 2.2.59's compute shows of a Docker node
// besides name, node_id, project_id and status.
var dockerComputeView = append([]string{"aux", "console", "console_type", "container_id", "node_directory"}, dockerSettings.keys()...)

// dockerView is a Docker node's properties: what it keeps, GNS3's default
// for each property it lacks, and its aux console port (null: none).
func dockerView(n *Node) map[string]any {
	v := dockerSettings.view(n.Properties.Extra, map[string]any{"mac_address": dockerDefaultMAC(n)})
	v["aux"] = nil
	if n.Aux != 0 {
		v["aux"] = n.Aux
	}
	v["container_id"] = nil // GNS3's before the container is made
	if n.Properties.Provisioned != "" {
		v["container_id"] = n.Properties.Provisioned
	}
	return v
}

// DockerInterfacesFile is the file of a Docker node's folder its
// container reads as /etc/network/interfaces (the GNS3 GUI's "Edit
// network configuration" edits it).
const DockerInterfacesFile = "etc/network/interfaces"

// dockerFirstFile is a Docker node's interfaces file while its folder has
// none, before its container is first made (nodeKind.firstFile): what
// the runner writes there then.
func dockerFirstFile(n *Node, name string) (string, bool) {
	if name != DockerInterfacesFile {
		return "", false
	}
	return DockerInterfaces(n.Name, n.adapterCount("adapters", 1)), true
}

// DockerInterfaces is the /etc/network/interfaces a new Docker node
// starts with, as GNS3 gives one: nothing set up, and for each interface
// an example of a fixed address and one of DHCP, commented out.
func DockerInterfaces(name string, adapters int) string {
	var b strings.Builder
	b.WriteString("# Network settings of " + name + ", read by `ifup -a` when the container starts.\n")
	b.WriteString("# nodedesk keeps this file in the node's folder: edits last across restarts.\n")
	b.WriteString("# To use an example below, remove the # at the start of its lines.\n")
	b.WriteString("#\n# Read more settings from files of interfaces.d:\n# source /etc/network/interfaces.d/*\n")
	for i := range adapters {
		n := strconv.Itoa(i)
		net := "10.0." + strconv.Itoa(i%256)
		fmt.Fprintf(&b, "\n# eth%s with a fixed address:\n#auto eth%s\n#iface eth%s inet static\n", n, n, n)
		fmt.Fprintf(&b, "#\taddress %s.2\n#\tnetmask 255.255.255.0\n#\tgateway %s.1\n", net, net)
		fmt.Fprintf(&b, "#\tup echo nameserver %s.1 > /etc/resolv.conf\n", net)
		fmt.Fprintf(&b, "\n# eth%s with an address from a DHCP server:\n#auto eth%s\n#iface eth%s inet dhcp\n#\thostname %s\n", n, n, n, name)
	}
	return b.String()
}

// dockerDefaultMAC is the MAC address of a Docker node's first adapter
// when its mac_address is unset: 02:42, three bytes of its id, 00.
func dockerDefaultMAC(n *Node) string { return idMAC("02:42", n.ID, "00") }

// DockerImageName is an image name as GNS3 keeps it: one without a tag
// is the image's "latest".
func DockerImageName(image string) string {
	if image != "" && !strings.Contains(image, ":") {
		return image + ":latest"
	}
	return image
}

// DockerUpdate is a change to a Docker node's properties, under GNS3's
// keys, as QEMUUpdate is to a QEMU node's. aux and container_id are read
// only: a change that names them leaves them as they are.
type DockerUpdate map[string]json.RawMessage

// UnmarshalJSON reads the properties of a Docker node from a controller's
// "properties" object or from a compute request's body, whose node fields
// it leaves out.
func (u *DockerUpdate) UnmarshalJSON(b []byte) error {
	m, err := propertiesIn(b)
	if err != nil {
		return err
	}
	delete(m, "aux")
	delete(m, "container_id")
	*u = m
	return nil
}

func (u *DockerUpdate) apply(p *Properties) error {
	if len(*u) == 0 {
		return nil
	}
	if raw, ok := (*u)["image"]; ok && isJSONString(raw) {
		(*u)["image"], _ = json.Marshal(DockerImageName(rawString(raw)))
	}
	extra, err := dockerSettings.apply(p.Extra, *u)
	if err != nil {
		return err
	}
	p.Extra = extra
	return nil
}

// isResolution accepts a VNC screen size, <width>x<height>.
func isResolution(key string, raw json.RawMessage) error {
	w, h, ok := strings.Cut(rawString(raw), "x")
	if !isJSONString(raw) || !ok || !allDigits(w) || !allDigits(h) {
		return Invalid("properties."+key, "%s must be a screen size such as 1024x768, not %s", key, describeRaw(raw))
	}
	return nil
}

// isVolumeList accepts the folders of a container that persist, as GNS3
// does: absolute paths without "..".
func isVolumeList(key string, raw json.RawMessage) error {
	var vs []string
	if json.Unmarshal(raw, &vs) != nil {
		return Invalid("properties."+key, "%s must be a list of folders of the container, such as [\"/etc/frr\"], not %s", key, describeRaw(raw))
	}
	for _, v := range vs {
		if err := CheckDockerVolume(v); err != nil {
			return Invalid("properties."+key, "%s: %s", key, ErrorMessage(err))
		}
	}
	return nil
}

// CheckDockerVolume checks a folder of a container that is to persist
// in the node's folder, as GNS3 does: an absolute path without "..".
func CheckDockerVolume(v string) error {
	if !strings.HasPrefix(v, "/") || strings.Contains(v, "..") || strings.TrimSpace(v) != v {
		return Errorf(EINVALID, "%q cannot persist: name a folder of the container by its absolute path, without \"..\" (such as /etc/frr)", v)
	}
	return nil
}

// isExtraHosts accepts extra_hosts that DockerHostsLines can read.
func isExtraHosts(key string, raw json.RawMessage) error {
	if !isJSONString(raw) {
		return Invalid("properties."+key, "%s must be a string, not %s", key, describeRaw(raw))
	}
	if _, err := DockerHostsLines(rawString(raw)); err != nil {
		return Invalid("properties."+key, "%s", ErrorMessage(err))
	}
	return nil
}

// DockerHostsLines reads a Docker node's extra_hosts, one name:address
// per line as GNS3 takes them, as the lines the container's /etc/hosts
// gets ("address<TAB>name"); blank lines are skipped.
func DockerHostsLines(extraHosts string) ([]string, error) {
	var lines []string
	for _, line := range strings.Split(extraHosts, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, addr, ok := strings.Cut(line, ":")
		name, addr = strings.TrimSpace(name), strings.TrimSpace(addr)
		if _, err := netip.ParseAddr(addr); !ok || name == "" || err != nil || strings.ContainsAny(name, " \t") {
			return nil, Errorf(EINVALID, "extra_hosts line %q is not a host and its address: write one per line as name:address, such as gateway:10.0.0.1", line)
		}
		lines = append(lines, addr+"\t"+name)
	}
	return lines, nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// dockerPorts are a Docker node's ports: one per adapter ("adapters"),
// eth0, eth1, ..., or a custom adapter's port_name, each with the MAC
// address of its interface (AdapterMAC), as GNS3's controller lists them.
func (n *Node) dockerPorts() []Port {
	adapters := n.adapterCount("adapters", 1)
	base := cmp.Or(n.extraString("mac_address"), dockerDefaultMAC(n))
	ports := make([]Port, adapters)
	for a := range ports {
		name := cmp.Or(n.customAdapter(a).PortName, "eth"+strconv.Itoa(a))
		ports[a] = ethernetClass.port(name, name, 0, a, 0)
		ports[a].MACAddress = cmp.Or(n.customAdapter(a).MACAddress, AdapterMAC(base, a))
	}
	return ports
}

// AdapterMAC is the MAC address of adapter a of a node whose first
// adapter's is base: base plus a, as one 48-bit number, as GNS3 counts
// them; "" if base is not a MAC address.
func AdapterMAC(base string, a int) string {
	hw, err := net.ParseMAC(base)
	if err != nil || len(hw) != 6 {
		return ""
	}
	var v uint64
	for _, b := range hw {
		v = v<<8 | uint64(b)
	}
	v = (v + uint64(a)) & (1<<48 - 1)
	for i := 5; i >= 0; i-- {
		hw[i] = byte(v)
		v >>= 8
	}
	return hw.String()
}

// DockerEngine is what nodedesk asks of the Docker Engine of this machine
// besides running containers (the Runner does that): which images it
// holds, for GNS3's image list and the template dialog. Docker's runner
// (package app/docker) has it; without it Docker is not available.
type DockerEngine interface {
	// Images lists the engine's local images by repository and tag
	// ("alpine:latest"), as GNS3 lists them; untagged images are left
	// out. An engine that cannot be reached is a conflict whose message
	// says what to do.
	Images(ctx context.Context) ([]DockerImage, error)
}

// DockerImage is one local Docker image, as GNS3 answers
// GET /v2/compute/docker/images.
type DockerImage struct {
	Image string `json:"image"`
}

// DockerImages lists the local images of this machine's Docker Engine,
// sorted; a conflict that says what to do when Docker is not available.
func (s *Service) DockerImages(ctx context.Context) ([]DockerImage, error) {
	engine, ok := capability[DockerEngine](s)
	if !ok {
		return nil, Errorf(ECONFLICT, "Docker is not available to nodedesk: install Docker (sudo apt-get install docker.io) and restart nodedesk")
	}
	imgs, err := engine.Images(ctx)
	if imgs == nil && err == nil {
		imgs = []DockerImage{}
	}
	return imgs, err
}

// ---- Lint (decision 0070): the addresses a container's interfaces file names. ----

// dockerConfig is where a Docker node's addresses are named: the
// /etc/network/interfaces it keeps in its folder.
var dockerConfig = &configReader{file: func(*Node) string { return DockerInterfacesFile }, read: dockerPortConfigs}

// dockerPortConfigs reads an /etc/network/interfaces file as busybox's
// `ifup -a` (nodedesk's init) takes it: each "iface ethN inet static"
// whose interface is brought up ("auto ethN" or "allow-auto ethN"), with
// its "address" (A or A/M), "netmask" (dotted or a length; none: /32) and
// "gateway"; "inet dhcp" and "inet manual" name no address. ethN is
// adapter N, found when it is one of ports.
func dockerPortConfigs(ports []Port, text string) []portConfig {
	auto := map[string]bool{}
	type stanza struct {
		iface, addr, mask, gw string
		static                bool
		line                  int
	}
	var stanzas []*stanza
	var cur *stanza
	for i, line := range strings.Split(strings.ReplaceAll(text, "\r", ""), "\n") {
		if j := strings.IndexByte(line, '#'); j >= 0 {
			line = line[:j]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "auto", "allow-auto":
			for _, name := range f[1:] {
				auto[name] = true
			}
			cur = nil
		case "iface":
			cur = &stanza{iface: f[1%len(f)], static: len(f) >= 4 && f[2] == "inet" && f[3] == "static"}
			stanzas = append(stanzas, cur)
		case "mapping", "source", "source-directory", "allow-hotplug":
			cur = nil
		case "address", "netmask", "gateway":
			if cur == nil || len(f) < 2 {
				continue
			}
			switch f[0] {
			case "address":
				cur.addr, cur.line = f[1], i+1
			case "netmask":
				cur.mask = f[1]
			case "gateway":
				cur.gw = f[1]
			}
		}
	}
	var out []portConfig
	for _, s := range stanzas {
		if !s.static || !auto[s.iface] || s.addr == "" {
			continue
		}
		a, m, _ := strings.Cut(s.addr, "/")
		addr, err := netip.ParseAddr(a)
		if err != nil || !addr.Is4() {
			continue
		}
		bits := 32
		if m == "" {
			m = s.mask
		}
		if b, err := strconv.Atoi(m); err == nil && b >= 0 && b <= 32 {
			bits = b
		} else if b, ok := maskBits(m); ok {
			bits = b
		}
		c := portConfig{iface: s.iface, line: s.line, addr: netip.PrefixFrom(addr, bits)}
		if gw, err := netip.ParseAddr(s.gw); err == nil && gw.Is4() {
			c.gateway = gw
		}
		base, _, _ := strings.Cut(s.iface, ":")
		if num, ok := strings.CutPrefix(base, "eth"); ok {
			if a, err := strconv.Atoi(num); err == nil && a >= 0 && a < len(ports) {
				c.adapter, c.found = a, true
			}
		}
		out = append(out, c)
	}
	return out
}

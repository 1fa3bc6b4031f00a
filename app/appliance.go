package app

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// A GNS3 appliance file (.gns3a, from the GNS3 marketplace, the
// gns3-registry) describes a router or VM: how its emulator should run
// it, the image files each of its versions needs (with their MD5 sums and
// where to download them), and the versions. Registry versions 3 to 7 keep
// the emulator's settings in an object named after it ("qemu"); version 8
// in "settings", sets of template properties a version picks by name.
// Importing one makes a user template per version whose images are all in
// the images folders, as the GNS3 GUI's appliance wizard does, and names
// the images the other versions lack. Which emulators' appliances import,
// and how their settings become template properties, is the node-type
// table's appliance column.

// The registry versions of appliance files nodedesk reads.
const (
	minApplianceRegistry = 3
	maxApplianceRegistry = 8
)

// ApplianceImport is what importing an appliance file did: the templates
// made (one per version whose images are all present) and the images the
// other versions lack.
type ApplianceImport struct {
	Templates []*Template
	Missing   []MissingImage
}

// MissingImage is an image a version of an appliance needs that is in
// none of the emulator's images folders (matched by MD5 sum, else by name when
// the file gives no sum): what to fetch, and where from when the file says.
type MissingImage struct {
	Version           string `json:"version"`
	Filename          string `json:"filename"`
	MD5Sum            string `json:"md5sum"`
	FileSize          int64  `json:"filesize,omitempty"`
	DownloadURL       string `json:"download_url,omitempty"`
	DirectDownloadURL string `json:"direct_download_url,omitempty"`
}

// appliance is the part of an appliance file nodedesk reads.
type appliance struct {
	Name            string `json:"name"`
	Category        string `json:"category"`
	RegistryVersion int    `json:"registry_version"`
	Symbol          string `json:"symbol"`
	Usage           string `json:"usage"`
	// Registry version 8: sets of settings.
	Settings []applianceSettings `json:"settings"`
	Images   []applianceImage    `json:"images"`
	Versions []applianceVersion  `json:"versions"`
	// extras are applianceNodeKeys as the file writes them.
	extras map[string]json.RawMessage
	// t is the node type of its emulator; own are the emulator's settings
	// of registry versions 3 to 7 (the object named after the type).
	t   NodeType
	own map[string]json.RawMessage
}

// applianceNodeKeys are the settings of a node an appliance file of
// registry version 3 to 7 gives beside its emulator's object.
var applianceNodeKeys = []string{"first_port_name", "port_name_format", "port_segment_size", "custom_adapters", "linked_clone"}

type applianceSettings struct {
	Name                     string                     `json:"name"`
	Default                  bool                       `json:"default"`
	InheritDefaultProperties *bool                      `json:"inherit_default_properties"`
	TemplateType             string                     `json:"template_type"`
	TemplateProperties       map[string]json.RawMessage `json:"template_properties"`
}

type applianceImage struct {
	Filename          string `json:"filename"`
	MD5Sum            string `json:"md5sum"`
	Checksum          string `json:"checksum"`
	ChecksumType      string `json:"checksum_type"`
	FileSize          int64  `json:"filesize"`
	DownloadURL       string `json:"download_url"`
	DirectDownloadURL string `json:"direct_download_url"`
}

type applianceVersion struct {
	Name     string            `json:"name"`
	Images   map[string]string `json:"images"`
	Settings string            `json:"settings"`
	Category string            `json:"category"`
	Symbol   string            `json:"symbol"`
	Usage    string            `json:"usage"`
}

// applianceCategories maps an appliance's category to a template's, and
// gives the builtin symbol a template of it gets when the file names none
// nodedesk has ("": the emulator's own symbol).
var applianceCategories = map[string]struct{ category, symbol string }{
	"router":            {"router", ":/symbols/router.svg"},
	"switch":            {"switch", ":/symbols/ethernet_switch.svg"},
	"multilayer_switch": {"switch", ":/symbols/multilayer_switch.svg"},
	"firewall":          {"firewall", ":/symbols/firewall.svg"},
	"guest":             {"guest", ""},
}

func notAppliance(format string, args ...any) error {
	return Errorf(EINVALID, "This is not an appliance nodedesk can import: "+format, args...)
}

// parseAppliance reads an appliance file and checks what importing it
// needs.
func parseAppliance(raw []byte) (*appliance, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, notAppliance("send the JSON of a GNS3 appliance file (.gns3a)")
	}
	rv, ok := top["registry_version"]
	if !ok {
		return nil, notAppliance("it has no registry_version, which every GNS3 appliance file (.gns3a) has")
	}
	var version int
	if err := json.Unmarshal(rv, &version); err != nil {
		return nil, notAppliance("its registry_version %s is not a whole number", rv)
	}
	if version < minApplianceRegistry {
		return nil, notAppliance("it is of registry version %d, older than %d, the first nodedesk reads; get the appliance's current file from the GNS3 marketplace", version, minApplianceRegistry)
	}
	if version > maxApplianceRegistry {
		return nil, notAppliance("it is of registry version %d, newer than %d, the last nodedesk reads", version, maxApplianceRegistry)
	}
	a := &appliance{}
	if err := json.Unmarshal(raw, a); err != nil {
		return nil, notAppliance("%v", err)
	}
	a.extras = map[string]json.RawMessage{}
	for _, k := range applianceNodeKeys {
		if raw, ok := top[k]; ok {
			a.extras[k] = raw
		}
	}
	if strings.TrimSpace(a.Name) == "" {
		return nil, notAppliance("it has no name")
	}
	if _, ok := applianceCategories[a.Category]; !ok {
		return nil, notAppliance("its category %q is none of router, switch, multilayer_switch, firewall, guest", a.Category)
	}
	if err := a.findEmulator(top); err != nil {
		return nil, err
	}
	if len(a.Versions) == 0 {
		return nil, notAppliance("%s lists no versions, so there is nothing to make a template of", a.Name)
	}
	return a, nil
}

// findEmulator sets the node type an appliance's settings are for, from
// its settings' template type (registry 8) or the object named after a
// type (3 to 7), and refuses an emulator whose appliances do not import.
func (a *appliance) findEmulator(top map[string]json.RawMessage) error {
	if a.RegistryVersion >= 8 {
		for _, s := range a.Settings {
			if s.TemplateType != "" {
				a.t = NodeType(s.TemplateType)
				break
			}
		}
	} else {
		for _, t := range NodeTypes {
			if raw, ok := top[string(t)]; ok {
				if err := json.Unmarshal(raw, &a.own); err != nil {
					return notAppliance("its %s settings are not an object", t)
				}
				a.t = t
				break
			}
		}
	}
	if a.t == "" {
		return notAppliance("%s has no settings for an emulator", a.Name)
	}
	if a.t.kind().appliance == nil {
		var can []string
		for _, t := range NodeTypes {
			if t.kind().appliance != nil {
				can = append(can, t.Title())
			}
		}
		return Errorf(EINVALID, "%s is a %s appliance; nodedesk imports %s appliances only, for now", a.Name, a.t.Title(), joinAnd(can))
	}
	return nil
}

// properties are the template properties a version runs with: the
// emulator's object (registry 3 to 7), or the settings set the version names, else
// the default set, else the first (registry 8); a named set inherits the
// default set's properties unless it says not to.
func (a *appliance) properties(v applianceVersion) (map[string]json.RawMessage, error) {
	if a.RegistryVersion < 8 {
		return maps.Clone(a.own), nil
	}
	var def *applianceSettings
	for i := range a.Settings {
		if a.Settings[i].Default {
			def = &a.Settings[i]
			break
		}
	}
	if v.Settings != "" {
		for _, s := range a.Settings {
			if s.Name != v.Settings {
				continue
			}
			if NodeType(s.TemplateType) != a.t {
				return nil, Errorf(EINVALID, "Version %s of %s runs settings %q, which are for %s, not %s", v.Name, a.Name, s.Name, NodeType(s.TemplateType).Title(), a.t.Title())
			}
			props := map[string]json.RawMessage{}
			if def != nil && def.TemplateType == s.TemplateType && (s.InheritDefaultProperties == nil || *s.InheritDefaultProperties) {
				maps.Copy(props, def.TemplateProperties)
			}
			maps.Copy(props, s.TemplateProperties)
			return props, nil
		}
		return nil, notAppliance("version %s of %s names settings %q, which the file does not have", v.Name, a.Name, v.Settings)
	}
	if def == nil && len(a.Settings) > 0 {
		def = &a.Settings[0]
	}
	if def == nil || NodeType(def.TemplateType) != a.t {
		return nil, notAppliance("%s has no %s settings for version %s", a.Name, a.t.Title(), v.Name)
	}
	return maps.Clone(def.TemplateProperties), nil
}

// md5 is the MD5 sum the file gives for an image ("" when none). Codes:
// EINVALID (another kind of checksum).
func (im applianceImage) md5() (string, error) {
	if im.MD5Sum != "" {
		return strings.ToLower(im.MD5Sum), nil
	}
	if im.Checksum != "" {
		if im.ChecksumType != "" && im.ChecksumType != "md5" {
			return "", Errorf(EINVALID, "Image %s has a %s checksum; nodedesk matches images by MD5 only", im.Filename, im.ChecksumType)
		}
		return strings.ToLower(im.Checksum), nil
	}
	return "", nil
}

// image finds the file entry a version names: by its name, or, for a
// name with a folder (an archive's member), by the folder's.
func (a *appliance) image(name string) (applianceImage, bool) {
	for _, try := range []string{name, strings.SplitN(name, "/", 2)[0]} {
		for _, im := range a.Images {
			if im.Filename == try {
				return im, true
			}
		}
	}
	return applianceImage{}, false
}

// matchImage finds an image of the folders that is the file an appliance
// describes: the same MD5 sum (the same name first), or the same name when
// the file gives no sum.
func matchImage(local []Image, filename, sum string) (Image, bool) {
	var byName, bySum []Image
	for _, img := range local {
		if img.Filename == filename {
			byName = append(byName, img)
		}
		if sum != "" && img.MD5Sum == sum {
			bySum = append(bySum, img)
		}
	}
	if sum == "" {
		return first(byName)
	}
	for _, img := range bySum {
		if img.Filename == filename {
			return img, true
		}
	}
	return first(bySum)
}

func first(imgs []Image) (Image, bool) {
	if len(imgs) == 0 {
		return Image{}, false
	}
	return imgs[0], true
}

// builtinSymbol is sym when it names one of GNS3's builtin symbols, else "".
func builtinSymbol(sym string) string {
	if strings.HasPrefix(sym, ":/symbols/") {
		return sym
	}
	return ""
}

// template builds the settings of the template of one version, its
// images found: the file's settings as GNS3's template keys them (the
// table's appliance column), the images, and the template's name,
// category, symbol and usage.
func (a *appliance) template(v applianceVersion, props map[string]json.RawMessage, images map[string]string) (TemplateSettings, error) {
	ts := TemplateSettings{}
	set := func(k string, v any) {
		ts[k], _ = json.Marshal(v)
	}
	cat := applianceCategories[a.Category]
	if c, ok := applianceCategories[v.Category]; ok {
		cat = c
	}
	symbol := cmp.Or(builtinSymbol(v.Symbol), builtinSymbol(a.Symbol), cat.symbol, a.t.kind().symbol)
	usage := cmp.Or(v.Usage, a.Usage)
	set("name", a.Name+" "+v.Name)
	set("category", cat.category)
	set("symbol", symbol)
	if usage != "" {
		set("usage", usage)
	}
	if a.RegistryVersion < 8 {
		maps.Copy(ts, a.extras)
	}
	if err := a.t.kind().appliance(props, ts); err != nil {
		return nil, err
	}
	for k, p := range images {
		set(k, p)
	}
	set("template_type", a.t)
	set("compute_id", LocalCompute)
	return ts, nil
}

// ImportAppliance imports a GNS3 appliance file (the JSON of a .gns3a,
// registry version 3 to 8): a user template for each version whose
// images are all in its emulator's images folders, matched by MD5 sum (by name
// when the file gives no sum), named "<appliance> <version>"; the images
// the other versions lack are listed, with where to download them. Either
// every template is made or none, each announced by a template.created.
// Codes: EINVALID (not an appliance file,
// an older or newer registry version, an emulator whose appliances do not
// import, a broken file,
// settings a template refuses).
func (s *Service) ImportAppliance(ctx context.Context, raw []byte) (*ApplianceImport, error) {
	a, err := parseAppliance(raw)
	if err != nil {
		return nil, err
	}
	local, err := s.Images(ctx, a.t.kind().imageKind)
	if err != nil {
		return nil, err
	}
	out := &ApplianceImport{Templates: []*Template{}, Missing: []MissingImage{}}
	var pending []TemplateSettings
	for _, v := range a.Versions {
		images := map[string]string{}
		var missing []MissingImage
		for _, key := range slices.Sorted(maps.Keys(v.Images)) {
			name := v.Images[key]
			if keys := a.t.ImageProperties(); !slices.Contains(keys, key) {
				return nil, notAppliance("version %s of %s gives a %s, which a %s node does not take (it takes %s)", v.Name, a.Name, key, a.t.Title(), strings.Join(keys, ", "))
			}
			im, ok := a.image(name)
			if !ok {
				return nil, notAppliance("version %s of %s needs %s, which its list of images does not describe", v.Name, a.Name, name)
			}
			sum, err := im.md5()
			if err != nil {
				return nil, err
			}
			if img, ok := matchImage(local, im.Filename, sum); ok {
				images[key] = img.Path
				continue
			}
			missing = append(missing, MissingImage{Version: v.Name, Filename: im.Filename, MD5Sum: sum, FileSize: im.FileSize,
				DownloadURL: im.DownloadURL, DirectDownloadURL: im.DirectDownloadURL})
		}
		if len(missing) > 0 {
			out.Missing = append(out.Missing, missing...)
			continue
		}
		props, err := a.properties(v)
		if err != nil {
			return nil, err
		}
		ts, err := a.template(v, props, images)
		if err != nil {
			return nil, err
		}
		pending = append(pending, ts)
	}
	for _, ts := range pending {
		t, err := s.newTemplate(ts)
		if err != nil {
			return nil, err
		}
		out.Templates = append(out.Templates, t)
	}
	if len(out.Templates) == 0 {
		return out, nil
	}
	// One write: all or none, each announced as any new template is.
	if err := s.putNewTemplates(ctx, out.Templates...); err != nil {
		return nil, err
	}
	return out, nil
}

package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
)

// Template is a recipe for a node, as GNS3 clients list and use them. The
// builtin templates have GNS3's fixed ids, so scripts that name them work;
// user templates are kept in the store. Its JSON tags are the store's
// record format.
type Template struct {
	ID                string   `json:"template_id"`
	Name              string   `json:"name"`
	Type              NodeType `json:"template_type"`
	Category          string   `json:"category"` // router, switch, guest or firewall
	DefaultNameFormat string   `json:"default_name_format"`
	Symbol            string   `json:"symbol"`
	Builtin           bool     `json:"builtin"`
	ComputeID         *string  `json:"compute_id"`
	// Settings are the type's own settings of a user template, kept as
	// given (console_type, console_auto_start, ports_mapping, ...): a node
	// made from the template gets them.
	Settings map[string]json.RawMessage `json:"settings,omitempty"`
	// Seq orders user templates by creation; the store assigns it.
	Seq uint64 `json:"seq"`
}

func builtin(id, name string, t NodeType, category string) Template {
	return Template{ID: id, Name: name, Type: t, Category: category, Builtin: true,
		DefaultNameFormat: t.kind().nameFormat, Symbol: t.kind().symbol}
}

// withSettings gives a builtin template one of its type's settings (raw
// JSON), as GNS3's builtin template has it.
func withSettings(t Template, key, raw string) Template {
	t.Settings = map[string]json.RawMessage{key: json.RawMessage(raw)}
	return t
}

// templateKind is what a user template of a node type starts with where
// a client leaves things out, as GNS3's template schema of the type
// (schemas/<type>_template.py) fills them. Its zero value: the node type's
// name format, its builtin template's category, no settings.
type templateKind struct {
	nameFormat string
	category   string
	// settings are the defaults of the type's own settings, GNS3-keyed.
	settings map[string]any
	// required are the settings a new template must give, non-empty
	// (a Docker template's image).
	required []string
	// templateOnly are settings a template shows and a node made from
	// it does not get (a Dynamips template's base config file names).
	templateOnly []string
	// variant, when set, is the part of the kind that depends on the
	// settings a template has (a Dynamips template's platform): its
	// settings and required keys add to the kind's (of).
	variant func(given map[string]json.RawMessage) templateKind
}

// of is k for a template with settings given: k's settings and required
// keys and those of its variant.
func (k templateKind) of(given map[string]json.RawMessage) templateKind {
	if k.variant == nil {
		return k
	}
	v := k.variant(given)
	if len(v.settings) > 0 {
		k.settings = maps.Clone(k.settings)
		maps.Copy(k.settings, v.settings)
	}
	k.required = append(slices.Clip(k.required), v.required...)
	return k
}

// withDefaults is t with its type's default settings for those it lacks:
// GNS3 fills them when it makes a template and each time it loads one.
func (t Template) withDefaults() Template {
	defs := t.Type.kind().props.template.of(t.Settings).settings
	if t.Builtin || len(defs) == 0 {
		return t
	}
	t.Settings = maps.Clone(t.Settings)
	if t.Settings == nil {
		t.Settings = map[string]json.RawMessage{}
	}
	for k, v := range defs {
		if _, ok := t.Settings[k]; !ok {
			t.Settings[k], _ = json.Marshal(v)
		}
	}
	return t
}

// templateCategories are GNS3's categories; old clients send their index.
var templateCategories = []string{"router", "switch", "guest", "firewall"}

// templateKeys are the keys a template has beside its type's settings.
var templateKeys = []string{"template_id", "template_type", "name", "category", "default_name_format", "symbol", "builtin", "compute_id"}

// nodeKeys are the settings of a template that are fields of the node it
// makes; the other settings are the node's properties.
var nodeKeys = []string{"console_type", "console_auto_start", "symbol", "port_name_format", "port_segment_size", "first_port_name", "custom_adapters"}

func templateNotFound(id string) error {
	return Errorf(ENOTFOUND, "Template ID %s doesn't exist", id)
}

// FindTemplates returns the templates: builtins first, then user
// templates in creation order.
func (s *Service) FindTemplates(ctx context.Context) ([]Template, error) {
	out := append([]Template(nil), builtinTemplates...)
	err := s.view(func(tx Tx) error {
		ts, err := tx.Templates()
		for _, t := range ts {
			out = append(out, t.withDefaults())
		}
		return err
	})
	return out, err
}

// FindTemplateByID returns one template. Codes: ENOTFOUND.
func (s *Service) FindTemplateByID(ctx context.Context, id string) (*Template, error) {
	var t *Template
	err := s.view(func(tx Tx) (err error) {
		t, err = findTemplate(tx, id)
		return err
	})
	return t, err
}

func findTemplate(tx Tx, id string) (*Template, error) {
	cid, ok := canonicalID(id)
	if !ok {
		return nil, templateNotFound(id)
	}
	for _, t := range builtinTemplates {
		if t.ID == cid {
			return &t, nil
		}
	}
	t, err := tx.Template(cid)
	if err == nil && t == nil {
		err = templateNotFound(id)
	}
	if err != nil {
		return nil, err
	}
	filled := t.withDefaults()
	return &filled, nil
}

// TemplateSettings is a template as a client sends it: GNS3's keys, the
// common ones and the type's own, at the top level.
type TemplateSettings map[string]json.RawMessage

// str reads a string key; a key absent or null is "".
func (ts TemplateSettings) str(key string) (string, bool, error) {
	raw, ok := ts[key]
	if !ok || string(raw) == "null" {
		return "", false, nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", false, Invalid(key, "%s must be a string", key)
	}
	return v, true, nil
}

// apply sets t's common fields from ts and merges the rest into its
// settings, as GNS3 updates a template (keys given replace, others stay).
func (ts TemplateSettings) apply(t *Template) error {
	for _, f := range []struct {
		key string
		dst *string
	}{{"name", &t.Name}, {"default_name_format", &t.DefaultNameFormat}, {"symbol", &t.Symbol}} {
		v, ok, err := ts.str(f.key)
		if err != nil {
			return err
		}
		if ok {
			if v == "" {
				return Invalid(f.key, "A template's %s cannot be empty", f.key)
			}
			*f.dst = v
		}
	}
	if raw, ok := ts["category"]; ok {
		var i int
		if json.Unmarshal(raw, &i) == nil && i >= 0 && i < len(templateCategories) {
			t.Category = templateCategories[i]
		} else if c, _, err := ts.str("category"); err == nil && slices.Contains(templateCategories, c) {
			t.Category = c
		} else {
			return Invalid("category", "A template's category is one of %s", strings.Join(templateCategories, ", "))
		}
	}
	if t.Settings == nil {
		t.Settings = map[string]json.RawMessage{}
	}
	for k, v := range ts {
		if !slices.Contains(templateKeys, k) {
			t.Settings[k] = v
		}
	}
	*t = t.withDefaults()
	c, err := t.nodeCreate(TemplateUse{})
	if err != nil {
		return err
	}
	// Settings a node could not take are refused now, not when a node is
	// made from the template; they sit at the template's top level.
	var p Properties
	if err := applyProperties(t.Type, c.Properties, &p); err != nil {
		var e *Error
		if errors.As(err, &e) {
			f := *e
			f.Field = strings.TrimPrefix(e.Field, "properties.")
			return &f
		}
		return err
	}
	return nil
}

// CreateTemplate adds a user template. name and template_type are
// required; default_name_format, symbol, category and the type's own
// settings default to GNS3's for the type. Settings a node of the type
// could not take are refused. A template_id that exists already is a
// conflict, as in GNS3. Announced by a template.created, as GNS3 does:
// its GUI learns the template only from that. Codes: EINVALID, ECONFLICT.
func (s *Service) CreateTemplate(ctx context.Context, ts TemplateSettings) (*Template, error) {
	t, err := s.newTemplate(ts)
	if err != nil {
		return nil, err
	}
	return t, s.putNewTemplates(ctx, t)
}

// newTemplate is the user template ts describes, checked, not yet stored.
func (s *Service) newTemplate(ts TemplateSettings) (*Template, error) {
	id := s.c.NewID()
	if v, ok, err := ts.str("template_id"); err != nil {
		return nil, err
	} else if ok {
		if id, ok = canonicalID(v); !ok {
			return nil, Invalid("template_id", "Template ID %s is not a valid UUID", v)
		}
	}
	typ, ok, err := ts.str("template_type")
	if err != nil {
		return nil, err
	}
	if !ok || !slices.Contains(NodeTypes, NodeType(typ)) {
		return nil, Invalid("template_type", "A template needs a template_type, one of the node types")
	}
	if name, _, _ := ts.str("name"); name == "" {
		return nil, Invalid("name", "A template needs a name")
	}
	k := NodeType(typ).kind()
	t := &Template{ID: id, Type: NodeType(typ), Category: cmp.Or(k.props.template.category, "router"),
		DefaultNameFormat: cmp.Or(k.props.template.nameFormat, k.nameFormat, "{name}-{0}"), Symbol: k.symbol}
	for _, b := range builtinTemplates {
		if b.Type == t.Type {
			t.Category = b.Category
		}
	}
	if c, ok, err := ts.str("compute_id"); err != nil {
		return nil, err
	} else if ok {
		t.ComputeID = &c
	}
	if err := ts.apply(t); err != nil {
		return nil, err
	}
	for _, key := range k.props.template.of(t.Settings).required {
		if v, _, _ := ts.str(key); v == "" {
			return nil, Invalid(key, "A %s template needs %s", t.Type, key)
		}
	}
	return t, nil
}

// putNewTemplates stores new user templates, all or none, each announced
// by a template.created. An id taken already is a conflict.
func (s *Service) putNewTemplates(ctx context.Context, ts ...*Template) error {
	return s.update(ctx, func(tx Tx, emit emitFunc) error {
		for _, t := range ts {
			if existing, err := findTemplate(tx, t.ID); err == nil && existing != nil {
				return Conflict("template_id", "Template ID '%s' already exists", t.ID)
			} else if ErrorCode(err) != ENOTFOUND {
				return err
			}
		}
		for _, t := range ts {
			if err := tx.PutTemplate(t); err != nil {
				return err
			}
			emit(EventTemplateCreated, "", t)
		}
		return nil
	})
}

// UpdateTemplate changes a user template; template_id, template_type,
// compute_id and builtin are ignored, as in GNS3. Builtin templates cannot
// be changed. A change is announced by a template.updated. Codes:
// EINVALID, ENOTFOUND, ECONFLICT (builtin).
func (s *Service) UpdateTemplate(ctx context.Context, id string, ts TemplateSettings) (*Template, error) {
	var after *Template
	err := s.update(ctx, func(tx Tx, emit emitFunc) error {
		before, err := findTemplate(tx, id)
		if err != nil {
			return err
		}
		if before.Builtin {
			return Errorf(ECONFLICT, "Template ID %s cannot be changed because it is a builtin; duplicate it as a template of your own instead", before.ID)
		}
		c := *before
		c.Settings = maps.Clone(before.Settings)
		if err := ts.apply(&c); err != nil {
			return err
		}
		if len(c.Settings) == 0 {
			c.Settings = before.Settings // none before, none after: no change
		}
		after = &c
		if unchanged(before, after) {
			return errUnchanged
		}
		emit(EventTemplateUpdated, "", after)
		return tx.PutTemplate(after)
	})
	return after, err
}

// DeleteTemplate removes a user template, announced by a template.deleted
// carrying it. Codes: ENOTFOUND, ECONFLICT (builtin).
func (s *Service) DeleteTemplate(ctx context.Context, id string) error {
	return s.update(ctx, func(tx Tx, emit emitFunc) error {
		t, err := findTemplate(tx, id)
		if err != nil {
			return err
		}
		if t.Builtin {
			return Errorf(ECONFLICT, "Template ID %s cannot be deleted because it is a builtin", t.ID)
		}
		emit(EventTemplateDeleted, "", t)
		return tx.DeleteTemplate(t.ID)
	})
}

// TemplateUsage is what was made from a template: nodes keep their
// template_id, and their own settings, whatever becomes of the template.
type TemplateUsage struct {
	Nodes    int `json:"nodes"`
	Projects int `json:"projects"`
}

// TemplateUsage counts the nodes made from a template, in every project
// (open or closed), and the projects they are in: what a user is told
// before deleting it. Codes: ENOTFOUND.
func (s *Service) TemplateUsage(ctx context.Context, id string) (TemplateUsage, error) {
	var u TemplateUsage
	err := s.view(func(tx Tx) error {
		t, err := findTemplate(tx, id)
		if err != nil {
			return err
		}
		projects, err := tx.Projects()
		if err != nil {
			return err
		}
		for _, p := range projects {
			nodes, err := tx.Nodes(p.ID)
			if err != nil {
				return err
			}
			n := 0
			for _, nd := range nodes {
				if nd.TemplateID != nil && *nd.TemplateID == t.ID {
					n++
				}
			}
			if n > 0 {
				u.Nodes += n
				u.Projects++
			}
		}
		return nil
	})
	return u, err
}

// DuplicateTemplate copies a user template under a new id, with the same
// name, as GNS3 does. Codes: ENOTFOUND, ECONFLICT (builtin).
func (s *Service) DuplicateTemplate(ctx context.Context, id string) (*Template, error) {
	t, err := s.FindTemplateByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if t.Builtin {
		return nil, Errorf(ECONFLICT, "Template ID %s cannot be duplicated because it is a builtin", t.ID)
	}
	c := *t
	c.ID, c.Seq = s.c.NewID(), 0
	return &c, s.putNewTemplates(ctx, &c)
}

// TemplateUse places a node made from a template.
type TemplateUse struct {
	X, Y      int
	Name      Field[string] // default: the template's name format
	ComputeID Field[string] // default: the template's compute, else local
}

// nodeCreate is the request for a node made from t: its name format
// ("{name}" is the template's name), symbol, and settings — the node's own
// fields (console_type, ...) and, for the rest, its properties.
func (t *Template) nodeCreate(u TemplateUse) (NodeCreate, error) {
	c := NodeCreate{Type: t.Type, TemplateID: Some(t.ID)}
	if t.ComputeID != nil && *t.ComputeID != "" {
		c.ComputeID = *t.ComputeID
	}
	if u.ComputeID.has() && (t.Builtin || c.ComputeID == "") {
		c.ComputeID = u.ComputeID.Value
	}
	node, props := map[string]json.RawMessage{}, map[string]json.RawMessage{}
	for k, v := range t.Settings {
		if slices.Contains(t.Type.kind().props.template.templateOnly, k) {
			continue
		}
		if f := t.Type.baseFile(k); f != nil {
			// The base file's content becomes the node's property (a
			// VPCS's base_script_file, its script), unless the template
			// gives the property itself.
			var file string
			if _, own := t.Settings[f.property]; !own && json.Unmarshal(v, &file) == nil && f.bases[file] != "" {
				props[f.property], _ = json.Marshal(f.bases[file])
			}
			continue
		}
		if slices.Contains(nodeKeys, k) {
			node[k] = v
		} else {
			props[k] = v
		}
	}
	if len(node) > 0 {
		raw, _ := json.Marshal(node)
		if err := json.Unmarshal(raw, &c.NodeUpdate); err != nil {
			return c, Invalid("", "Invalid template settings for a %s node: %v", t.Type, err)
		}
	}
	if len(props) > 0 {
		raw, _ := json.Marshal(props)
		p, err := DecodeProperties(t.Type, raw)
		if err != nil {
			return c, err
		}
		c.Properties = p
	}
	c.Name = Some(strings.ReplaceAll(t.DefaultNameFormat, "{name}", t.Name))
	if u.Name.has() {
		c.Name = u.Name
	}
	c.X, c.Y, c.Symbol = Some(u.X), Some(u.Y), Some(t.Symbol)
	return c, nil
}

// CreateNodeFromTemplate adds a node made from a template at (x, y).
// Codes: EINVALID, ENOTFOUND (project, template or compute), ECONFLICT.
func (s *Service) CreateNodeFromTemplate(ctx context.Context, projectID, templateID string, u TemplateUse) (*Node, error) {
	t, err := s.FindTemplateByID(ctx, templateID)
	if err != nil {
		return nil, err
	}
	c, err := t.nodeCreate(u)
	if err != nil {
		return nil, err
	}
	return s.CreateNode(ctx, projectID, c)
}

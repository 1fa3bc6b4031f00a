package app

import "context"

// Template is a recipe for a node, as GNS3 clients list and use them. The
// builtin templates have GNS3's fixed ids, so scripts that name them work.
type Template struct {
	ID                string
	Name              string
	Type              NodeType
	Category          string // router, switch, guest or firewall
	DefaultNameFormat string
	Symbol            string
}

// builtinTemplates are GNS3's builtin templates; their ids are GNS3's
// uuid3(NAMESPACE_DNS, type).
var builtinTemplates = []Template{
	builtin("19021f99-e36f-394d-b4a1-8aaa902ab9cc", "VPCS", VPCS, "guest"),
	builtin("1966b864-93e7-32d5-965f-001384eec461", "Ethernet switch", EthernetSwitch, "switch"),
	builtin("b4503ea9-d6b6-3695-9fe4-1db3b39290b0", "Ethernet hub", EthernetHub, "switch"),
	builtin("dd0f6f3a-ba58-3249-81cb-a1dd88407a47", "Frame Relay switch", FrameRelaySwitch, "switch"),
	builtin("39e257dc-8412-3174-b6b3-0ee3ed6a43e9", "Cloud", Cloud, "guest"),
	builtin("df8f4ea9-33b7-3e96-86a2-c39bc9bb649c", "NAT", NAT, "guest"),
	builtin("aaa764e2-b383-300f-8a0e-3493bbfdb7d2", "ATM switch", ATMSwitch, "switch"),
}

func builtin(id, name string, t NodeType, category string) Template {
	return Template{ID: id, Name: name, Type: t, Category: category,
		DefaultNameFormat: t.kind().nameFormat, Symbol: t.kind().symbol}
}

// FindTemplates returns the templates, builtins first.
func (s *Service) FindTemplates(ctx context.Context) []Template {
	return append([]Template(nil), builtinTemplates...)
}

// FindTemplateByID returns one template. Codes: ENOTFOUND.
func (s *Service) FindTemplateByID(ctx context.Context, id string) (*Template, error) {
	cid, _ := canonicalID(id)
	for _, t := range builtinTemplates {
		if t.ID == cid {
			return &t, nil
		}
	}
	return nil, Errorf(ENOTFOUND, "Template ID %s doesn't exist", id)
}

// TemplateUse places a node made from a template.
type TemplateUse struct {
	X, Y      int
	Name      Field[string] // default: the template's name format
	ComputeID Field[string] // default: local
}

// CreateNodeFromTemplate adds a node made from a template at (x, y).
// Codes: EINVALID, ENOTFOUND (project, template or compute), ECONFLICT.
func (s *Service) CreateNodeFromTemplate(ctx context.Context, projectID, templateID string, u TemplateUse) (*Node, error) {
	t, err := s.FindTemplateByID(ctx, templateID)
	if err != nil {
		return nil, err
	}
	c := NodeCreate{Type: t.Type, TemplateID: Some(t.ID)}
	if u.ComputeID.has() {
		c.ComputeID = u.ComputeID.Value
	}
	c.Name = Some(t.DefaultNameFormat)
	if u.Name.has() {
		c.Name = u.Name
	}
	c.X, c.Y, c.Symbol = Some(u.X), Some(u.Y), Some(t.Symbol)
	return s.CreateNode(ctx, projectID, c)
}

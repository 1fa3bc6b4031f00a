package gns3file

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/google/uuid"

	"nodedesk/app"
)

// Revision is the revision of the .gns3 format GNS3 2.2 writes, and the one
// nodedesk writes; OldestRevision is the oldest it reads (GNS3 2.0).
const (
	Revision       = 9
	OldestRevision = 7
)

// TopologyFile is the name of the topology inside a .gns3project archive.
const TopologyFile = "project.gns3"

// Options change how a project file is read.
type Options struct {
	// Properties checks and decodes the properties of a node of type t
	// (the REST door checks them against its contract first); nil means
	// app.DecodeProperties.
	Properties func(t app.NodeType, raw json.RawMessage) (app.PropertiesUpdate, error)
	// Limits bound what reading may cost; zero fields take DefaultLimits'.
	Limits Limits
}

func (o Options) properties(t app.NodeType, raw json.RawMessage) (app.PropertiesUpdate, error) {
	if o.Properties != nil {
		return o.Properties(t, raw)
	}
	return app.DecodeProperties(t, raw)
}

// file is a .gns3 as GNS3 2.x writes it. Unknown keys are ignored.
type file struct {
	app.ProjectUpdate
	ProjectID string `json:"project_id"`
	Type      string `json:"type"`
	Revision  *int   `json:"revision"`
	Version   string `json:"version"`
	Topology  *struct {
		Nodes    []node              `json:"nodes"`
		Links    []link              `json:"links"`
		Drawings []app.DrawingUpdate `json:"drawings"`
	} `json:"topology"`
}

// node is a node of a .gns3: the fields of a node update, its identity,
// and its properties, whose shape depends on its type.
type node struct {
	app.NodeUpdate
	NodeID      string                     `json:"node_id"`
	NodeType    app.NodeType               `json:"node_type"`
	TemplateID  app.Field[string]          `json:"template_id"`
	ApplianceID app.Field[string]          `json:"appliance_id"` // revision 9 of GNS3 2.2's development
	Properties  map[string]json.RawMessage `json:"properties"`
}

type link struct {
	LinkID string `json:"link_id"`
	app.LinkUpdate
}

// Decode reads a .gns3 topology (a UTF-8 BOM and CRLF line endings are
// fine) into the records of a project, applying GNS3's conversions of
// older revisions. Its ID and name are the file's. A node's compute_id is
// not kept: nodedesk has one compute, and every node goes to it. Codes:
// EINVALID (not a GNS3 topology, a value of the wrong type, a node type
// GNS3 2.2 does not have), ECONFLICT (a revision nodedesk does not read).
func Decode(raw []byte, o Options) (*app.ProjectImport, error) {
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	var f file
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, jsonError(err)
	}
	switch rev := revisionOf(f); {
	case f.Type != "topology" || f.Topology == nil:
		return nil, app.Errorf(app.EINVALID, "%s is not a GNS3 topology: it needs \"type\": \"topology\" and a \"topology\" object", TopologyFile)
	case rev > Revision:
		return nil, app.Errorf(app.ECONFLICT, "This project was created with a newer GNS3 (file revision %d, GNS3 %s); nodedesk reads revisions %d to %d (GNS3 2.0 to 2.2): upgrade nodedesk, or save the project with GNS3 2.2",
			rev, f.Version, OldestRevision, Revision)
	case rev < OldestRevision:
		return nil, app.Errorf(app.ECONFLICT, "This project was saved by GNS3 1.x or an early 2.0 (file revision %d); nodedesk reads revisions %d to %d: open and save it once with GNS3 2.2, then import it",
			rev, OldestRevision, Revision)
	case !f.Name.Set || f.Name.Null || f.Name.Value == "":
		return nil, app.Errorf(app.EINVALID, "%s has no project name", TopologyFile)
	}
	imp := &app.ProjectImport{ID: f.ProjectID, Name: f.Name.Value}
	convert(&f)
	imp.Settings = f.ProjectUpdate
	imp.Settings.Name = app.Field[string]{}
	for _, n := range f.Topology.Nodes {
		c, err := n.create(o)
		if err != nil {
			return nil, err
		}
		imp.Nodes = append(imp.Nodes, c)
	}
	for _, l := range f.Topology.Links {
		imp.Links = append(imp.Links, app.LinkImport{ID: orNewID(l.LinkID), LinkUpdate: l.LinkUpdate})
	}
	for _, d := range f.Topology.Drawings {
		d.ID = app.Some(orNewID(d.ID.Value))
		imp.Drawings = append(imp.Drawings, d)
	}
	return imp, nil
}

func revisionOf(f file) int {
	if f.Revision == nil {
		return 0 // GNS3 1.x wrote none
	}
	return *f.Revision
}

// orNewID is id, or a new one where the file gives none (GNS3 makes one).
func orNewID(id string) string {
	if id == "" {
		return uuid.NewString()
	}
	return id
}

// jsonError says where a .gns3 is not what GNS3 writes.
func jsonError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return app.Errorf(app.EINVALID, "%s is not valid JSON (at byte %d): %v", TopologyFile, se.Offset, err)
	case errors.As(err, &te):
		return app.Errorf(app.EINVALID, "%s is not a GNS3 topology: %s is a JSON %s, not %s", TopologyFile, cmp.Or(keyPath(te.Field), "the file"), te.Value, te.Type)
	}
	return app.Errorf(app.EINVALID, "%s is not a GNS3 topology: %v", TopologyFile, err)
}

// keyPath is a decoding error's path of JSON keys: the names of the Go
// structs embedded on the way (NodeUpdate) are not keys of the file.
func keyPath(field string) string {
	parts := strings.Split(field, ".")
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p != "" && unicode.IsUpper(rune(p[0])) }), ".")
}

// convert applies GNS3's conversions of older revisions (its
// load_topology) that matter to nodedesk, and its fixes of revision 9;
// those of a node type's properties are the type's
// (app.NodeType.UpgradeProperties).
func convert(f *file) {
	rev := revisionOf(*f)
	if rev < 9 && f.GridSize.Set { // 2.1 → 2.2: drawings take the nodes' grid
		f.DrawingGridSize = f.GridSize
	}
	for i := range f.Topology.Nodes {
		n := &f.Topology.Nodes[i]
		n.NodeType.UpgradeProperties(rev, n.Properties)
		if !n.TemplateID.Set && n.ApplianceID.Set { // 2.2 development: appliance_id became template_id
			n.TemplateID = n.ApplianceID
		}
	}
	if f.Variables.Set && !f.Variables.Null { // GNS3 drops variables with no name
		f.Variables.Value = slices.DeleteFunc(f.Variables.Value, func(v app.Variable) bool { return v.Name == "" })
	}
}

// consoleTypes maps GNS3 2.2's console types to nodedesk's (telnet, vnc,
// http, none): a graphical console is VNC-like, HTTPS is HTTP, and 2.0's
// serial console became telnet in GNS3 too.
var consoleTypes = map[app.ConsoleType]app.ConsoleType{
	"https": app.ConsoleHTTP, "spice": app.ConsoleVNC, "spice+agent": app.ConsoleVNC, "serial": app.ConsoleTelnet,
}

// builtinKeys are the property keys of the types nodedesk models (nil:
// free-form, kept whole).
var builtinKeys = func() map[app.NodeType][]string {
	m := map[app.NodeType][]string{}
	for _, info := range app.NodeTypeInfos() {
		m[info.Type] = info.Properties
	}
	return m
}()

// create is the node's creation request.
func (n node) create(o Options) (app.NodeCreate, error) {
	name := cmp.Or(n.Name.Value, n.NodeID)
	if !n.NodeType.Valid() {
		return app.NodeCreate{}, app.Errorf(app.EINVALID, "Node %s of the file has node type %q, which GNS3 2.2 does not have", name, n.NodeType)
	}
	u := n.NodeUpdate
	if ct, ok := consoleTypes[u.ConsoleType.Value]; ok && !u.ConsoleType.Null {
		u.ConsoleType.Value = ct
	}
	if u.ConsoleType.Value == app.ConsoleVNC && u.Console.Set && u.Console.Value < app.VNCPortMin {
		u.Console = app.Field[int]{} // a SPICE port below VNC's displays: a fresh one
	}
	props := n.Properties
	if keys := builtinKeys[n.NodeType]; keys != nil {
		// The properties of a type nodedesk models are its own: keys GNS3
		// adds there (a compute's echo, older revisions' leftovers) go.
		props = map[string]json.RawMessage{}
		for _, k := range keys {
			if v, ok := n.Properties[k]; ok {
				props[k] = v
			}
		}
	}
	if len(props) > 0 {
		raw, err := json.Marshal(props)
		if err != nil {
			return app.NodeCreate{}, fmt.Errorf("node %s: %w", name, err)
		}
		if u.Properties, err = o.properties(n.NodeType, raw); err != nil {
			return app.NodeCreate{}, app.ImportError("Node", name, err)
		}
	}
	return app.NodeCreate{Type: n.NodeType, ID: orNewID(n.NodeID), TemplateID: n.TemplateID, NodeUpdate: u}, nil
}

package api

import (
	"cmp"
	"encoding/json"

	"nodedesk/app"
)

// The wire forms of nodedesk's values, keyed as GNS3 keys them. Field order
// is alphabetical, as GNS3 sorts its keys.

// nodeJSON is the controller view of a node.
type nodeJSON struct {
	// Booting is nodedesk's own: the node's process runs (status
	// "started") and its console has not shown that it booted yet
	// (app.BootWatcher, decision 0077).
	Booting          bool                `json:"booting"`
	CommandLine      *string             `json:"command_line"`
	ComputeConnected bool                `json:"compute_connected"`
	ComputeID        string              `json:"compute_id"`
	Console          *int                `json:"console"`
	ConsoleAutoStart bool                `json:"console_auto_start"`
	ConsoleHost      string              `json:"console_host"`
	ConsoleType      *string             `json:"console_type"`
	CustomAdapters   []app.CustomAdapter `json:"custom_adapters"`
	FirstPortName    *string             `json:"first_port_name"`
	Height           int                 `json:"height"`
	Label            app.Label           `json:"label"`
	Locked           bool                `json:"locked"`
	Name             string              `json:"name"`
	NodeDirectory    *string             `json:"node_directory"`
	NodeID           string              `json:"node_id"`
	NodeType         app.NodeType        `json:"node_type"`
	PortNameFormat   string              `json:"port_name_format"`
	PortSegmentSize  int                 `json:"port_segment_size"`
	// PortsWaiting is nodedesk's own: the cloud ports that came from a
	// project file and carry nothing until this machine's user confirms
	// them (app.Node.WaitingPorts); absent when there are none.
	PortsWaiting []string   `json:"ports_waiting,omitempty"`
	Ports        []app.Port `json:"ports"`
	ProjectID    string     `json:"project_id"`
	Properties   any        `json:"properties"`
	Status       app.Status `json:"status"`
	Symbol       *string    `json:"symbol"`
	TemplateID   *string    `json:"template_id"`
	Width        int        `json:"width"`
	X            int        `json:"x"`
	Y            int        `json:"y"`
	Z            int        `json:"z"`
}

func (s *Server) nodeJSON(n *app.Node) nodeJSON {
	w, h := n.Size()
	adapters := n.CustomAdapters
	if adapters == nil {
		adapters = []app.CustomAdapter{}
	}
	at := s.svc.ShowNode(n)
	var console *int
	if at.Console != 0 {
		console = &at.Console
	}
	return nodeJSON{
		Booting: at.Booting, CommandLine: n.CommandLine, ComputeConnected: at.Connected, ComputeID: at.ComputeID, Console: console,
		ConsoleAutoStart: n.ConsoleAutoStart, ConsoleHost: at.ConsoleHost, ConsoleType: consoleType(n),
		CustomAdapters: adapters, FirstPortName: n.FirstPortName, Height: h, Label: n.Label,
		Locked: n.Locked, Name: n.Name, NodeDirectory: s.svc.NodeDirectory(n), NodeID: n.ID,
		NodeType: n.Type, PortNameFormat: n.PortNameFormat, PortSegmentSize: n.PortSegmentSize,
		PortsWaiting: n.WaitingPorts(), Ports: n.Ports(), ProjectID: n.ProjectID, Properties: n.PropertiesView(), Status: at.Status,
		Symbol: n.Symbol, TemplateID: n.TemplateID, Width: w, X: n.X, Y: n.Y, Z: n.Z,
	}
}

func consoleType(n *app.Node) *string {
	if n.ConsoleType == app.ConsoleNone {
		return nil
	}
	c := string(n.ConsoleType)
	return &c
}

// computeJSON is the compute view of a node of one of app.ComputeTypes:
// name, node_id, project_id, status, and what its type's entry lists,
// with the compute view's own nullability (strings and numbers, not null).
func (s *Server) computeJSON(n *app.Node) any {
	v := map[string]any{"name": n.Name, "node_id": n.ID, "project_id": n.ProjectID, "status": n.Status}
	props := n.PropertiesView()
	for _, key := range n.Type.ComputeView() {
		switch key {
		case "command_line":
			v[key] = deref(n.CommandLine)
		case "console": // GNS3's null for none
			v[key] = nil
			if n.Console != 0 {
				v[key] = n.Console
			}
		case "console_type": // GNS3's "none" for none
			v[key] = cmp.Or(string(n.ConsoleType), "none")
		case "node_directory":
			v[key] = deref(s.svc.NodeDirectory(n))
		default:
			v[key] = props[key]
		}
	}
	return v
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// projectJSON is a project as GNS3 shows it.
type projectJSON struct {
	AutoClose           bool              `json:"auto_close"`
	AutoOpen            bool              `json:"auto_open"`
	AutoStart           bool              `json:"auto_start"`
	DrawingGridSize     int               `json:"drawing_grid_size"`
	Filename            string            `json:"filename"`
	GridSize            int               `json:"grid_size"`
	Name                string            `json:"name"`
	Path                string            `json:"path"`
	ProjectID           string            `json:"project_id"`
	SceneHeight         int               `json:"scene_height"`
	SceneWidth          int               `json:"scene_width"`
	ShowGrid            bool              `json:"show_grid"`
	ShowInterfaceLabels bool              `json:"show_interface_labels"`
	ShowLayers          bool              `json:"show_layers"`
	SnapToGrid          bool              `json:"snap_to_grid"`
	Status              app.ProjectStatus `json:"status"`
	Supplier            *app.Supplier     `json:"supplier"`
	Variables           []app.Variable    `json:"variables"`
	Zoom                int               `json:"zoom"`
	// Closure is nodedesk's own: why it closed the project by itself.
	Closure *app.ProjectClosure `json:"closure,omitempty"`
}

func (s *Server) projectJSON(p *app.Project) projectJSON {
	return projectJSON{AutoClose: p.AutoClose, AutoOpen: p.AutoOpen, AutoStart: p.AutoStart,
		DrawingGridSize: p.DrawingGridSize, Filename: p.Filename, GridSize: p.GridSize, Name: p.Name,
		Path: s.svc.ProjectDir(p.ID), ProjectID: p.ID, SceneHeight: p.SceneHeight, SceneWidth: p.SceneWidth,
		ShowGrid: p.ShowGrid, ShowInterfaceLabels: p.ShowInterfaceLabels, ShowLayers: p.ShowLayers,
		SnapToGrid: p.SnapToGrid, Status: p.Status, Supplier: p.Supplier, Variables: p.Variables, Zoom: p.Zoom, Closure: p.Closure}
}

// linkJSON is a link as GNS3 shows it.
type linkJSON struct {
	CaptureComputeID *string                    `json:"capture_compute_id"`
	CaptureFileName  *string                    `json:"capture_file_name"`
	CaptureFilePath  *string                    `json:"capture_file_path"`
	Capturing        bool                       `json:"capturing"`
	ComputeConnected bool                       `json:"compute_connected"`
	Filters          map[string]json.RawMessage `json:"filters"`
	LinkID           string                     `json:"link_id"`
	LinkStyle        map[string]json.RawMessage `json:"link_style"`
	LinkType         string                     `json:"link_type"`
	Nodes            []app.LinkEnd              `json:"nodes"`
	ProjectID        string                     `json:"project_id"`
	Suspend          bool                       `json:"suspend"`
}

func (s *Server) linkJSON(l *app.Link) linkJSON {
	j := linkJSONOf(l)
	j.ComputeConnected = s.svc.LinkConnected(l)
	return j
}

// linkJSONOf is l's wire form with compute_connected true (see linkJSON).
func linkJSONOf(l *app.Link) linkJSON {
	filters, style := l.Filters, l.LinkStyle
	if filters == nil {
		filters = map[string]json.RawMessage{}
	}
	if style == nil {
		style = map[string]json.RawMessage{}
	}
	return linkJSON{Filters: filters, LinkID: l.ID, LinkStyle: style, LinkType: l.LinkType,
		Nodes: nonNil(l.Nodes), ProjectID: l.ProjectID, Suspend: l.Suspend, Capturing: l.Capturing,
		CaptureFileName: l.CaptureFileName, CaptureFilePath: l.CaptureFilePath, ComputeConnected: true,
		CaptureComputeID: l.CaptureComputeID()}
}

// templateJSONOf is a template as GNS3 lists it: the common keys, and a
// user template's own settings beside them.
func templateJSONOf(t app.Template) map[string]any {
	out := make(map[string]any, len(t.Settings)+8)
	for k, v := range t.Settings {
		out[k] = v
	}
	out["builtin"], out["category"], out["compute_id"] = t.Builtin, t.Category, t.ComputeID
	out["default_name_format"], out["name"], out["symbol"] = t.DefaultNameFormat, t.Name, t.Symbol
	out["template_id"], out["template_type"] = t.ID, t.Type
	return out
}

// eventJSON is the wire form of an event's payload: the same body the REST
// answer for that object has.
func (s *Server) eventJSON(e app.Event) any {
	switch p := e.Payload.(type) {
	case *app.Node:
		return s.nodeJSON(p)
	case *app.Link:
		return s.linkJSON(p)
	case *app.ComputeView:
		return s.remoteComputeJSON(p)
	case *app.Project:
		return s.projectJSON(p)
	case *app.Drawing:
		return drawingJSONOf(p, true)
	case *app.DrawingChanged:
		return drawingJSONOf(p.Drawing, p.SVGChanged)
	case *app.Snapshot:
		return snapshotJSONOf(p)
	case *app.HistoryState:
		return historyStateJSONOf(p)
	case *app.Template:
		return templateJSONOf(*p)
	default:
		return p
	}
}

package api

import (
	"encoding/json"

	"nodedesk/app"
)

// The wire forms of nodedesk's values, keyed as GNS3 keys them. Field order
// is alphabetical, as GNS3 sorts its keys.

// nodeJSON is the controller view of a node.
type nodeJSON struct {
	CommandLine      *string             `json:"command_line"`
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
	Ports            []app.Port          `json:"ports"`
	ProjectID        string              `json:"project_id"`
	Properties       any                 `json:"properties"`
	Status           app.Status          `json:"status"`
	Symbol           *string             `json:"symbol"`
	TemplateID       *string             `json:"template_id"`
	Width            int                 `json:"width"`
	X                int                 `json:"x"`
	Y                int                 `json:"y"`
	Z                int                 `json:"z"`
}

func (s *Server) nodeJSON(n *app.Node) nodeJSON {
	w, h := n.Size()
	adapters := n.CustomAdapters
	if adapters == nil {
		adapters = []app.CustomAdapter{}
	}
	return nodeJSON{
		CommandLine: n.CommandLine, ComputeID: app.LocalCompute, Console: consolePort(n),
		ConsoleAutoStart: n.ConsoleAutoStart, ConsoleHost: s.svc.ConsoleHost(), ConsoleType: consoleType(n),
		CustomAdapters: adapters, FirstPortName: n.FirstPortName, Height: h, Label: n.Label,
		Locked: n.Locked, Name: n.Name, NodeDirectory: s.svc.NodeDirectory(n), NodeID: n.ID,
		NodeType: n.Type, PortNameFormat: n.PortNameFormat, PortSegmentSize: n.PortSegmentSize,
		Ports: n.Ports(), ProjectID: n.ProjectID, Properties: propertiesJSON(n), Status: n.Status,
		Symbol: n.Symbol, TemplateID: n.TemplateID, Width: w, X: n.X, Y: n.Y, Z: n.Z,
	}
}

func consolePort(n *app.Node) *int {
	if n.Console == 0 {
		return nil
	}
	c := n.Console
	return &c
}

func consoleType(n *app.Node) *string {
	if n.ConsoleType == app.ConsoleNone {
		return nil
	}
	c := string(n.ConsoleType)
	return &c
}

// propertiesJSON is the "properties" object of a controller node: the
// type-specific fields, keyed as the compute view keys them.
func propertiesJSON(n *app.Node) any {
	p := n.Properties
	switch n.Type {
	case app.VPCS:
		return vpcsProperties{StartupScript: p.StartupScript, StartupScriptPath: n.StartupScriptPath()}
	case app.EthernetSwitch:
		return map[string]any{"ports_mapping": nonNil(p.SwitchPorts)}
	case app.EthernetHub:
		return map[string]any{"ports_mapping": nonNil(p.HubPorts)}
	case app.FrameRelaySwitch:
		return map[string]any{"mappings": mappings(p)}
	case app.Cloud:
		rc := p.RemoteConsole
		if rc == nil {
			rc = &app.RemoteConsole{Type: "none", HTTPPath: "/"}
		}
		return cloudProperties{Interfaces: nonNil(p.Interfaces), PortsMapping: nonNil(p.CloudPorts),
			RemoteConsoleHost: rc.Host, RemoteConsolePort: rc.Port, RemoteConsoleType: rc.Type, RemoteConsoleHTTPPath: rc.HTTPPath}
	default:
		if p.Extra == nil {
			return map[string]json.RawMessage{}
		}
		return p.Extra
	}
}

type vpcsProperties struct {
	StartupScript     *string `json:"startup_script"`
	StartupScriptPath *string `json:"startup_script_path"`
}

type cloudProperties struct {
	Interfaces            []app.HostInterface `json:"interfaces"`
	PortsMapping          []app.CloudPort     `json:"ports_mapping"`
	RemoteConsoleHost     string              `json:"remote_console_host"`
	RemoteConsoleHTTPPath string              `json:"remote_console_http_path"`
	RemoteConsolePort     *int                `json:"remote_console_port"`
	RemoteConsoleType     string              `json:"remote_console_type"`
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func mappings(p app.Properties) map[string]string {
	if p.Mappings == nil {
		return map[string]string{}
	}
	return p.Mappings
}

// The compute views, one per type, with exactly the spec's fields.

type vpcsJSON struct {
	CommandLine       string     `json:"command_line"`
	Console           int        `json:"console"`
	ConsoleType       string     `json:"console_type"`
	Name              string     `json:"name"`
	NodeDirectory     string     `json:"node_directory"`
	NodeID            string     `json:"node_id"`
	ProjectID         string     `json:"project_id"`
	StartupScript     *string    `json:"startup_script"`
	StartupScriptPath *string    `json:"startup_script_path"`
	Status            app.Status `json:"status"`
}

type cloudJSON struct {
	Interfaces    []app.HostInterface `json:"interfaces"`
	Name          string              `json:"name"`
	NodeDirectory string              `json:"node_directory"`
	NodeID        string              `json:"node_id"`
	PortsMapping  []app.CloudPort     `json:"ports_mapping"`
	ProjectID     string              `json:"project_id"`
	Status        app.Status          `json:"status"`
}

type portsNodeJSON[P any] struct {
	Name         string     `json:"name"`
	NodeID       string     `json:"node_id"`
	PortsMapping []P        `json:"ports_mapping"`
	ProjectID    string     `json:"project_id"`
	Status       app.Status `json:"status"`
}

type frameRelayJSON struct {
	Mappings  map[string]string `json:"mappings"`
	Name      string            `json:"name"`
	NodeID    string            `json:"node_id"`
	ProjectID string            `json:"project_id"`
	Status    app.Status        `json:"status"`
}

// computeJSON is the compute view of a node of one of app.ComputeTypes.
func (s *Server) computeJSON(n *app.Node) any {
	dir := ""
	if d := s.svc.NodeDirectory(n); d != nil {
		dir = *d
	}
	p := n.Properties
	switch n.Type {
	case app.VPCS:
		cl := ""
		if n.CommandLine != nil {
			cl = *n.CommandLine
		}
		return vpcsJSON{CommandLine: cl, Console: n.Console, ConsoleType: string(n.ConsoleType), Name: n.Name,
			NodeDirectory: dir, NodeID: n.ID, ProjectID: n.ProjectID, StartupScript: p.StartupScript,
			StartupScriptPath: n.StartupScriptPath(), Status: n.Status}
	case app.Cloud:
		return cloudJSON{Interfaces: nonNil(p.Interfaces), Name: n.Name, NodeDirectory: dir, NodeID: n.ID,
			PortsMapping: nonNil(p.CloudPorts), ProjectID: n.ProjectID, Status: n.Status}
	case app.EthernetSwitch:
		return portsNodeJSON[app.SwitchPort]{Name: n.Name, NodeID: n.ID, PortsMapping: nonNil(p.SwitchPorts),
			ProjectID: n.ProjectID, Status: n.Status}
	case app.EthernetHub:
		return portsNodeJSON[app.HubPort]{Name: n.Name, NodeID: n.ID, PortsMapping: nonNil(p.HubPorts),
			ProjectID: n.ProjectID, Status: n.Status}
	default: // app.FrameRelaySwitch
		return frameRelayJSON{Mappings: mappings(p), Name: n.Name, NodeID: n.ID, ProjectID: n.ProjectID, Status: n.Status}
	}
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
}

func (s *Server) projectJSON(p *app.Project) projectJSON {
	return projectJSON{AutoClose: p.AutoClose, AutoOpen: p.AutoOpen, AutoStart: p.AutoStart,
		DrawingGridSize: p.DrawingGridSize, Filename: p.Filename, GridSize: p.GridSize, Name: p.Name,
		Path: s.svc.ProjectDir(p.ID), ProjectID: p.ID, SceneHeight: p.SceneHeight, SceneWidth: p.SceneWidth,
		ShowGrid: p.ShowGrid, ShowInterfaceLabels: p.ShowInterfaceLabels, ShowLayers: p.ShowLayers,
		SnapToGrid: p.SnapToGrid, Status: p.Status, Supplier: p.Supplier, Variables: p.Variables, Zoom: p.Zoom}
}

// linkJSON is a link as GNS3 shows it.
type linkJSON struct {
	CaptureComputeID *string                    `json:"capture_compute_id"`
	CaptureFileName  *string                    `json:"capture_file_name"`
	CaptureFilePath  *string                    `json:"capture_file_path"`
	Capturing        bool                       `json:"capturing"`
	Filters          map[string]json.RawMessage `json:"filters"`
	LinkID           string                     `json:"link_id"`
	LinkStyle        map[string]json.RawMessage `json:"link_style"`
	LinkType         string                     `json:"link_type"`
	Nodes            []app.LinkEnd              `json:"nodes"`
	ProjectID        string                     `json:"project_id"`
	Suspend          bool                       `json:"suspend"`
}

func linkJSONOf(l *app.Link) linkJSON {
	filters, style := l.Filters, l.LinkStyle
	if filters == nil {
		filters = map[string]json.RawMessage{}
	}
	if style == nil {
		style = map[string]json.RawMessage{}
	}
	return linkJSON{Filters: filters, LinkID: l.ID, LinkStyle: style, LinkType: l.LinkType,
		Nodes: nonNil(l.Nodes), ProjectID: l.ProjectID, Suspend: l.Suspend}
}

// templateJSON is a template as GNS3 lists it.
type templateJSON struct {
	Builtin           bool         `json:"builtin"`
	Category          string       `json:"category"`
	ComputeID         *string      `json:"compute_id"`
	DefaultNameFormat string       `json:"default_name_format"`
	Name              string       `json:"name"`
	Symbol            string       `json:"symbol"`
	TemplateID        string       `json:"template_id"`
	TemplateType      app.NodeType `json:"template_type"`
}

func templateJSONOf(t app.Template) templateJSON {
	return templateJSON{Builtin: true, Category: t.Category, DefaultNameFormat: t.DefaultNameFormat,
		Name: t.Name, Symbol: t.Symbol, TemplateID: t.ID, TemplateType: t.Type}
}

// eventJSON is the wire form of an event's payload: the same body the REST
// answer for that object has.
func (s *Server) eventJSON(e app.Event) any {
	switch p := e.Payload.(type) {
	case *app.Node:
		return s.nodeJSON(p)
	case *app.Link:
		return linkJSONOf(p)
	case *app.Project:
		return s.projectJSON(p)
	default:
		return p
	}
}

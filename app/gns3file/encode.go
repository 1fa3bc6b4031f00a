package gns3file

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"time"

	"nodedesk/app"
)

// The .gns3 that nodedesk writes: GNS3 2.2's topology dump (its
// project_to_topology), revision 9, keys in GNS3's order.

type topoFile struct {
	AutoClose           bool           `json:"auto_close"`
	AutoOpen            bool           `json:"auto_open"`
	AutoStart           bool           `json:"auto_start"`
	DrawingGridSize     int            `json:"drawing_grid_size"`
	GridSize            int            `json:"grid_size"`
	Name                string         `json:"name"`
	ProjectID           string         `json:"project_id"`
	Revision            int            `json:"revision"`
	SceneHeight         int            `json:"scene_height"`
	SceneWidth          int            `json:"scene_width"`
	ShowGrid            bool           `json:"show_grid"`
	ShowInterfaceLabels bool           `json:"show_interface_labels"`
	ShowLayers          bool           `json:"show_layers"`
	SnapToGrid          bool           `json:"snap_to_grid"`
	Supplier            *app.Supplier  `json:"supplier"`
	Topology            topoContent    `json:"topology"`
	Type                string         `json:"type"`
	Variables           []app.Variable `json:"variables"`
	Version             string         `json:"version"`
	Zoom                int            `json:"zoom"`
}

type topoContent struct {
	Computes []any         `json:"computes"`
	Drawings []topoDrawing `json:"drawings"`
	Links    []topoLink    `json:"links"`
	Nodes    []topoNode    `json:"nodes"`
}

type topoNode struct {
	ComputeID        string              `json:"compute_id"`
	Console          *int                `json:"console"`
	ConsoleAutoStart bool                `json:"console_auto_start"`
	ConsoleType      string              `json:"console_type"`
	CustomAdapters   []app.CustomAdapter `json:"custom_adapters"`
	FirstPortName    *string             `json:"first_port_name"`
	Height           int                 `json:"height"`
	Label            app.Label           `json:"label"`
	Locked           bool                `json:"locked"`
	Name             string              `json:"name"`
	NodeID           string              `json:"node_id"`
	NodeType         app.NodeType        `json:"node_type"`
	PortNameFormat   string              `json:"port_name_format"`
	PortSegmentSize  int                 `json:"port_segment_size"`
	Properties       map[string]any      `json:"properties"`
	Symbol           *string             `json:"symbol"`
	TemplateID       *string             `json:"template_id"`
	Width            int                 `json:"width"`
	X                int                 `json:"x"`
	Y                int                 `json:"y"`
	Z                int                 `json:"z"`
}

type topoLink struct {
	Filters   map[string]json.RawMessage `json:"filters"`
	LinkID    string                     `json:"link_id"`
	LinkStyle map[string]json.RawMessage `json:"link_style"`
	Nodes     []app.LinkEnd              `json:"nodes"`
	Suspend   bool                       `json:"suspend"`
}

type topoDrawing struct {
	DrawingID string `json:"drawing_id"`
	Locked    bool   `json:"locked"`
	Rotation  int    `json:"rotation"`
	SVG       string `json:"svg"`
	X         int    `json:"x"`
	Y         int    `json:"y"`
	Z         int    `json:"z"`
}

// Encode writes a project's records as a .gns3 of revision 9, as GNS3 2.2
// exports one: no computes, every node on compute "local", a VPCS node's
// startup script left to its startup.vpc file (as in GNS3, where the
// script is a file of the node's folder). resetMACs sets the mac_address
// and mac_addr properties to null, as GNS3's reset_mac_addresses does.
func Encode(e *app.ProjectExport, resetMACs bool) ([]byte, error) {
	p := e.Project
	t := topoFile{
		AutoClose: p.AutoClose, AutoOpen: p.AutoOpen, AutoStart: p.AutoStart, DrawingGridSize: p.DrawingGridSize,
		GridSize: p.GridSize, Name: p.Name, ProjectID: p.ID, Revision: Revision, SceneHeight: p.SceneHeight,
		SceneWidth: p.SceneWidth, ShowGrid: p.ShowGrid, ShowInterfaceLabels: p.ShowInterfaceLabels,
		ShowLayers: p.ShowLayers, SnapToGrid: p.SnapToGrid, Supplier: p.Supplier, Type: "topology",
		Variables: p.Variables, Version: app.GNS3Version, Zoom: p.Zoom,
		Topology: topoContent{Computes: []any{}, Drawings: []topoDrawing{}, Links: []topoLink{}, Nodes: []topoNode{}},
	}
	for _, n := range e.Nodes {
		t.Topology.Nodes = append(t.Topology.Nodes, nodeOf(n, resetMACs))
	}
	for _, l := range e.Links {
		t.Topology.Links = append(t.Topology.Links, topoLink{Filters: nonNilMap(l.Filters), LinkID: l.ID,
			LinkStyle: nonNilMap(l.LinkStyle), Nodes: l.Nodes, Suspend: l.Suspend})
	}
	for _, d := range e.Drawings {
		t.Topology.Drawings = append(t.Topology.Drawings, topoDrawing{DrawingID: d.ID, Locked: d.Locked,
			Rotation: d.Rotation, SVG: d.SVG, X: d.X, Y: d.Y, Z: d.Z})
	}
	return json.MarshalIndent(t, "", "    ")
}

// nodeOf is a node as a topology lists it. The properties its type keeps
// in files (a VPCS's startup_script) are files of the archive, as GNS3
// 2.1+ keeps them, not properties.
func nodeOf(n *app.Node, resetMACs bool) topoNode {
	w, h := n.Size()
	t := topoNode{ComputeID: app.LocalCompute, ConsoleAutoStart: n.ConsoleAutoStart, ConsoleType: "none",
		CustomAdapters: n.CustomAdapters, FirstPortName: n.FirstPortName, Height: h, Label: n.Label,
		Locked: n.Locked, Name: n.Name, NodeID: n.ID, NodeType: n.Type, PortNameFormat: n.PortNameFormat,
		PortSegmentSize: n.PortSegmentSize, Properties: n.PropertiesWithoutFiles(), Symbol: n.Symbol,
		TemplateID: n.TemplateID, Width: w, X: n.X, Y: n.Y, Z: n.Z}
	if n.Console != 0 {
		c := n.Console
		t.Console = &c
	}
	if n.ConsoleType != app.ConsoleNone {
		t.ConsoleType = string(n.ConsoleType)
	}
	if t.CustomAdapters == nil {
		t.CustomAdapters = []app.CustomAdapter{}
	}
	if resetMACs {
		t.Properties = maps.Clone(t.Properties)
		for _, k := range []string{"mac_address", "mac_addr"} {
			if _, ok := t.Properties[k]; ok {
				t.Properties[k] = nil
			}
		}
	}
	return t
}

func nonNilMap(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return map[string]json.RawMessage{}
	}
	return m
}

// ExportOptions are GNS3's export query options that nodedesk honours
// (include_images is app.ExportContent's: what the export lists).
type ExportOptions struct {
	// Store writes the files uncompressed (GNS3's compression=none).
	Store bool
	// Snapshots adds the project's snapshots (include_snapshots).
	Snapshots bool
	// ResetMACAddresses clears the nodes' MAC addresses (Encode).
	ResetMACAddresses bool
}

// WriteArchive writes a .gns3project archive of e to w: project.gns3 first,
// then the files of the project's folder that GNS3 exports (e.Files, as
// ExportProject lists them by app.Exportable: not its captures, tmp folder,
// logs or snapshots folder), then the images e lists
// (images/<kind>/<file name>), then, when asked, each snapshot (its records
// and the files it kept) as
// snapshots/<name>_<ddmmyy_HHMMSS>.gns3project, an archive of its own,
// which is how GNS3 names the snapshots it imports. An error after the
// first byte leaves w with a broken archive; the caller aborts it.
func WriteArchive(w io.Writer, e *app.ProjectExport, o ExportOptions) error {
	topology, err := Encode(e, o.ResetMACAddresses)
	if err != nil {
		return err
	}
	method := zip.Deflate
	if o.Store {
		method = zip.Store
	}
	zw := zip.NewWriter(w)
	put := func(name string, modified time.Time, r io.Reader) error {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: zipTime(modified)})
		if err == nil {
			_, err = io.Copy(fw, r)
		}
		return err
	}
	if err := put(TopologyFile, time.Now(), bytes.NewReader(topology)); err != nil {
		return err
	}
	for _, f := range e.Files { // what app.Exportable keeps, listed by app
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("exporting %s: %w", f.Path, err)
		}
		err = put(f.Path, f.Modified, rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("exporting %s: %w", f.Path, err)
		}
	}
	for _, f := range e.Images { // images/<kind>/<file name>, when asked
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("exporting image %s: %w", f.Path, err)
		}
		err = put(f.Path, f.Modified, rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("exporting image %s: %w", f.Path, err)
		}
	}
	if o.Snapshots {
		for _, s := range e.Snapshots {
			at := time.Unix(s.CreatedAt, 0).UTC()
			// The snapshot's archive is written into its entry as it is
			// made (a pipe), never held whole in memory.
			pr, pw := io.Pipe()
			go func() { pw.CloseWithError(WriteArchive(pw, s.Export, ExportOptions{Store: true})) }()
			err := put("snapshots/"+s.Name+"_"+at.Format("020106_150405")+".gns3project", at, pr)
			pr.CloseWithError(errors.New("export stopped")) // ends the writer if put failed
			if err != nil {
				return err
			}
		}
	}
	return zw.Close()
}

// zipTime keeps a file's time in the range a zip can hold (from 1980), as
// GNS3 does.
func zipTime(t time.Time) time.Time {
	if min := time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC); t.Before(min) {
		return min
	}
	return t
}

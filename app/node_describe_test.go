package app

import "testing"

func TestDescribe(t *testing.T) {
	node := func(name string, x int) *Node {
		return &Node{ID: "id-" + name, Name: name, X: x, Label: Label{Text: name}, Status: Started}
	}
	with := func(n *Node, f func(*Node)) *Node { c := *n; f(&c); return &c }
	link := func(id, a, b string) *Link {
		return &Link{ID: id, Nodes: []LinkEnd{{NodeID: "id-" + a}, {NodeID: "id-" + b, PortNumber: 1}}}
	}
	pc1, pc2, pc3, sw := node("PC1", 0), node("PC2", 0), node("PC3", 0), node("Switch1", 0)
	moved := func(n *Node) Change[Node] { return Change[Node]{n, with(n, func(c *Node) { c.X, c.Y = 10, 20 })} }
	drawing := &Drawing{ID: "d1", SVG: "<svg/>"}
	project := &Project{ID: "p", Name: "lab", GridSize: 75}
	snap := &Snapshot{ID: "s", Name: "before-lab"}
	suspended := link("a", "PC1", "Switch1")
	suspended.Suspend = true
	tests := []struct {
		name string
		give HistoryEntry
		want string
	}{
		{"AddOne", HistoryEntry{Nodes: []Change[Node]{{nil, pc1}}}, "Added PC1"},
		{"AddThree", HistoryEntry{Nodes: []Change[Node]{{nil, pc1}, {nil, pc2}, {nil, pc3}}}, "Added PC1 and 2 others"},
		{"PasteWithLinks", HistoryEntry{Nodes: []Change[Node]{{nil, pc1}, {nil, pc2}}, Links: []Change[Link]{{nil, link("l", "PC1", "PC2")}}}, "Added PC1 and 1 other"},
		{"MoveOne", HistoryEntry{Nodes: []Change[Node]{moved(pc1)}}, "Moved PC1"},
		{"MoveFour", HistoryEntry{Nodes: []Change[Node]{moved(pc1), moved(pc2), moved(pc3), moved(sw)}}, "Moved PC1 and 3 others"},
		{"MoveNodesAndDrawing", HistoryEntry{Nodes: []Change[Node]{moved(pc1)},
			Drawings: []Change[Drawing]{{drawing, &Drawing{ID: "d1", SVG: "<svg/>", X: 4}}}}, "Moved PC1 and 1 other"},
		{"MoveOfARunningNodeThatStopped", HistoryEntry{Nodes: []Change[Node]{{pc1, with(pc1, func(c *Node) { c.X, c.Status = 5, Stopped })}}}, "Moved PC1"},
		{"Rename", HistoryEntry{Nodes: []Change[Node]{{pc1, with(pc1, func(c *Node) { c.Name, c.Label.Text = "PC9", "PC9" })}}}, "Renamed PC1 to PC9"},
		{"RenameVPCSScript", HistoryEntry{Nodes: []Change[Node]{{pc1, with(pc1, func(c *Node) {
			c.Name, c.Label.Text, c.Properties.StartupScript = "PC9", "PC9", ptr("set pcname PC9\n")
		})}}}, "Renamed PC1 to PC9"},
		{"RenameAndMove", HistoryEntry{Nodes: []Change[Node]{{pc1, with(pc1, func(c *Node) { c.Name, c.X = "PC9", 3 })}}}, "Changed PC9"},
		{"Console", HistoryEntry{Nodes: []Change[Node]{{pc1, with(pc1, func(c *Node) { c.Console = 5010 })}}}, "Changed PC1"},
		{"SwitchPorts", HistoryEntry{Nodes: []Change[Node]{{sw, with(sw, func(c *Node) { c.Properties.SwitchPorts = []SwitchPort{{VLAN: 10}} })}}}, "Changed ports of Switch1"},
		{"ChangeTwo", HistoryEntry{Nodes: []Change[Node]{{pc1, with(pc1, func(c *Node) { c.Locked = true })}, moved(pc2)}}, "Changed PC1 and 1 other"},
		{"DeleteWithLinks", HistoryEntry{Nodes: []Change[Node]{{sw, nil}},
			Links: []Change[Link]{{link("a", "PC1", "Switch1"), nil}, {link("b", "PC2", "Switch1"), nil}}}, "Deleted Switch1 and 2 links"},
		{"DeleteWithOneLink", HistoryEntry{Nodes: []Change[Node]{{sw, nil}}, Links: []Change[Link]{{link("a", "PC1", "Switch1"), nil}}}, "Deleted Switch1 and 1 link"},
		{"DeleteOne", HistoryEntry{Nodes: []Change[Node]{{pc1, nil}}}, "Deleted PC1"},
		{"DeleteThree", HistoryEntry{Nodes: []Change[Node]{{pc1, nil}, {pc2, nil}, {sw, nil}}}, "Deleted PC1 and 2 others"},
		{"DeleteTwoWithLinks", HistoryEntry{Nodes: []Change[Node]{{pc1, nil}, {sw, nil}},
			Links: []Change[Link]{{link("a", "PC1", "Switch1"), nil}, {link("b", "PC2", "Switch1"), nil}, {link("c", "PC3", "Switch1"), nil}}}, "Deleted PC1, 1 other node and 3 links"},
		{"AddAndDelete", HistoryEntry{Nodes: []Change[Node]{{nil, pc1}, {pc2, nil}}}, "Changed PC1 and 1 other"},
		{"Link", HistoryEntry{Links: []Change[Link]{{nil, link("a", "PC1", "Switch1")}}}, "Linked PC1 to Switch1"},
		{"Unlink", HistoryEntry{Links: []Change[Link]{{link("a", "PC1", "Switch1"), nil}}}, "Deleted link PC1 – Switch1"},
		{"LinkSuspend", HistoryEntry{Links: []Change[Link]{{link("a", "PC1", "Switch1"), suspended}}}, "Changed link PC1 – Switch1"},
		{"LinkToANodeNotNamed", HistoryEntry{Links: []Change[Link]{{nil, link("a", "PC1", "gone")}}}, "Linked PC1 to id-gone"},
		{"LinkThree", HistoryEntry{Links: []Change[Link]{{nil, link("a", "PC1", "Switch1")}, {nil, link("b", "PC2", "Switch1")}, {nil, link("c", "PC3", "Switch1")}}}, "Added 3 links"},
		{"UnlinkTwo", HistoryEntry{Links: []Change[Link]{{link("a", "PC1", "Switch1"), nil}, {link("b", "PC2", "Switch1"), nil}}}, "Deleted 2 links"},
		{"DrawingAdd", HistoryEntry{Drawings: []Change[Drawing]{{nil, drawing}}}, "Added drawing"},
		{"DrawingMove", HistoryEntry{Drawings: []Change[Drawing]{{drawing, &Drawing{ID: "d1", SVG: "<svg/>", Y: 4, Z: 1}}}}, "Moved drawing"},
		{"DrawingEdit", HistoryEntry{Drawings: []Change[Drawing]{{drawing, &Drawing{ID: "d1", SVG: "<svg><rect/></svg>"}}}}, "Edited drawing"},
		{"DrawingsDelete", HistoryEntry{Drawings: []Change[Drawing]{{drawing, nil}, {&Drawing{ID: "d2"}, nil}}}, "Deleted 2 drawings"},
		{"Settings", HistoryEntry{Project: &Change[Project]{project, &Project{ID: "p", Name: "lab", GridSize: 50}}}, "Changed project settings"},
		{"ProjectRename", HistoryEntry{Project: &Change[Project]{project, &Project{ID: "p", Name: "lab2", GridSize: 75, Status: ProjectClosed}}}, "Renamed project lab to lab2"},
		{"SnapshotTake", HistoryEntry{Snapshots: []Change[Snapshot]{{nil, snap}}}, "Took snapshot before-lab"},
		{"SnapshotDelete", HistoryEntry{Snapshots: []Change[Snapshot]{{snap, nil}}}, "Deleted snapshot before-lab"},
		{"Restore", HistoryEntry{Restored: "before-lab", Nodes: []Change[Node]{moved(pc1)}}, "Restored snapshot before-lab"},
	}
	names := map[string]string{"id-PC1": "PC1", "id-PC2": "PC2", "id-PC3": "PC3", "id-Switch1": "Switch1"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := describe(&tt.give, func(id string) string {
				if n, ok := names[id]; ok {
					return n
				}
				return id
			})
			if got != tt.want {
				t.Errorf("describe = %q; want %q", got, tt.want)
			}
		})
	}
}

package app

import "fmt"

// describe is the short sentence a history entry shows ("Moved PC1 and 3
// others", "Deleted Switch1 and 2 links"), made from its changes alone;
// nodeName names a node a link joins. It speaks of the nodes when the
// entry changed some, else of its links, drawings, settings or snapshots,
// in that order.
func describe(e *HistoryEntry, nodeName func(id string) string) string {
	if e.Restored != "" {
		return "Restored snapshot " + e.Restored
	}
	switch {
	case len(e.Nodes) > 0:
		return describeNodes(e)
	case len(e.Links) > 0:
		return describeLinks(e.Links, nodeName)
	case len(e.Drawings) > 0:
		return describeDrawings(e.Drawings)
	case e.Project != nil:
		if c := *e.Project; c.Before.Name != c.After.Name && only(&projectRecord, c, func(b, a *Project) { b.Name = a.Name }) {
			return fmt.Sprintf("Renamed project %s to %s", c.Before.Name, c.After.Name)
		}
		return "Changed project settings"
	case len(e.Snapshots) == 1 && e.Snapshots[0].Before == nil:
		return "Took snapshot " + e.Snapshots[0].After.Name
	case len(e.Snapshots) == 1 && e.Snapshots[0].After == nil:
		return "Deleted snapshot " + e.Snapshots[0].Before.Name
	}
	return "Changed snapshots"
}

// op is what a change did to its record.
type op int

const (
	added op = iota
	changed
	deleted
)

func opOf[T any](c Change[T]) op {
	switch {
	case c.Before == nil:
		return added
	case c.After == nil:
		return deleted
	}
	return changed
}

// allOps returns the one op all changes did, or -1 when they differ.
func allOps[T any](cs []Change[T]) op {
	o := opOf(cs[0])
	for _, c := range cs[1:] {
		if opOf(c) != o {
			return -1
		}
	}
	return o
}

// only reports whether a change changed nothing but what touch copies from
// after to before.
func only[T any](k *recordKind[T], c Change[T], touch func(before, after *T)) bool {
	b := *c.Before
	touch(&b, c.After)
	return k.same(&b, c.After)
}

func moveNode(b, a *Node)       { b.X, b.Y, b.Z = a.X, a.Y, a.Z }
func moveDrawing(b, a *Drawing) { b.X, b.Y, b.Z = a.X, a.Y, a.Z }

// subject is a first name and how many others: "PC1", "PC1 and 3 others".
func subject(first string, others int) string {
	switch others {
	case 0:
		return first
	case 1:
		return first + " and 1 other"
	}
	return fmt.Sprintf("%s and %d others", first, others)
}

// plural is "1 link", "3 links".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func describeNodes(e *HistoryEntry) string {
	ns := e.Nodes
	first := either(ns[0]).Name
	switch allOps(ns) {
	case added:
		return "Added " + subject(first, len(ns)-1)
	case deleted:
		links := 0
		for _, c := range e.Links {
			if opOf(c) == deleted {
				links++
			}
		}
		switch {
		case links == 0:
			return "Deleted " + subject(first, len(ns)-1)
		case len(ns) == 1:
			return fmt.Sprintf("Deleted %s and %s", first, plural(links, "link"))
		}
		return fmt.Sprintf("Deleted %s, %s and %s", first, plural(len(ns)-1, "other node"), plural(links, "link"))
	case changed:
		if moved(e) {
			return "Moved " + subject(first, len(ns)+len(e.Drawings)-1)
		}
		if len(ns) > 1 {
			return "Changed " + subject(first, len(ns)-1)
		}
		c := ns[0]
		// A VPCS's script names it (set pcname): a rename rewrites it too.
		if c.Before.Name != c.After.Name && only(&nodeRecord, c, func(b, a *Node) {
			b.Name, b.Label.Text, b.Properties.StartupScript = a.Name, a.Label.Text, a.Properties.StartupScript
		}) {
			return fmt.Sprintf("Renamed %s to %s", c.Before.Name, c.After.Name)
		}
		if only(&nodeRecord, c, func(b, a *Node) {
			b.Properties.SwitchPorts, b.Properties.HubPorts = a.Properties.SwitchPorts, a.Properties.HubPorts
			b.Properties.CloudPorts, b.Properties.Mappings = a.Properties.CloudPorts, a.Properties.Mappings
		}) {
			return "Changed ports of " + c.After.Name
		}
	}
	return "Changed " + subject(first, len(ns)-1)
}

// moved reports whether an entry only moved nodes (and drawings).
func moved(e *HistoryEntry) bool {
	if e.Project != nil || len(e.Links) > 0 || len(e.Snapshots) > 0 {
		return false
	}
	for _, c := range e.Nodes {
		if opOf(c) != changed || !only(&nodeRecord, c, moveNode) {
			return false
		}
	}
	for _, c := range e.Drawings {
		if opOf(c) != changed || !only(&drawingRecord, c, moveDrawing) {
			return false
		}
	}
	return true
}

func describeLinks(ls []Change[Link], nodeName func(string) string) string {
	o := allOps(ls)
	if len(ls) == 1 {
		l := either(ls[0])
		var a, b string
		if len(l.Nodes) == 2 {
			a, b = nodeName(l.Nodes[0].NodeID), nodeName(l.Nodes[1].NodeID)
		}
		switch o {
		case added:
			return fmt.Sprintf("Linked %s to %s", a, b)
		case deleted:
			return fmt.Sprintf("Deleted link %s – %s", a, b)
		}
		return fmt.Sprintf("Changed link %s – %s", a, b)
	}
	switch o {
	case added:
		return "Added " + plural(len(ls), "link")
	case deleted:
		return "Deleted " + plural(len(ls), "link")
	}
	return "Changed " + plural(len(ls), "link")
}

func describeDrawings(ds []Change[Drawing]) string {
	verb := "Edited"
	switch allOps(ds) {
	case added:
		verb = "Added"
	case deleted:
		verb = "Deleted"
	case changed:
		if moved(&HistoryEntry{Drawings: ds}) {
			verb = "Moved"
		}
	}
	if len(ds) == 1 {
		return verb + " drawing"
	}
	return verb + " " + plural(len(ds), "drawing")
}

// describeIn describes e, naming the nodes its links join by the entry's
// own images or, for nodes it did not touch, as they are in tx.
func describeIn(tx Tx, e *HistoryEntry) (string, error) {
	names := map[string]string{}
	for _, c := range e.Nodes {
		n := either(c)
		names[n.ID] = n.Name
	}
	var err error
	desc := describe(e, func(id string) string {
		if name, ok := names[id]; ok {
			return name
		}
		n, gerr := tx.Node(e.ProjectID, id)
		if gerr != nil {
			err = gerr
		}
		if n == nil {
			return id
		}
		return n.Name
	})
	return desc, err
}

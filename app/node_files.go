package app

import (
	"encoding/json"
	"maps"
	"strings"
	"unicode/utf8"
)

// The files a node type owns: a file of a node's folder that is one of the
// node's properties (a VPCS node's startup.vpc is its startup_script).
// The store keeps the property; the file is a second view of it, read and
// written through the property. The table (node_type.go) lists each
// type's files; this file is the one rule every use of them goes
// through: the node files API, a project's files, an export (and a
// compute's file list), an import, a snapshot (whose records hold the
// properties) and a duplicate on a compute.

// nodeFile is one file a node type owns.
type nodeFile struct {
	name     string // its path in the node's folder, with /
	property string // the key of the property it holds
	// pathProperty is the key under which the properties view shows the
	// file's path while the property is set ("": not shown).
	pathProperty string
	// get returns the property's value; nil: the node has none (and no
	// such file).
	get func(p *Properties) *string
	// baseSetting is a template setting that names a base file, one of
	// bases (name → content): a node made from the template gets its
	// content as the property, unless the template gives the property.
	baseSetting string
	bases       map[string]string
}

// file returns t's file at path p of a node's folder (cleaned, with /),
// or nil when t owns no such file.
func (t NodeType) file(p string) *nodeFile {
	for i, f := range t.kind().files {
		if f.name == p {
			return &t.kind().files[i]
		}
	}
	return nil
}

// baseFile returns t's file whose template setting is key, or nil.
func (t NodeType) baseFile(key string) *nodeFile {
	for i, f := range t.kind().files {
		if f.baseSetting != "" && f.baseSetting == key {
			return &t.kind().files[i]
		}
	}
	return nil
}

// pathIn is the file's path in n's folder, or nil when n has not the
// property (nor the file).
func (f nodeFile) pathIn(n *Node) *string {
	if f.get(&n.Properties) == nil {
		return nil
	}
	return ptr(f.name)
}

// nodeFilePath is where file f of node n sits in its project's folder:
// project-files/<the type's folder>/<node id>/<f.name>.
func nodeFilePath(n *Node, f nodeFile) string {
	return projectFilesDir + "/" + n.Type.kind().folder + "/" + n.ID + "/" + f.name
}

// ownedFilePath is the reverse of nodeFilePath: for a path of a project's
// folder (cleaned, with /) that a file some node type owns may have,
// project-files/<folder>/<node id>/<name>, its three parts; ok is false
// for any other path, which no node's file can be (so the caller reads no
// node for it). Which node, and so which type, is the caller's to find.
func ownedFilePath(p string) (folder, nodeID, name string, ok bool) {
	parts := strings.SplitN(p, "/", 4)
	if len(parts) < 4 || parts[0] != projectFilesDir {
		return "", "", "", false
	}
	for i := range kinds {
		if t := kinds[i].t; parts[1] != "" && t.ownedFile(parts[1], parts[3]) != nil {
			return parts[1], parts[2], parts[3], true
		}
	}
	return "", "", "", false
}

// ownedFile returns t's file at name in a node folder under
// project-files/<folder>/, or nil when a node of type t has none there.
func (t NodeType) ownedFile(folder, name string) *nodeFile {
	if folder != t.kind().folder {
		return nil
	}
	return t.file(name)
}

// checkText checks the bytes of a file a type owns: its property is text.
func (f nodeFile) checkText(owner string, data []byte) error {
	if !utf8.Valid(data) {
		return Errorf(EINVALID, "%s of %s must be UTF-8 text", f.name, owner)
	}
	return nil
}

// filesUpdate is the change of a node of type t that gives its files the
// contents in files (file name → content): each sets its property.
func filesUpdate(t NodeType, files map[string]string) (PropertiesUpdate, error) {
	props := make(map[string]string, len(files))
	for name, content := range files {
		if f := t.file(name); f != nil {
			props[f.property] = content
		}
	}
	if len(props) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(props)
	if err != nil {
		return nil, err
	}
	return DecodeProperties(t, raw)
}

// setOwnFiles gives n's files the contents in files (file name →
// content): each sets its property, under the type's rules.
func (n *Node) setOwnFiles(files map[string]string) error {
	u, err := filesUpdate(n.Type, files)
	if err != nil {
		return err
	}
	return applyProperties(n.Type, u, &n.Properties)
}

// ownFiles returns the contents of n's files that it has (file name →
// content): its properties that are files.
func (n *Node) ownFiles() map[string]string {
	var out map[string]string
	n.eachOwnFile(func(f nodeFile, content string) {
		if out == nil {
			out = map[string]string{}
		}
		out[f.name] = content
	})
	return out
}

// eachOwnFile calls fn, in the table's order, with each file of n's type
// that n has and its content (the property).
func (n *Node) eachOwnFile(fn func(f nodeFile, content string)) {
	for _, f := range n.Type.kind().files {
		if v := f.get(&n.Properties); v != nil {
			fn(f, *v)
		}
	}
}

// PropertiesWithoutFiles is n's properties view less what its type keeps
// in files (each file's property and path keys): what a project file's
// topology keeps of them, the files carrying the rest.
func (n *Node) PropertiesWithoutFiles() map[string]any {
	return n.propertiesWithout(func(f nodeFile) []string { return []string{f.property, f.pathProperty} })
}

// SettableProperties is n's properties view less the keys that only show
// where a file of its type is (a VPCS's startup_script_path): what can be
// set, as a compute is sent them.
func (n *Node) SettableProperties() map[string]any {
	return n.propertiesWithout(func(f nodeFile) []string { return []string{f.pathProperty} })
}

// propertiesWithout is n's properties view less the keys that keys names
// for each file of its type ("" names none), and less the keys of
// nodedesk's own that are at their default (propertyKind.ownDefaults).
func (n *Node) propertiesWithout(keys func(f nodeFile) []string) map[string]any {
	v := n.PropertiesView()
	if len(n.Type.kind().files) > 0 || len(n.Type.kind().props.ownDefaults) > 0 {
		v = maps.Clone(v)
	}
	for k, def := range n.Type.kind().props.ownDefaults {
		if got, ok := v[k]; ok && got == def {
			delete(v, k)
		}
	}
	for _, f := range n.Type.kind().files {
		for _, k := range keys(f) {
			delete(v, k)
		}
	}
	return v
}

package app

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"

	"github.com/google/uuid"
)

// What a runner reads of a node's properties. The settings tables
// (node_settings.go) are the one place a type's keys and defaults live;
// a runner decodes the properties, defaults filled, into a struct of its
// own whose json tags name the keys it reads, and restates no default.

// DecodeSettings decodes the properties of a node of type t, as a start
// gives them (Process.Properties), into v, a pointer to a struct whose
// json tags name the keys it reads. A key the properties lack, or keep
// as null, takes the domain's default first (the view of the type's
// settings table), so a partial map reads as a whole one; a key whose
// default is null leaves its field as it is (the zero value), but for a
// field whose type decodes JSON itself, which is given the null. The keys a
// node derives from its id (a MAC address) are filled only when given.
// A value that does not fit its field is an EINVALID error naming its key.
func DecodeSettings(t NodeType, props map[string]json.RawMessage, v any) error {
	if !t.Valid() {
		return Errorf(EINVALID, "Unknown node type %q", t)
	}
	n := &Node{Type: t, Properties: Properties{Extra: props}}
	filled := map[string]json.RawMessage{}
	for k, val := range n.PropertiesView() {
		if raw, given := props[k]; given && !isNull(raw) {
			filled[k] = raw // the node's own value, where a view would recompute it (aux)
			continue
		}
		if slices.Contains(t.kind().props.unique, k) {
			continue // derived from the node's id, which props do not hold
		}
		b, err := json.Marshal(val)
		if err != nil {
			return err
		}
		filled[k] = b
	}
	for _, k := range slices.Sorted(maps.Keys(filled)) { // one key at a time: an error names its key
		b, _ := json.Marshal(map[string]json.RawMessage{k: filled[k]})
		if err := json.Unmarshal(b, v); err != nil {
			return Invalid("properties."+k, "The node's %s property %s cannot be read: %s is not a value it takes; correct it in the node's properties",
				t, k, describeRaw(filled[k]))
		}
	}
	return nil
}

// NewNodeProperties are the properties a start gives the runner of a new
// node of type t with id id ("": a fresh one), created with the given
// properties (nil: none), as the node's creation makes them: its type's
// defaults, the given ones checked and applied, its name settled and, as
// the first node of its project, its claim (a router's dynamips_id 1).
// Image names are kept as given (no image folder is looked at) and no
// port is allocated (aux is null). The runners' tests compare their
// settings with it.
func NewNodeProperties(t NodeType, id string, given map[string]any) (map[string]json.RawMessage, error) {
	if !t.Valid() {
		return nil, Errorf(EINVALID, "Unknown node type %q", t)
	}
	if id == "" {
		id = uuid.NewString()
	}
	var u NodeUpdate
	if len(given) > 0 {
		raw, err := json.Marshal(given)
		if err != nil {
			return nil, Errorf(EINVALID, "The given properties are not JSON: %v", err)
		}
		if u.Properties, err = DecodeProperties(t, raw); err != nil {
			return nil, err
		}
	}
	base := newNode(id, "", t, newNodeEnvFor(t, func() []HostInterface { return nil }))
	base.Name = t.kind().nameFormat
	n, err := u.apply(base)
	if err != nil {
		return nil, err
	}
	if n.Name, _, _, err = allocateName(n.Name, func(string) int { return 1 },
		func(string) (bool, error) { return false, nil }); err != nil {
		return nil, err
	}
	n.settleName("")
	if claim := t.kind().props.claim; claim != nil {
		if err := claim(claimEnv{tx: loneTx{}}, n); err != nil {
			return nil, err
		}
	}
	return propertiesJSON(n), nil
}

// loneTx is what a type's claim sees of a project whose only node is the
// one it claims for: no other node.
type loneTx struct{ Tx }

func (loneTx) Nodes(string) ([]*Node, error) { return nil, nil }
func (loneTx) Projects() ([]*Project, error) { return nil, nil }

// SettingsDiff lists, for the runners' tests, the keys of settings (a
// runner's decoded struct, marshalled by its json tags) whose value is
// not the one props give: a key props lack, or another value (null in
// props stands for the zero value). Empty: the runner reads every key it
// names as the domain filled it.
func SettingsDiff(props map[string]json.RawMessage, settings any) []string {
	b, err := json.Marshal(settings)
	var got map[string]json.RawMessage
	if err == nil {
		err = json.Unmarshal(b, &got)
	}
	if err != nil {
		return []string{"the settings cannot be marshalled as an object: " + err.Error()}
	}
	var diff []string
	for _, k := range slices.Sorted(maps.Keys(got)) {
		want, ok := props[k]
		switch {
		case !ok:
			diff = append(diff, k+": not a key of the properties")
		case sameJSON(got[k], want), isNull(want) && zeroJSON(got[k]):
		default:
			diff = append(diff, k+": the settings hold "+string(got[k])+", the properties "+string(want))
		}
	}
	return diff
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// zeroJSON reports whether a JSON text is the zero value of a Go field:
// null, false, 0, "", [] or {}.
func zeroJSON(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v := v.(type) {
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return v == nil || v == false || v == 0.0 || v == ""
}

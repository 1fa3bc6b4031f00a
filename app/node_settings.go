package app

import (
	"encoding/json"
	"maps"
	"slices"
)

// Settings tables: the properties an emulator's node keeps under GNS3's
// keys (QEMU, Docker), each with its default and the rule its values
// follow. A table is the one place a type's keys, defaults and checks
// live; its view fills the defaults, its apply checks a change.
//
// The properties are open: a key a table does not list (another GNS3
// version's) is kept as given, so a project goes back to GNS3 whole.

// setting is one property: its default on a new node, the rule its values
// follow, and the values that stand for "the default" beside null.
type setting struct {
	key   string
	def   any // nil: JSON null
	check func(key string, raw json.RawMessage) error
	unset []string // string values that mean the default ("" for a MAC address)
}

// settingTable is a type's settings, in a fixed order (the first wrong
// key of a change is the one named), indexed by key.
type settingTable struct {
	list  []setting
	byKey map[string]*setting
}

func newSettingTable(list []setting) settingTable {
	t := settingTable{list: list, byKey: make(map[string]*setting, len(list))}
	for i := range t.list {
		t.byKey[t.list[i].key] = &t.list[i]
	}
	return t
}

// known reports whether key is one of the table's settings.
func (t settingTable) known(key string) bool { _, ok := t.byKey[key]; return ok }

// view is extra with every default filled in: the table's defaults
// first, then those the node derives (from its id...), then what extra
// keeps, except a known key kept as null (it means the default).
func (t settingTable) view(extra map[string]json.RawMessage, derived map[string]any) map[string]any {
	v := make(map[string]any, len(t.list)+len(extra))
	for _, s := range t.list {
		v[s.key] = s.def
	}
	maps.Copy(v, derived)
	for k, raw := range extra {
		if t.known(k) && isNull(raw) {
			continue
		}
		v[k] = raw
	}
	return v
}

// keys lists the table's keys, sorted, but those in except.
func (t settingTable) keys(except ...string) []string {
	var ks []string
	for _, s := range t.list {
		if !slices.Contains(except, s.key) {
			ks = append(ks, s.key)
		}
	}
	slices.Sort(ks)
	return ks
}

// apply is extra changed by u: a known key checked by its rule, and
// removed (back to its default) when u sets it to null or to a value that
// stands for the default; an unknown key kept as given.
func (t settingTable) apply(extra, u map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	out := maps.Clone(extra)
	if out == nil {
		out = map[string]json.RawMessage{}
	}
	for _, s := range t.list {
		raw, ok := u[s.key]
		switch {
		case !ok:
		case isNull(raw) || slices.Contains(s.unset, rawString(raw)) && isJSONString(raw):
			delete(out, s.key)
		default:
			if err := s.check(s.key, raw); err != nil {
				return nil, err
			}
			out[s.key] = raw
		}
	}
	for k, raw := range u {
		if !t.known(k) {
			out[k] = raw
		}
	}
	return out, nil
}

// toExtra is a view turned back into stored properties: what a new node
// keeps.
func toExtra(view map[string]any) map[string]json.RawMessage {
	extra := make(map[string]json.RawMessage, len(view))
	for k, v := range view {
		extra[k], _ = json.Marshal(v)
	}
	return extra
}

// defaults is what a template of the type starts with: the table's
// defaults of keys, and the template's own settings (extra), which a
// node's table does not give (a template's usage, its base config).
func (t settingTable) defaults(keys []string, extra map[string]any) map[string]any {
	m := maps.Clone(extra)
	for _, k := range keys {
		m[k] = t.byKey[k].def
	}
	return m
}

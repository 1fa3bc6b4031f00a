package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Link filter types: the keys of Link.Filters that nodedesk accepts. They
// are the GNS3 2.2 names; GNS3's fifth filter, bpf, is not supported (no
// maintained pure-Go compiler for pcap-filter expressions exists).
const (
	FilterFrequencyDrop = "frequency_drop" // [N]: drop every Nth frame; -1 drops all
	FilterPacketLoss    = "packet_loss"    // [P]: lose a frame with P% chance
	FilterDelay         = "delay"          // [L] or [L, J]: delay L ms, ± J ms
	FilterCorrupt       = "corrupt"        // [P]: corrupt a frame with P% chance
)

// FilterParam describes one value of a filter's array, as GNS3's
// available_filters answer lists it.
type FilterParam struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Minimum int    `json:"minimum"`
	Maximum int    `json:"maximum"`
	Unit    string `json:"unit"`
}

// FilterInfo is one filter a link can carry, in the shape of an entry of
// GNS3's GET /v2/projects/{p}/links/{l}/available_filters answer.
type FilterInfo struct {
	Type        string        `json:"type"`
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Parameters  []FilterParam `json:"parameters"`
	example     string        // a valid array, for error messages
}

// maxFilterValue is the largest frequency, latency or jitter GNS3 accepts.
const maxFilterValue = 32767

// filterTable lists the supported filters in GNS3's order.
var filterTable = []FilterInfo{
	{
		Type: FilterFrequencyDrop, Name: "Frequency drop",
		Description: "Drops one packet in every N; -1 drops every packet and 0 none",
		Parameters:  []FilterParam{{Name: "Frequency", Type: "int", Minimum: -1, Maximum: maxFilterValue, Unit: "th packet"}},
		example:     "[5]",
	},
	{
		Type: FilterPacketLoss, Name: "Packet loss",
		Description: "Each packet is lost with this chance, in percent",
		Parameters:  []FilterParam{{Name: "Chance", Type: "int", Minimum: 0, Maximum: 100, Unit: "%"}},
		example:     "[10]",
	},
	{
		Type: FilterDelay, Name: "Delay",
		Description: "Holds each packet for the latency, in milliseconds, plus or minus a random jitter, in milliseconds",
		Parameters: []FilterParam{
			{Name: "Latency", Type: "int", Minimum: 0, Maximum: maxFilterValue, Unit: "ms"},
			{Name: "Jitter (+/-)", Type: "int", Minimum: 0, Maximum: maxFilterValue, Unit: "ms"},
		},
		example: "[100, 10]",
	},
	{
		Type: FilterCorrupt, Name: "Corrupt",
		Description: "Each packet is corrupted with this chance, in percent",
		Parameters:  []FilterParam{{Name: "Chance", Type: "int", Minimum: 0, Maximum: 100, Unit: "%"}},
		example:     "[10]",
	},
}

// AvailableFilters returns the filters nodedesk applies to links, in the
// order and shape of GNS3's available_filters answer. The slice is a fresh
// copy the caller may keep or change.
func AvailableFilters() []FilterInfo {
	out := make([]FilterInfo, len(filterTable))
	for i, f := range filterTable {
		f.Parameters = append([]FilterParam(nil), f.Parameters...)
		out[i] = f
	}
	return out
}

// ActiveFilters returns the filters the data plane applies to l: those of
// its Filters, or, while the link is suspended, a frequency_drop of -1
// that drops every frame, as GNS3 suspends a link.
func ActiveFilters(l *Link) map[string]json.RawMessage {
	if l.Suspend {
		return map[string]json.RawMessage{FilterFrequencyDrop: json.RawMessage("[-1]")}
	}
	return l.Filters
}

// NormalizeFilters checks a link's filters and returns them as GNS3 stores
// them: each value an array; numbers truncated to integers; strings
// trimmed of spaces and newlines (a numeric string counts as its number);
// a filter whose array is empty or starts with 0 or "" is inactive and left
// out. The result is never nil. It is an EINVALID *Error when a filter is
// unknown, a value is not a number, the array has too many or too few
// values, or a value is out of the filter's range.
func NormalizeFilters(in map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(in))
	for _, name := range slices.Sorted(maps.Keys(in)) {
		info, err := lookupFilter(name)
		if err != nil {
			return nil, err
		}
		values, active, err := filterValues(info, in[name])
		if err != nil {
			return nil, err
		}
		if !active {
			continue
		}
		raw, err := json.Marshal(values)
		if err != nil {
			return nil, err
		}
		out[name] = raw
	}
	return out, nil
}

// lookupFilter returns the description of the filter called name.
func lookupFilter(name string) (*FilterInfo, error) {
	for i := range filterTable {
		if filterTable[i].Type == name {
			return &filterTable[i], nil
		}
	}
	known := filterNames()
	if name == "bpf" {
		return nil, Invalid("filters.bpf", "nodedesk does not support the bpf link filter; remove it and use %s", known)
	}
	return nil, Invalid("filters."+name, "Unknown link filter %q; use %s", name, known)
}

// filterNames lists the supported filter types, as "a, b, c or d".
func filterNames() string {
	names := make([]string, len(filterTable))
	for i, f := range filterTable {
		names[i] = f.Type
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// filterValue is one value of a filter's array after GNS3's casting: a
// truncated number, or an empty string.
type filterValue struct {
	n     float64
	empty bool
}

// filterValues decodes and checks the array of one filter. active is false
// when GNS3 would leave the filter out.
func filterValues(info *FilterInfo, raw json.RawMessage) (values []int, active bool, err error) {
	vals, err := castFilterValues(info, raw)
	if err != nil {
		return nil, false, err
	}
	if len(vals) == 0 || vals[0].empty || vals[0].n == 0 {
		return nil, false, nil
	}
	if err := checkFilterArity(info, len(vals)); err != nil {
		return nil, false, err
	}
	values = make([]int, len(vals))
	for i, v := range vals {
		if values[i], err = checkFilterValue(info, i, v); err != nil {
			return nil, false, err
		}
	}
	return values, true, nil
}

// castFilterValues decodes a filter's JSON array and casts each value.
func castFilterValues(info *FilterInfo, raw json.RawMessage) ([]filterValue, error) {
	var items []any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&items); err != nil || items == nil {
		return nil, Invalid("filters."+info.Type, "Filter %s takes an array of numbers, such as %s", info.Type, info.example)
	}
	vals := make([]filterValue, len(items))
	for i, item := range items {
		v, ok := castFilterValue(item)
		if !ok {
			return nil, Invalid(fmt.Sprintf("filters.%s.%d", info.Type, i), "Filter %s takes whole numbers, such as %s; %s is not one", info.Type, info.example, describeJSON(item))
		}
		vals[i] = v
	}
	return vals, nil
}

// castFilterValue casts a number or a numeric string to a whole number,
// truncating toward zero as Python's int() does.
func castFilterValue(item any) (filterValue, bool) {
	var text string
	switch v := item.(type) {
	case json.Number:
		text = v.String()
	case string:
		text = strings.Trim(v, "\n ")
		if text == "" {
			return filterValue{empty: true}, true
		}
	default:
		return filterValue{}, false
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return filterValue{}, false
	}
	return filterValue{n: math.Trunc(f)}, true
}

// checkFilterArity checks that a filter has as many values as it takes:
// all its parameters, or only the first ones when the others may be left
// out (delay's jitter).
func checkFilterArity(info *FilterInfo, n int) error {
	lo, hi := 1, len(info.Parameters)
	if n >= lo && n <= hi {
		return nil
	}
	if hi == 1 {
		return Invalid("filters."+info.Type, "Filter %s takes one value, such as %s; it was given %d", info.Type, info.example, n)
	}
	return Invalid("filters."+info.Type, "Filter %s takes %d to %d values, such as %s; it was given %d", info.Type, lo, hi, info.example, n)
}

// checkFilterValue checks the i-th value of a filter against its
// parameter's range.
func checkFilterValue(info *FilterInfo, i int, v filterValue) (int, error) {
	p := info.Parameters[i]
	if v.empty {
		return 0, Invalid(fmt.Sprintf("filters.%s.%d", info.Type, i), "Filter %s: give %s as a number from %d to %d, not an empty string", info.Type, p.Name, p.Minimum, p.Maximum)
	}
	if v.n < float64(p.Minimum) || v.n > float64(p.Maximum) {
		return 0, Invalid(fmt.Sprintf("filters.%s.%d", info.Type, i), "Filter %s: %s must be from %d to %d (%s); send a value in that range instead of %s",
			info.Type, p.Name, p.Minimum, p.Maximum, p.Unit, strconv.FormatFloat(v.n, 'f', -1, 64))
	}
	return int(v.n), nil
}

// describeJSON names a decoded JSON value for an error message.
func describeJSON(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case string:
		return strconv.Quote(v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		return fmt.Sprint(v)
	}
}

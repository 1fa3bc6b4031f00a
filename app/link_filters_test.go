package app

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestNormalizeFilters(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // JSON of the result, "" when an error is expected
		errs []string
	}{
		{name: "nil", in: `null`, want: `{}`},
		{name: "empty", in: `{}`, want: `{}`},
		{name: "all four", in: `{"frequency_drop":[5],"packet_loss":[10],"delay":[100,20],"corrupt":[30]}`,
			want: `{"corrupt":[30],"delay":[100,20],"frequency_drop":[5],"packet_loss":[10]}`},
		{name: "floats truncated", in: `{"packet_loss":[10.9],"delay":[99.99,1.5]}`, want: `{"delay":[99,1],"packet_loss":[10]}`},
		{name: "exponent", in: `{"delay":[1e3]}`, want: `{"delay":[1000]}`},
		{name: "numeric strings", in: `{"packet_loss":[" 25\n"]}`, want: `{"packet_loss":[25]}`},
		{name: "delay without jitter", in: `{"delay":[50]}`, want: `{"delay":[50]}`},
		{name: "jitter zero kept", in: `{"delay":[50,0]}`, want: `{"delay":[50,0]}`},
		{name: "suspend value", in: `{"frequency_drop":[-1]}`, want: `{"frequency_drop":[-1]}`},
		{name: "bounds", in: `{"frequency_drop":[32767],"packet_loss":[100],"delay":[32767,32767],"corrupt":[100]}`,
			want: `{"corrupt":[100],"delay":[32767,32767],"frequency_drop":[32767],"packet_loss":[100]}`},
		{name: "zero first dropped", in: `{"packet_loss":[0],"delay":[0,50],"frequency_drop":[0],"corrupt":[0.4]}`, want: `{}`},
		{name: "empty string first dropped", in: `{"packet_loss":[""],"delay":["\n ",5]}`, want: `{}`},
		{name: "empty array dropped", in: `{"corrupt":[]}`, want: `{}`},
		{name: "zero dropped before range", in: `{"delay":[0,99999]}`, want: `{}`},

		{name: "unknown", in: `{"jitter":[5]}`, errs: []string{`"jitter"`, "frequency_drop, packet_loss, delay or corrupt"}},
		{name: "bpf", in: `{"bpf":["icmp"]}`, errs: []string{"bpf", "not support", "frequency_drop, packet_loss, delay or corrupt"}},
		{name: "not an array", in: `{"packet_loss":5}`, errs: []string{"packet_loss", "array", "[10]"}},
		{name: "null values", in: `{"packet_loss":null}`, errs: []string{"packet_loss", "array"}},
		{name: "bool value", in: `{"packet_loss":[true]}`, errs: []string{"whole numbers", "true"}},
		{name: "text value", in: `{"corrupt":["lots"]}`, errs: []string{"whole numbers", `"lots"`}},
		{name: "nested", in: `{"delay":[[1]]}`, errs: []string{"an array", "[100, 10]"}},
		{name: "loss over 100", in: `{"packet_loss":[150]}`, errs: []string{"packet_loss", "Chance", "0 to 100", "150"}},
		{name: "loss negative", in: `{"packet_loss":[-5]}`, errs: []string{"0 to 100", "-5"}},
		{name: "corrupt over 100", in: `{"corrupt":[101]}`, errs: []string{"corrupt", "0 to 100"}},
		{name: "frequency below -1", in: `{"frequency_drop":[-2]}`, errs: []string{"frequency_drop", "-1 to 32767", "-2"}},
		{name: "frequency too big", in: `{"frequency_drop":[40000]}`, errs: []string{"-1 to 32767", "40000"}},
		{name: "latency too big", in: `{"delay":[40000]}`, errs: []string{"Latency", "0 to 32767"}},
		{name: "jitter negative", in: `{"delay":[10,-1]}`, errs: []string{"Jitter", "0 to 32767", "-1"}},
		{name: "jitter empty", in: `{"delay":[10,""]}`, errs: []string{"Jitter", "empty string"}},
		{name: "too many values", in: `{"packet_loss":[5,5]}`, errs: []string{"one value", "given 2"}},
		{name: "delay too many", in: `{"delay":[5,5,5]}`, errs: []string{"1 to 2 values", "given 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tt.in), &in); err != nil {
				t.Fatal(err)
			}
			got, err := NormalizeFilters(in)
			if tt.want == "" {
				checkFilterError(t, err, tt.errs)
				return
			}
			if err != nil {
				t.Fatalf("NormalizeFilters(%s) = %v", tt.in, err)
			}
			if got == nil {
				t.Fatal("NormalizeFilters returned a nil map")
			}
			b, _ := json.Marshal(got)
			if string(b) != tt.want {
				t.Errorf("NormalizeFilters(%s) = %s, want %s", tt.in, b, tt.want)
			}
		})
	}
}

func checkFilterError(t *testing.T, err error, parts []string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Code != EINVALID {
		t.Fatalf("error = %v, want an EINVALID *Error", err)
	}
	for _, p := range parts {
		if !strings.Contains(e.Message, p) {
			t.Errorf("message %q does not mention %q", e.Message, p)
		}
	}
}

func TestNormalizeFilters_Idempotent(t *testing.T) {
	in := map[string]json.RawMessage{"delay": json.RawMessage(`[10.5, "3"]`), "packet_loss": json.RawMessage(`[7]`)}
	once, err := NormalizeFilters(in)
	if err != nil {
		t.Fatal(err)
	}
	twice, err := NormalizeFilters(once)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(once, twice) {
		t.Errorf("normalizing twice changed %v into %v", once, twice)
	}
}

func TestAvailableFilters(t *testing.T) {
	got := AvailableFilters()
	var types []string
	for _, f := range got {
		types = append(types, f.Type)
		if f.Name == "" || f.Description == "" || len(f.Parameters) == 0 {
			t.Errorf("filter %s is missing its name, description or parameters", f.Type)
		}
	}
	want := []string{"frequency_drop", "packet_loss", "delay", "corrupt"}
	if !reflect.DeepEqual(types, want) {
		t.Errorf("filter types = %v, want %v", types, want)
	}
	b, _ := json.Marshal(got[0])
	const wantJSON = `{"type":"frequency_drop","name":"Frequency drop","description":"Drops one packet in every N; -1 drops every packet and 0 none",` +
		`"parameters":[{"name":"Frequency","type":"int","minimum":-1,"maximum":32767,"unit":"th packet"}]}`
	if string(b) != wantJSON {
		t.Errorf("frequency_drop = %s\nwant %s", b, wantJSON)
	}
	if d := got[2].Parameters; len(d) != 2 || d[0].Unit != "ms" || d[1].Maximum != 32767 {
		t.Errorf("delay parameters = %+v, want latency and jitter in ms up to 32767", d)
	}
	got[1].Parameters[0].Maximum = 5
	if AvailableFilters()[1].Parameters[0].Maximum != 100 {
		t.Error("changing the answer of AvailableFilters changed the next answer")
	}
}

func TestActiveFilters(t *testing.T) {
	l := &Link{Filters: map[string]json.RawMessage{"packet_loss": json.RawMessage(`[5]`)}}
	if got := ActiveFilters(l); string(got["packet_loss"]) != "[5]" || len(got) != 1 {
		t.Errorf("ActiveFilters of a running link = %v, want its filters", got)
	}
	l.Suspend = true
	if got := ActiveFilters(l); string(got["frequency_drop"]) != "[-1]" || len(got) != 1 {
		t.Errorf("ActiveFilters of a suspended link = %v, want frequency_drop [-1] only", got)
	}
}

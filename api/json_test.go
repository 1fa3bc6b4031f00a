package api

import (
	"bytes"
	"strings"
	"testing"
)

// TestBadInput: classic hostile bodies answer 400 with a JSON message and
// change nothing.
func TestBadInput(t *testing.T) {
	ts := mustOpenServer(t)
	pid := ts.MustCreateProject("lab")
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	path := "/v2/projects/" + pid + "/nodes/" + n["node_id"].(string)
	before := ts.Do("GET", path, nil).Body
	tests := []struct {
		name string
		body string
		want int
	}{
		{"huge number", `{"x": 1e400}`, 400},
		{"huge integer", `{"console": 99999999999999999999999999}`, 400},
		{"negative zero console", `{"console": -0}`, 400},
		{"deep nesting", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), 400},
		{"deep nesting in properties", `{"properties": {"startup_script": ` + strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000) + `}}`, 400},
		{"invalid UTF-8", "{\"name\": \"a\xc3\x28\"}", 400},
		{"NUL byte in a name", `{"name": "a\u0000b"}`, 400},
		{"line break in a name", `{"name": "a\nb"}`, 400},
		{"10 MB body", `{"name": "` + strings.Repeat("x", 10<<20) + `"}`, 400},
		{"NUL bytes raw", "{\"name\": \"a\x00\"}", 400},
		{"only whitespace", "   \n ", 400},
		{"UTF-16 BOM", "\xfe\xff{}", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.Do("PUT", path, tt.body).Want(t, tt.want)
			if m, _ := r.JSON(t)["message"].(string); m == "" {
				t.Errorf("no message: %s", r.Body)
			}
			if after := ts.Do("GET", path, nil).Body; !bytes.Equal(before, after) {
				t.Errorf("node changed:\n%s\n%s", before, after)
			}
		})
	}
	// Duplicate keys are ambiguous (readers disagree on which value counts).
	for _, body := range []string{`{"name": 5, "name": "twice"}`, `{"label": {"text": "a", "text": "b"}}`,
		`{"properties": {"startup_script": "a", "startup_script": "b"}}`} {
		if r := ts.Do("PUT", path, body).Want(t, 400); !strings.Contains(string(r.Body), "twice") {
			t.Errorf("%s: %s", body, r.Body)
		}
	}
	// The same key in sibling objects is fine.
	ts.Do("PUT", path, `{"label": {"text": "x", "y": 1}, "properties": {"startup_script": "y"}, "x": 1, "y": 2}`).Want(t, 200)
}

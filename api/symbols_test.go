package api

import (
	"bytes"
	"encoding/xml"
	"io"
	"io/fs"
	"net/url"
	"path"
	"strconv"
	"strings"
	"testing"

	"nodedesk/app"
)

// TestSymbols checks every builtin symbol as a client gets it: listed,
// served as an SVG of its size, safe to show, and that every node type's
// default symbol is one of them.
func TestSymbols(t *testing.T) {
	ts := mustOpenServer(t)
	want := app.Symbols()

	listed := map[string]bool{}
	for _, s := range ts.Do("GET", "/v2/symbols", nil).Want(t, 200).List(t) {
		id := s["symbol_id"].(string)
		if _, ok := want[id]; !ok {
			t.Errorf("GET /v2/symbols lists %s, which app.Symbols does not", id)
		}
		if s["filename"] != path.Base(id) || s["builtin"] != true {
			t.Errorf("symbol %v", s)
		}
		listed[id] = true
	}
	if len(listed) != len(want) {
		t.Errorf("GET /v2/symbols lists %d symbols, app.Symbols %d", len(listed), len(want))
	}

	for id, size := range want {
		t.Run(path.Base(id), func(t *testing.T) {
			r := ts.Do("GET", "/v2/symbols/"+url.PathEscape(id)+"/raw", nil).Want(t, 200)
			if ct := r.Header.Get("Content-Type"); ct != "image/svg+xml" {
				t.Errorf("Content-Type %q", ct)
			}
			checkSymbolSVG(t, r.Body, size)
		})
	}

	// Every drawing in the folder is a listed symbol: none is left unserved.
	files, err := fs.Glob(symbolFiles, "symbols/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, ok := want[symbolPrefix+path.Base(f)]; !ok {
			t.Errorf("api/%s is not a symbol app.Symbols lists", f)
		}
	}
	if len(files) != len(want) {
		t.Errorf("%d drawings for %d symbols", len(files), len(want))
	}

	for _, info := range ts.Do("GET", "/v2/node_types", nil).Want(t, 200).List(t) {
		if s, _ := info["symbol"].(string); !listed[s] {
			t.Errorf("node type %v: default symbol %q is not a builtin symbol", info["node_type"], s)
		}
	}
	for _, tmpl := range ts.Do("GET", "/v2/templates", nil).Want(t, 200).List(t) {
		if s, _ := tmpl["symbol"].(string); !listed[s] {
			t.Errorf("builtin template %v: symbol %q is not a builtin symbol", tmpl["name"], s)
		}
	}

	// A custom symbol (a user's file name) is not nodedesk's to draw.
	for _, id := range []string{":/symbols/unknown.svg", "my_router.png", "router.svg", ":/symbols/router"} {
		ts.Do("GET", "/v2/symbols/"+url.PathEscape(id)+"/raw", nil).Want(t, 404)
	}
}

// checkSymbolSVG checks that raw is one <svg> element of the given size
// with nothing in it that runs or loads: no script, no foreignObject, no
// event attribute, no reference outside the file.
func checkSymbolSVG(t *testing.T, raw []byte, size [2]int) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(raw))
	depth, roots := 0, 0
	elements := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			elements++
			if depth == 0 {
				roots++
				checkSVGRoot(t, e, size)
			}
			depth++
			switch strings.ToLower(e.Name.Local) {
			case "script", "foreignobject", "iframe", "image", "use", "style", "a":
				t.Errorf("has a <%s> element", e.Name.Local)
			}
			for _, a := range e.Attr {
				name, v := strings.ToLower(a.Name.Local), strings.ToLower(a.Value)
				switch {
				case strings.HasPrefix(name, "on"):
					t.Errorf("<%s> has the event attribute %s", e.Name.Local, a.Name.Local)
				case name == "href" || name == "src":
					t.Errorf("<%s> refers to %q", e.Name.Local, a.Value)
				case strings.Contains(v, "url(") || strings.Contains(v, "javascript:"):
					t.Errorf("<%s %s=%q> refers to something", e.Name.Local, a.Name.Local, a.Value)
				}
			}
		case xml.EndElement:
			depth--
		case xml.ProcInst, xml.Directive:
			t.Errorf("has a processing instruction or directive (an entity, a DOCTYPE): %s", tok)
		}
	}
	if roots != 1 {
		t.Errorf("%d root elements", roots)
	}
	if elements < 3 {
		t.Errorf("draws almost nothing: %d elements", elements)
	}
}

func checkSVGRoot(t *testing.T, e xml.StartElement, size [2]int) {
	t.Helper()
	if e.Name.Local != "svg" || e.Name.Space != "http://www.w3.org/2000/svg" {
		t.Fatalf("root element {%s}%s, want an SVG <svg>", e.Name.Space, e.Name.Local)
	}
	attrs := map[string]string{}
	for _, a := range e.Attr {
		attrs[a.Name.Local] = a.Value
	}
	w, h := strconv.Itoa(size[0]), strconv.Itoa(size[1])
	if attrs["width"] != w || attrs["height"] != h {
		t.Errorf("width %q height %q, want the symbol's size %s×%s", attrs["width"], attrs["height"], w, h)
	}
	if vb := "0 0 " + w + " " + h; attrs["viewBox"] != vb {
		t.Errorf("viewBox %q, want %q", attrs["viewBox"], vb)
	}
}

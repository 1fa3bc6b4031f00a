package api

import (
	"fmt"
	"html"
	"net/http"
	"path"
	"sort"
	"strings"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// The builtin symbols, listed and drawn as simple SVG outlines of GNS3's
// classic sizes, so that clients that draw a map (the GNS3 web UI) have a
// picture for every node.

func (s *Server) handleSymbolList(w http.ResponseWriter, r *http.Request) error {
	ids := make([]string, 0)
	for id := range app.Symbols() {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]map[string]any, len(ids))
	for i, id := range ids {
		out[i] = map[string]any{"symbol_id": id, "filename": path.Base(id), "builtin": true, "theme": "Classic"}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleSymbolRaw(w http.ResponseWriter, r *http.Request) error {
	id := mux.Vars(r)["symbol_id"]
	size, ok := app.Symbols()[id]
	if !ok {
		return app.Errorf(app.ENOTFOUND, "Symbol %s doesn't exist; GET /v2/symbols lists them", id)
	}
	label := strings.TrimSuffix(path.Base(id), ".svg")
	w.Header().Set("Content-Type", "image/svg+xml")
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+
		`<rect x="1" y="1" width="%d" height="%d" rx="6" fill="#e8eef7" stroke="#3b5b8c" stroke-width="2"/>`+
		`<text x="50%%" y="55%%" font-family="sans-serif" font-size="9" text-anchor="middle" fill="#3b5b8c">%s</text></svg>`,
		size[0], size[1], size[0], size[1], size[0]-2, size[1]-2, html.EscapeString(label))
	return nil
}

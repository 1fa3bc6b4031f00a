package api

import (
	"embed"
	"net/http"
	"path"
	"sort"
	"strings"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// The builtin symbols: app.Symbols lists them with their sizes, and each
// is drawn by one SVG file of that size in symbols/, nodedesk's own
// drawings. The same files are the node icons of nodedesk's UI (frontend/
// src/lib/symbols.ts bundles them), so the GNS3 GUI and web UI draw a
// nodedesk lab as nodedesk does.

// symbolFiles are the drawings, one per builtin symbol, named by the base
// name of its id (":/symbols/router.svg" is symbols/router.svg).
//
//go:embed symbols/*.svg
var symbolFiles embed.FS

// symbolPrefix begins the id of every builtin symbol.
const symbolPrefix = ":/symbols/"

// symbolFile is the drawing of a builtin symbol, or false for any other id.
func symbolFile(id string) ([]byte, bool) {
	if _, ok := app.Symbols()[id]; !ok || !strings.HasPrefix(id, symbolPrefix) {
		return nil, false
	}
	raw, err := symbolFiles.ReadFile("symbols/" + strings.TrimPrefix(id, symbolPrefix))
	return raw, err == nil
}

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
	raw, ok := symbolFile(id)
	if !ok {
		return app.Errorf(app.ENOTFOUND, "Symbol %s doesn't exist; GET /v2/symbols lists them", id)
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	_, _ = w.Write(raw)
	return nil
}

package api

import (
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// The headers by which a client says where a change comes from (see
// app.Source): X-Nodedesk-Origin is "browser" (nodedesk's page in a
// browser) or "window" (the desktop window; its in-process calls say so
// themselves), absent (or "api") for other clients; consecutive changes of
// one project that carry the same X-Nodedesk-Gesture id are one history
// entry. They need no rule of the guard: a page of another site cannot
// send them, since a custom header makes the browser ask first (CORS
// preflight), and nodedesk never allows it.
const (
	headerOrigin  = "X-Nodedesk-Origin"
	headerGesture = "X-Nodedesk-Gesture"
)

// withSource gives r's context the source its headers name. A request
// without them keeps its context: a REST client's, or the source an
// in-process call from the window already carries. A GET may say it too:
// GNS3's auto_idlepc is a GET that changes the router, and its history
// entry names the page that asked.
func withSource(r *http.Request) (*http.Request, error) {
	origin, gesture := r.Header.Get(headerOrigin), r.Header.Get(headerGesture)
	if origin == "" && gesture == "" {
		return r, nil
	}
	src, err := app.ParseSource(origin, gesture)
	if err != nil {
		return r, err
	}
	return r.WithContext(app.WithSource(r.Context(), src)), nil
}

// historyEntryJSON is a history entry on the wire: what it did, when, and
// through which door.
type historyEntryJSON struct {
	EntryID     string     `json:"entry_id"`
	Description string     `json:"description"`
	Time        string     `json:"time"`
	Origin      app.Origin `json:"origin"`
}

func historyEntryJSONOf(e *app.HistoryEntry) *historyEntryJSON {
	if e == nil {
		return nil
	}
	return &historyEntryJSON{EntryID: e.ID, Description: e.Description, Time: e.Time.UTC().Format(time.RFC3339Nano), Origin: e.Origin}
}

func historyEntriesJSON(es []*app.HistoryEntry) []*historyEntryJSON {
	out := make([]*historyEntryJSON, len(es))
	for i, e := range es {
		out[i] = historyEntryJSONOf(e)
	}
	return out
}

// historyStateJSON is the payload of history.updated: what undo and redo
// would take now (null: nothing).
type historyStateJSON struct {
	ProjectID string            `json:"project_id"`
	Undo      *historyEntryJSON `json:"undo"`
	Redo      *historyEntryJSON `json:"redo"`
}

func historyStateJSONOf(st *app.HistoryState) historyStateJSON {
	return historyStateJSON{ProjectID: st.ProjectID, Undo: historyEntryJSONOf(st.Undo), Redo: historyEntryJSONOf(st.Redo)}
}

func (s *Server) handleHistoryGet(w http.ResponseWriter, r *http.Request) error {
	h, err := s.svc.FindHistory(r.Context(), mux.Vars(r)["project_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"undo": historyEntriesJSON(h.Undo), "redo": historyEntriesJSON(h.Redo)})
	return nil
}

func (s *Server) handleUndo(w http.ResponseWriter, r *http.Request) error {
	e, err := s.svc.Undo(r.Context(), mux.Vars(r)["project_id"])
	return writeEntry(w, e, err)
}

func (s *Server) handleRedo(w http.ResponseWriter, r *http.Request) error {
	e, err := s.svc.Redo(r.Context(), mux.Vars(r)["project_id"])
	return writeEntry(w, e, err)
}

// writeEntry answers an undo or a redo with the entry it took.
func writeEntry(w http.ResponseWriter, e *app.HistoryEntry, err error) error {
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, historyEntryJSONOf(e))
	return nil
}

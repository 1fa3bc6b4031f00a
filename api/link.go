package api

import (
	"net/http"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

func (s *Server) writeLinks(w http.ResponseWriter, ls []*app.Link) {
	out := make([]linkJSON, len(ls))
	for i, l := range ls {
		out[i] = s.linkJSON(l)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleLinkList(w http.ResponseWriter, r *http.Request) error {
	ls, err := s.svc.FindLinks(r.Context(), mux.Vars(r)["project_id"])
	if err != nil {
		return err
	}
	s.writeLinks(w, ls)
	return nil
}

func (s *Server) handleNodeLinks(w http.ResponseWriter, r *http.Request) error {
	ls, err := s.svc.FindNodeLinks(r.Context(), nodeRef(r, ""))
	if err != nil {
		return err
	}
	s.writeLinks(w, ls)
	return nil
}

func (s *Server) handleLinkCreate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[app.LinkUpdate](s, r)
	if err != nil {
		return err
	}
	l, err := s.svc.CreateLink(r.Context(), mux.Vars(r)["project_id"], in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, s.linkJSON(l))
	return nil
}

func (s *Server) handleLinkGet(w http.ResponseWriter, r *http.Request) error {
	v := mux.Vars(r)
	l, err := s.svc.FindLink(r.Context(), v["project_id"], v["link_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.linkJSON(l))
	return nil
}

func (s *Server) handleLinkUpdate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[app.LinkUpdate](s, r)
	if err != nil {
		return err
	}
	v := mux.Vars(r)
	l, err := s.svc.UpdateLink(r.Context(), v["project_id"], v["link_id"], in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.linkJSON(l))
	return nil
}

func (s *Server) handleLinkDelete(w http.ResponseWriter, r *http.Request) error {
	v := mux.Vars(r)
	if err := s.svc.DeleteLink(r.Context(), v["project_id"], v["link_id"]); err != nil {
		return err
	}
	noContent(w)
	return nil
}

func (s *Server) handleProjectStats(w http.ResponseWriter, r *http.Request) error {
	st, err := s.svc.ProjectStats(r.Context(), mux.Vars(r)["project_id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]int{"nodes": st.Nodes, "links": st.Links, "drawings": st.Drawings, "snapshots": st.Snapshots})
	return nil
}

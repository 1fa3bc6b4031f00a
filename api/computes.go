package api

import (
	"encoding/json"
	"net/http"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// The computes of the controller: "local" (nodedesk itself, api/meta.go's
// localCompute) and the remote computes of app.Service.

// remoteComputeJSON is a remote compute as GNS3 shows it (never its password).
func (s *Server) remoteComputeJSON(v *app.ComputeView) map[string]any {
	var caps any = map[string]any{}
	if len(v.Capabilities) > 0 {
		caps = json.RawMessage(v.Capabilities)
	}
	return map[string]any{
		"capabilities": caps, "compute_id": v.ID, "connected": v.Connected, "cpu_usage_percent": v.CPU,
		"host": v.Host, "last_error": v.LastError, "memory_usage_percent": v.Memory, "name": v.Name,
		"port": v.Port, "protocol": v.Protocol, "user": v.User,
	}
}

func (s *Server) handleComputeList(w http.ResponseWriter, r *http.Request) error {
	remotes, err := s.svc.FindComputes(r.Context())
	if err != nil {
		return err
	}
	out := []any{s.localCompute(hostUsage())}
	for _, v := range remotes {
		out = append(out, s.remoteComputeJSON(v))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleComputeGet(w http.ResponseWriter, r *http.Request) error {
	id := mux.Vars(r)["compute_id"]
	if id == app.LocalCompute {
		writeJSON(w, http.StatusOK, s.localCompute(hostUsage()))
		return nil
	}
	v, err := s.svc.FindCompute(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.remoteComputeJSON(v))
	return nil
}

func (s *Server) handleComputeCreate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[app.ComputeCreate](s, r)
	if err != nil {
		return err
	}
	v, err := s.svc.CreateCompute(r.Context(), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, s.remoteComputeJSON(v))
	return nil
}

func (s *Server) handleComputeUpdate(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[app.ComputeUpdate](s, r)
	if err != nil {
		return err
	}
	v, err := s.svc.UpdateCompute(r.Context(), mux.Vars(r)["compute_id"], in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.remoteComputeJSON(v))
	return nil
}

func (s *Server) handleComputeDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.DeleteCompute(r.Context(), mux.Vars(r)["compute_id"]); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// forwardComputeGet answers a GET about a remote compute itself with what
// the compute answers to q (GNS3's controller forwards these); remote is
// false for "local", which the caller answers.
func (s *Server) forwardComputeGet(w http.ResponseWriter, r *http.Request, q app.ComputeQuery) (remote bool, err error) {
	id := mux.Vars(r)["compute_id"]
	if id == app.LocalCompute {
		return false, nil
	}
	raw, err := s.svc.ComputeResource(r.Context(), id, q)
	if err != nil {
		return true, err
	}
	writeJSON(w, http.StatusOK, raw)
	return true, nil
}

// handleComputeNetworkInterfacesOf lists a compute's network interfaces
// (the GNS3 GUI's cloud dialog asks for them).
func (s *Server) handleComputeNetworkInterfacesOf(w http.ResponseWriter, r *http.Request) error {
	if remote, err := s.forwardComputeGet(w, r, app.ComputeQuery{Emulator: "network", Action: "interfaces"}); remote || err != nil {
		return err
	}
	return s.handleComputeInterfaces(w, r)
}

// handleComputeForwardGet passes a GET about one of a remote compute's
// emulators on to it (the GNS3 GUI's qemu/binaries, virtualbox/vms, …).
func (s *Server) handleComputeForwardGet(w http.ResponseWriter, r *http.Request) error {
	v := mux.Vars(r)
	if remote, err := s.forwardComputeGet(w, r, app.ComputeQuery{Emulator: v["emulator"], Action: v["action"]}); remote || err != nil {
		return err
	}
	return app.Errorf(app.ENOTFOUND, "nodedesk's own compute (local) has no %s/%s to tell", v["emulator"], v["action"])
}

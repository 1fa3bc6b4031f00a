package api

import (
	"net/http"

	"github.com/gorilla/mux"

	"nodedesk/app"
)

// Packet capture and filters of a link.

func linkIDs(r *http.Request) (string, string) {
	v := mux.Vars(r)
	return v["project_id"], v["link_id"]
}

func (s *Server) handleLinkFilters(w http.ResponseWriter, r *http.Request) error {
	pid, lid := linkIDs(r)
	fs, err := s.svc.AvailableFilters(r.Context(), pid, lid)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, fs)
	return nil
}

func (s *Server) handleLinkCaptureStart(w http.ResponseWriter, r *http.Request) error {
	in, _, err := readBody[app.LinkCapture](s, r)
	if err != nil {
		return err
	}
	pid, lid := linkIDs(r)
	l, err := s.svc.StartCapture(r.Context(), pid, lid, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, s.linkJSON(l))
	return nil
}

func (s *Server) handleLinkCaptureStop(w http.ResponseWriter, r *http.Request) error {
	pid, lid := linkIDs(r)
	l, err := s.svc.StopCapture(r.Context(), pid, lid)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, s.linkJSON(l))
	return nil
}

// handleLinkPcap streams a capture file from its start and then as it
// grows, until the capture stops (as GNS3 feeds Wireshark); a capture
// that runs on a remote compute is streamed from there.
func (s *Server) handleLinkPcap(w http.ResponseWriter, r *http.Request) error {
	pid, lid := linkIDs(r)
	l, err := s.svc.FindLink(r.Context(), pid, lid)
	if err != nil {
		return err
	}
	if !l.Capturing || l.CaptureFilePath == nil {
		return app.Errorf(app.ECONFLICT, "Link %s is not capturing; start a capture first", l.ID)
	}
	if l.CapturedOnCompute() { // both nodes remote: the compute's pcap, proxied
		w.Header().Set("Content-Type", "application/vnd.tcpdump.pcap")
		return s.svc.StreamComputeCapture(r.Context(), l, w)
	}
	return s.followCapture(w, r, l.ID)
}

// followCapture streams the running capture of a data-plane wire (a link's,
// or a NIO's): what its file holds, then each frame written, until it stops.
func (s *Server) followCapture(w http.ResponseWriter, r *http.Request, wireID string) error {
	if s.FollowCapture == nil {
		return app.Errorf(app.ECONFLICT, "This nodedesk runs without a data plane, so it captures nothing")
	}
	w.Header().Set("Content-Type", "application/vnd.tcpdump.pcap")
	return s.FollowCapture(r.Context(), wireID, w)
}

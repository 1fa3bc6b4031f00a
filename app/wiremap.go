package app

import "context"

// The wire map (decision 0070): per link, the addresses that live there
// and what crossed it, and the faults the wire shows. CONTRACT STUB:
// issue 39's wire map helper replaces this file.

// UseWireWatch makes s read what crossed the links from w. Call it before
// the API serves (the data plane's Attach does).
func (s *Service) UseWireWatch(w WireWatch) { s.wireWatch = w }

// WireMap returns a project's wire map. Codes: ENOTFOUND.
func (s *Service) WireMap(ctx context.Context, projectID string) (*WireMap, error) {
	return &WireMap{ProjectID: projectID, Links: []WireLink{}, Faults: []WireFault{}}, nil
}

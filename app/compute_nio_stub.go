package app

import (
	"context"
	"encoding/json"
)

// TEMPORARY: stands in for branch compute-side's NIO core until it is
// merged (then this file is deleted).

// NIOSpec is a NIO to make (compute-side).
type NIOSpec struct {
	Type    string
	LPort   int
	RHost   string
	RPort   int
	Filters map[string]json.RawMessage
	Suspend bool
	LinkID  string
}

// NIO is a made NIO (compute-side).
type NIO struct{ NIOSpec }

// ReserveUDPPort stub.
func (s *Service) ReserveUDPPort(ctx context.Context, projectID string) (int, error) {
	return 0, Errorf(ECONFLICT, "NIO core not merged")
}

// AddNIO stub.
func (s *Service) AddNIO(ctx context.Context, ref NodeRef, adapter, port int, in NIOSpec) (*NIO, error) {
	return nil, Errorf(ECONFLICT, "NIO core not merged")
}

// UpdateNIO stub.
func (s *Service) UpdateNIO(ctx context.Context, ref NodeRef, adapter, port int, in NIOSpec) (*NIO, error) {
	return nil, Errorf(ECONFLICT, "NIO core not merged")
}

// DeleteNIO stub.
func (s *Service) DeleteNIO(ctx context.Context, ref NodeRef, adapter, port int) error {
	return Errorf(ECONFLICT, "NIO core not merged")
}

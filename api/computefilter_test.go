package api

import (
	"testing"

	"nodedesk/app"
)

// TestComputeFilter_LocalNodesOnly: the compute stream tells a node's
// change only for a node that lives here, not for one this nodedesk's
// controller runs on another compute.
func TestComputeFilter_LocalNodesOnly(t *testing.T) {
	local := &app.Node{ID: "a", Type: app.VPCS}
	remote := &app.Node{ID: "b", Type: app.VPCS, ComputeID: "other"}
	if !computeFilter(app.Event{Action: app.EventNodeUpdated, Payload: local}) {
		t.Error("a local node's node.updated is not sent on the compute stream")
	}
	if computeFilter(app.Event{Action: app.EventNodeUpdated, Payload: remote}) {
		t.Error("a remote node's node.updated is sent on the compute stream")
	}
}

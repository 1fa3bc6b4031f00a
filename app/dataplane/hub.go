package dataplane

import (
	"sync/atomic"

	"nodedesk/app"
)

// EthernetHub is the Engine of an Ethernet hub node: every frame goes out
// of every other port, unchanged. Create it with NewEthernetHub.
type EthernetHub struct {
	ports atomic.Int32 // number of configured ports
}

// NewEthernetHub returns a hub with no port; Configure gives it its ports.
func NewEthernetHub() *EthernetHub { return new(EthernetHub) }

// Input repeats a frame arrived on port out of every other port.
func (h *EthernetHub) Input(port int, frame []byte, out *Out) {
	n := int(h.ports.Load())
	if port < 0 || port >= n || !frameSizeOK(len(frame)) {
		return
	}
	for p := range n {
		if p != port {
			out.Emit(p, frame)
		}
	}
}

// Configure applies the node's ports_mapping: engine port p is entry p.
func (h *EthernetHub) Configure(n *app.Node) {
	h.ports.Store(int32(len(n.Properties.HubPorts)))
}

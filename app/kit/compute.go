package kit

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
)

// Controller plays a GNS3 2.2.59 controller: it calls an API's compute
// paths (/v2/compute/...) as GNS3's does.
type Controller struct {
	API *API
	T   testing.TB
	PID string // the project, which the controller creates
}

// Node creates a node of type typ on the compute, with body as a GNS3
// controller sends it (node_id and name added).
func (c *Controller) Node(typ, name string, body map[string]any) map[string]any {
	c.T.Helper()
	body["node_id"], body["name"] = uuid.NewString(), name
	return c.API.Do("POST", "/v2/compute/projects/"+c.PID+"/"+typ+"/nodes", body).Want(c.T, 201).JSON(c.T)
}

// UDPPort reserves a UDP port on the compute.
func (c *Controller) UDPPort() int {
	c.T.Helper()
	return int(c.API.Do("POST", "/v2/compute/projects/"+c.PID+"/ports/udp", nil).Want(c.T, 201).JSON(c.T)["udp_port"].(float64))
}

// NIOPath is the NIO path of a node's port.
func (c *Controller) NIOPath(typ, node string, adapter, port int) string {
	return fmt.Sprintf("/v2/compute/projects/%s/%s/nodes/%s/adapters/%d/ports/%d/nio", c.PID, typ, node, adapter, port)
}

// NIO is the body GNS3's UDPLink sends.
func NIO(lport, rport int, suspend bool) map[string]any {
	return map[string]any{"type": "nio_udp", "lport": lport, "rhost": "127.0.0.1", "rport": rport, "filters": map[string]any{}, "suspend": suspend}
}

// ComputeEnd is one end of a link as the controller knows it.
type ComputeEnd struct {
	Type, Node    string
	Adapter, Port int
}

// Link makes a link as GNS3's UDPLink does: a port on each side, then the
// NIO of side 1, then side 2. It returns the lports.
func (c *Controller) Link(a, b ComputeEnd) (int, int) {
	c.T.Helper()
	pa, pb := c.UDPPort(), c.UDPPort()
	c.API.Do("POST", c.NIOPath(a.Type, a.Node, a.Adapter, a.Port), NIO(pa, pb, false)).Want(c.T, 201)
	c.API.Do("POST", c.NIOPath(b.Type, b.Node, b.Adapter, b.Port), NIO(pb, pa, false)).Want(c.T, 201)
	return pa, pb
}

package remote

import (
	"context"
	"encoding/json"
	"io"
	"strconv"

	"nodedesk/app"
)

// The GNS3 compute API as nodedesk's controller speaks it, the calls and
// the order of GNS3's own controller: one method of app.ComputeClient per
// operation, with its path under /v2/compute, its body and its answer,
// and the decoding of the notifications nodedesk follows. This file is the
// only place of nodedesk where they are written.

func projectPath(id string) string { return "/projects/" + id }

func nodesPath(projectID string, t app.NodeType) string {
	return projectPath(projectID) + "/" + string(t) + "/nodes"
}

func nodePath(ref app.NodeRef) string { return nodesPath(ref.ProjectID, ref.Type) + "/" + ref.NodeID }

func portPath(p app.PortRef) string {
	return nodePath(p.NodeRef) + "/adapters/" + strconv.Itoa(p.Adapter) + "/ports/" + strconv.Itoa(p.Port)
}

// empty is the body GNS3's controller sends with an action: {}.
var empty = struct{}{}

// CreateProject makes a project on the compute (POST /projects, which a
// compute takes for a project it has).
func (cl *Client) CreateProject(ctx context.Context, id, name string) error {
	body := struct {
		Name      string `json:"name"`
		ProjectID string `json:"project_id"`
	}{name, id}
	return cl.call(ctx, "POST", "/projects", body, nil)
}

// CloseProject closes a project on the compute.
func (cl *Client) CloseProject(ctx context.Context, id string) error {
	return cl.call(ctx, "POST", projectPath(id)+"/close", empty, nil)
}

// DeleteProject deletes a project on the compute.
func (cl *Client) DeleteProject(ctx context.Context, id string) error {
	return cl.call(ctx, "DELETE", projectPath(id), nil, nil)
}

// sendsConsoleType reports whether GNS3's controller sends a console_type
// when it makes or changes a node of type t: not for its builtin nodes
// that have no console (cloud, NAT, hub, Frame Relay and ATM switches),
// whose compute schemas refuse one.
func sendsConsoleType(t app.NodeType) bool {
	return t.HasConsole() || t.Lifecycle() == app.ProcessRun
}

// nodeBody is what the compute is sent to make or change n: its
// properties, name, node_id and console type, as GNS3's controller sends
// them, and its console port when nodedesk chose it.
func nodeBody(n *app.Node) map[string]any {
	body := map[string]any{}
	for k, v := range n.SettableProperties() {
		if v != nil {
			body[k] = v
		}
	}
	body["name"], body["node_id"] = n.Name, n.ID
	if n.Console != 0 {
		body["console"] = n.Console // a compute on this machine: the port this nodedesk chose
	}
	if sendsConsoleType(n.Type) {
		ct := string(n.ConsoleType)
		if ct == "" {
			ct = "none"
		}
		body["console_type"] = ct
	}
	return body
}

// nodeAnswer is what nodedesk reads of a compute's view of a node.
type nodeAnswer struct {
	Status  app.Status `json:"status"`
	Console *int       `json:"console"`
}

func (a nodeAnswer) node() app.NodeAnswer {
	return app.NodeAnswer{Status: a.Status, Console: a.Console}
}

// CreateNode makes n on the compute (POST …/<type>/nodes), with the
// type's defaults for a new node there that n lacks (a router's base
// config, as GNS3's controller sends a template's base file).
func (cl *Client) CreateNode(ctx context.Context, n *app.Node) (app.NodeAnswer, error) {
	body := nodeBody(n)
	for k, v := range n.Type.ComputeCreateDefaults() {
		if _, given := body[k]; !given {
			body[k] = v
		}
	}
	var ans nodeAnswer
	err := cl.call(ctx, "POST", nodesPath(n.ProjectID, n.Type), body, &ans)
	return ans.node(), err
}

// UpdateNode sends n to its node on the compute (PUT …/nodes/{id}).
func (cl *Client) UpdateNode(ctx context.Context, n *app.Node) (app.NodeAnswer, error) {
	var ans nodeAnswer
	err := cl.call(ctx, "PUT", nodePath(app.NodeRef{ProjectID: n.ProjectID, NodeID: n.ID, Type: n.Type}), nodeBody(n), &ans)
	return ans.node(), err
}

// DeleteNode deletes a node on the compute.
func (cl *Client) DeleteNode(ctx context.Context, ref app.NodeRef) error {
	return cl.call(ctx, "DELETE", nodePath(ref), nil, nil)
}

// DuplicateNode copies src's data to node dstID on the compute.
func (cl *Client) DuplicateNode(ctx context.Context, src app.NodeRef, dstID string) error {
	body := struct {
		DestinationNodeID string `json:"destination_node_id"`
	}{dstID}
	return cl.call(ctx, "POST", nodePath(src)+"/duplicate", body, nil)
}

// NodeAction starts, stops, suspends or reloads a node on the compute,
// sending body (empty when nil).
func (cl *Client) NodeAction(ctx context.Context, ref app.NodeRef, a app.Action, body map[string]json.RawMessage) error {
	if body == nil {
		return cl.call(ctx, "POST", nodePath(ref)+"/"+string(a), empty, nil)
	}
	return cl.call(ctx, "POST", nodePath(ref)+"/"+string(a), body, nil)
}

// ReserveUDPPort reserves a UDP port of the compute for a project.
func (cl *Client) ReserveUDPPort(ctx context.Context, projectID string) (int, error) {
	var ans struct {
		UDPPort int `json:"udp_port"`
	}
	err := cl.call(ctx, "POST", projectPath(projectID)+"/ports/udp", empty, &ans)
	return ans.UDPPort, err
}

// nioBody is spec as a GNS3 compute takes it in POST and PUT …/nio.
func nioBody(spec app.NIOSpec) any {
	return struct {
		Filters map[string]json.RawMessage `json:"filters"`
		LPort   int                        `json:"lport"`
		RHost   string                     `json:"rhost"`
		RPort   int                        `json:"rport"`
		Suspend bool                       `json:"suspend"`
		Type    string                     `json:"type"`
	}{spec.Filters, spec.LPort, spec.RHost, spec.RPort, spec.Suspend, spec.Type}
}

// AddNIO gives a port of a node on the compute a NIO.
func (cl *Client) AddNIO(ctx context.Context, p app.PortRef, spec app.NIOSpec) error {
	return cl.call(ctx, "POST", portPath(p)+"/nio", nioBody(spec), nil)
}

// UpdateNIO changes the NIO of a port of a node on the compute.
func (cl *Client) UpdateNIO(ctx context.Context, p app.PortRef, spec app.NIOSpec) error {
	return cl.call(ctx, "PUT", portPath(p)+"/nio", nioBody(spec), nil)
}

// RemoveNIO removes the NIO of a port of a node on the compute.
func (cl *Client) RemoveNIO(ctx context.Context, p app.PortRef) error {
	return cl.call(ctx, "DELETE", portPath(p)+"/nio", nil, nil)
}

// StartCapture starts a capture of a port on the compute.
func (cl *Client) StartCapture(ctx context.Context, p app.PortRef, fileName, dataLinkType string) error {
	body := struct {
		CaptureFileName string `json:"capture_file_name"`
		DataLinkType    string `json:"data_link_type"`
	}{fileName, dataLinkType}
	return cl.call(ctx, "POST", portPath(p)+"/start_capture", body, nil)
}

// StopCapture stops the capture of a port on the compute.
func (cl *Client) StopCapture(ctx context.Context, p app.PortRef) error {
	return cl.call(ctx, "POST", portPath(p)+"/stop_capture", empty, nil)
}

// StreamPcap copies the pcap of a port's capture on the compute to w.
func (cl *Client) StreamPcap(ctx context.Context, p app.PortRef, w io.Writer) error {
	return cl.stream(ctx, portPath(p)+"/pcap", w)
}

// Query asks the compute GET /<emulator>/<action> and returns its answer.
func (cl *Client) Query(ctx context.Context, q app.ComputeQuery) (json.RawMessage, error) {
	var out json.RawMessage
	if err := cl.call(ctx, "GET", "/"+q.Emulator+"/"+q.Action, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// event decodes a notification nodedesk follows (not a ping): a
// node.updated's node and status, or a log.*'s event, kept as the compute
// sent it. ok is false for anything else, or what cannot be read.
func event(action, projectID string, raw json.RawMessage) (ev app.ComputeEvent, ok bool) {
	a := app.EventAction(action)
	switch {
	case a == app.EventNodeUpdated:
		var v struct {
			ProjectID string     `json:"project_id"`
			NodeID    string     `json:"node_id"`
			Status    app.Status `json:"status"`
		}
		if json.Unmarshal(raw, &v) != nil {
			return ev, false
		}
		return app.ComputeEvent{Action: a, Node: app.NodeRef{ProjectID: v.ProjectID, NodeID: v.NodeID}, Status: v.Status}, true
	case a.ComputeOnly():
		if !json.Valid(raw) {
			return ev, false
		}
		return app.ComputeEvent{Action: a, ProjectID: projectID, Message: raw}, true
	}
	return ev, false
}

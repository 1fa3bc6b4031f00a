package app

import (
	"context"
	"net"
	"slices"
	"strconv"
)

// Console ports. Every node that has a console owns one TCP port of this
// machine, unique across all projects. A new node gets the lowest free port
// of ConsolePortMin–ConsolePortMax; a client may ask for any other
// unprivileged port. The port is stored, so it never moves by itself.

// The range new console ports are allocated from.
const (
	ConsolePortMin = 5000
	ConsolePortMax = 10000
	// VNCPortMin starts the range of VNC consoles: a VNC server's port is
	// 5900 plus its display number (GNS3 allocates them from 5900 too).
	VNCPortMin = 5900
)

// consoleRange is the range a new console of type ct is allocated from.
func consoleRange(ct ConsoleType) (lo, hi int) {
	if ct == ConsoleVNC {
		return VNCPortMin, ConsolePortMax
	}
	return ConsolePortMin, ConsolePortMax
}

// checkConsolePort checks a console port a client asked for, for a
// console of type ct.
func checkConsolePort(port int, ct ConsoleType) error {
	if port < 1024 || port > 65535 {
		return Invalid("console", "Console port %d cannot be used: choose a port from 1024 to 65535 (new nodes get one from %d–%d)",
			port, ConsolePortMin, ConsolePortMax)
	}
	if ct == ConsoleVNC && port < VNCPortMin {
		return Invalid("console", "Console port %d cannot be a VNC console: a VNC display is port %d or more; choose one from %d to 65535",
			port, VNCPortMin, VNCPortMin)
	}
	return nil
}

// NodeKey identifies a node across projects.
type NodeKey struct {
	ProjectID string
	NodeID    string
}

// claimConsole makes sure n owns its console ports, inside tx: a port
// another node owns is a conflict that names that node; a node whose
// console type needs a port and has none gets the lowest free one, and so
// does the aux console of a type that has one (Docker's).
func (s *Service) claimConsole(tx Tx, n *Node) error {
	if n.Remote() && !s.computeOnThisMachine(n.ComputeID) { // a remote node's ports are its compute's
		n.Console, n.Aux = 0, 0
		return nil
	}
	if n.ConsoleType == ConsoleNone {
		n.Console = 0
	} else if err := s.claimPort(tx, n, &n.Console, n.ConsoleType, "console"); err != nil {
		return err
	}
	if !n.Type.kind().aux {
		n.Aux = 0
		return nil
	}
	return s.claimPort(tx, n, &n.Aux, ConsoleTelnet, "aux")
}

// claimPort makes sure n owns *port (its console or its aux console),
// giving it the lowest free one of ct's range when it has none.
func (s *Service) claimPort(tx Tx, n *Node, port *int, ct ConsoleType, field string) error {
	if *port == 0 {
		p, err := s.freeConsolePort(tx, ct, n.Console, n.Aux)
		if err != nil {
			return err
		}
		*port = p
		return nil
	}
	owner, ok, err := tx.ConsoleOwner(*port)
	if err != nil || !ok || owner == (NodeKey{n.ProjectID, n.ID}) {
		return err
	}
	return Conflict(field, "Console port %d is already used by node %s; choose another port or leave %s out",
		*port, ownerWhere(tx, owner, n.ProjectID), field)
}

// ownerName names the node that owns a port, for a conflict's message:
// its name, or its id when it cannot be read.
func ownerName(tx Tx, owner NodeKey) string {
	if o, err := tx.Node(owner.ProjectID, owner.NodeID); err == nil && o != nil {
		return o.Name
	}
	return owner.NodeID
}

// ownerWhere names the node that owns a port and, when it is not in
// project projectID, its project: "PC3", "PC3 of project lab2".
func ownerWhere(tx Tx, owner NodeKey, projectID string) string {
	name := ownerName(tx, owner)
	if owner.ProjectID == projectID {
		return name
	}
	if p, err := tx.Project(owner.ProjectID); err == nil && p != nil {
		return name + " of project " + p.Name
	}
	return name + " of another project"
}

// consolePortFree is the one test of a console port being free for a new
// node: no node owns it and no other program of this machine holds it.
func (s *Service) consolePortFree(tx Tx, port int) (bool, error) {
	_, owned, err := tx.ConsoleOwner(port)
	if err != nil || owned {
		return false, err
	}
	return s.c.PortFree("tcp", port), nil
}

// freeConsolePort returns the lowest console port of the range that is
// free (consolePortFree; a port taken later still fails the node's start
// with a conflict that says so), but those in taken (the node's other
// console, not yet stored).
func (s *Service) freeConsolePort(tx Tx, ct ConsoleType, taken ...int) (int, error) {
	lo, hi := consoleRange(ct)
	for p := lo; p <= hi; p++ {
		if slices.Contains(taken, p) {
			continue
		}
		free, err := s.consolePortFree(tx, p)
		if err != nil {
			return 0, err
		}
		if free {
			return p, nil
		}
	}
	return 0, Errorf(ECONFLICT, "No console port is free in %d–%d; delete nodes you no longer need or give this node a port outside the range",
		lo, hi)
}

// ConsolePorts lists the console ports nodes own, ascending.
func (s *Service) ConsolePorts(ctx context.Context) ([]int, error) {
	var ports []int
	err := s.view(func(tx Tx) (err error) {
		ports, err = tx.ConsolePorts()
		return err
	})
	return ports, err
}

// ConsoleServer serves node consoles: the VPCS runner, the data plane
// (the Ethernet switch's shell). ResetConsole drops the clients of one
// node's console, so that a stuck session can start afresh.
type ConsoleServer interface {
	ResetConsole(nodeID string)
}

// AddConsoleServer makes s reset the consoles c serves. Call it while
// wiring, before the API serves.
func (s *Service) AddConsoleServer(c ConsoleServer) {
	s.consoleMu.Lock()
	defer s.consoleMu.Unlock()
	s.consoleServers = append(s.consoleServers, c)
}

// ConsoleAddress returns a node and the address (host:port) its telnet
// console answers on now, for a client that relays it (the console
// websocket). Codes: ENOTFOUND; ECONFLICT when the node has no telnet
// console or is not started.
func (s *Service) ConsoleAddress(ctx context.Context, ref NodeRef) (*Node, string, error) {
	return s.consoleAddress(ctx, ref, ConsoleTelnet)
}

// VNCAddress returns a node and the address (host:port) of its VNC
// server (a QEMU guest's screen), for a client that relays it (the VNC
// websocket). Codes: ENOTFOUND; ECONFLICT when the node's console type is
// not vnc or it is not started.
func (s *Service) VNCAddress(ctx context.Context, ref NodeRef) (*Node, string, error) {
	return s.consoleAddress(ctx, ref, ConsoleVNC)
}

// AuxAddress returns a node and the address (host:port) of its aux
// console (a shell in a Docker node's container), for a client that
// relays it. Codes: ENOTFOUND; ECONFLICT when the node has no aux console
// here or is not started.
func (s *Service) AuxAddress(ctx context.Context, ref NodeRef) (*Node, string, error) {
	n, err := s.FindNode(ctx, ref)
	if err != nil {
		return nil, "", err
	}
	if n.Aux == 0 {
		return nil, "", Errorf(ECONFLICT, "%s has no aux console here (%s nodes on this machine have one)", n.Name, joinAnd(auxTypes()))
	}
	if n.Status != Started {
		return nil, "", Errorf(ECONFLICT, "%s is %s; start it to use its aux console", n.Name, n.Status)
	}
	return n, net.JoinHostPort(DialHost(s.c.ConsoleHost), strconv.Itoa(n.Aux)), nil
}

// consoleNames are the console types as a message names them.
var consoleNames = map[ConsoleType]string{ConsoleTelnet: "telnet", ConsoleVNC: "VNC"}

// consoleAddress is where the console of type want of a started node
// answers.
func (s *Service) consoleAddress(ctx context.Context, ref NodeRef, want ConsoleType) (*Node, string, error) {
	n, err := s.FindNode(ctx, ref)
	if err != nil {
		return nil, "", err
	}
	if n.ConsoleType != want || (n.Console == 0 && n.ComputeConsole == 0) {
		return nil, "", Errorf(ECONFLICT, "%s has no %s console; give it console type %s first", n.Name, consoleNames[want], want)
	}
	if n.Status != Started {
		return nil, "", Errorf(ECONFLICT, "%s is %s; start it to use its console", n.Name, n.Status)
	}
	if n.Remote() {
		v := s.ShowNode(n)
		return n, net.JoinHostPort(DialHost(v.ConsoleHost), strconv.Itoa(v.Console)), nil
	}
	return n, net.JoinHostPort(DialHost(s.c.ConsoleHost), strconv.Itoa(n.Console)), nil
}

// DialHost is the address a client on this machine dials to reach host,
// an address nodedesk listens on: the loopback address when host is every
// interface (0.0.0.0, ::) or empty.
func DialHost(host string) string {
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		return "127.0.0.1"
	}
	return host
}

// ResetConsole drops the clients of a node's console. Codes: ENOTFOUND.
func (s *Service) ResetConsole(ctx context.Context, ref NodeRef) error {
	n, err := s.FindNode(ctx, ref)
	if err != nil {
		return err
	}
	s.resetConsoles(n.ID)
	return nil
}

// ResetConsoles drops the clients of the console of every node of a
// project. Codes: ENOTFOUND.
func (s *Service) ResetConsoles(ctx context.Context, projectID string) error {
	nodes, err := s.FindNodes(ctx, projectID)
	if err != nil {
		return err
	}
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		ids[i] = n.ID
	}
	s.resetConsoles(ids...)
	return nil
}

func (s *Service) resetConsoles(ids ...string) {
	s.consoleMu.Lock()
	servers := slices.Clone(s.consoleServers)
	s.consoleMu.Unlock()
	for _, c := range servers {
		for _, id := range ids {
			c.ResetConsole(id)
		}
	}
}

// auxTypes lists the node types that have an aux console here.
func auxTypes() []string {
	var ts []string
	for _, t := range NodeTypes {
		if t.kind().aux {
			ts = append(ts, t.Title())
		}
	}
	return ts
}

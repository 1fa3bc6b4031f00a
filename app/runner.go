package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Nodes that run as processes. A Runner (package app/vpcs for VPCS) starts
// and supervises them; the Service decides when, records their status and
// gives each node the resources it needs: a MAC offset unique in its
// project and a UDP port pair unique on this machine, stored so that they
// stay the same from one start to the next.

// Runner runs the nodes of the types it handles as real processes. Its
// errors are *Error values whose messages say what to do.
type Runner interface {
	// Runs reports whether the runner handles nodes of type t.
	Runs(t NodeType) bool
	// Start starts a node and returns once it is up, with the command
	// line it ran. A UDP port of its pairs its process could not bind is
	// an *EndTaken, which the Service turns into a message naming who
	// holds it.
	Start(p Process) (commandLine string, err error)
	// Stop ends a node's process, politely then by force.
	Stop(nodeID string) error
	// Suspend pauses a node's process; Resume continues it.
	Suspend(nodeID string) error
	Resume(nodeID string) error
}

// Process is what a Runner needs to start one node.
type Process struct {
	ProjectID, NodeID, Name string
	Dir                     string      // working folder
	Console                 int         // TCP port of the console; 0: none
	ConsoleType             ConsoleType // how the console is reached
	StartupScript           *string     // nil: none (VPCS)
	MACOffset               int         // 0–254, unique in the project (VPCS)
	// Ports has one UDP port pair per port of the node, in the order of
	// its ports array: the process binds Local and sends to Remote, where
	// nodedesk's data plane carries the port's frames.
	Ports []PortPair
	// PortList is the node's ports, in the same order as Ports: their
	// adapter and port numbers (a Dynamips router's slots).
	PortList []Port
	// CustomAdapters override the type or MAC address of some adapters.
	CustomAdapters []CustomAdapter
	// Properties are the node's own properties as GNS3 keys them.
	Properties map[string]json.RawMessage
	// Images are the absolute paths of the images the properties name,
	// by property key (hda_disk_image, …), found in the image folders.
	Images map[string]string
	// HostInterfaces has, for the types whose ports are host interfaces
	// (Docker), one name per port in the order of its ports array: the
	// host end of the port's veth pair (VethName), which the Runner
	// creates and the data plane reads and writes. Such types get no
	// UDP ports.
	HostInterfaces []string
	// Aux is the TCP port of the node's auxiliary console (Docker's
	// shell); 0: none.
	Aux int
	// Files are the files of its folder the node's type owns (node_files.go),
	// by name, as the node keeps them: IOU's startup-config.cfg.
	Files map[string]string
	// StartBody is what GNS3's controller sends a compute with the start
	// of such a node, under GNS3's keys (IOU's iourc_content and
	// license_check); nil for most types.
	StartBody map[string]json.RawMessage
}

// Ref names the node p starts, as the Service's use cases and a
// runner's Observer take it.
func (p Process) Ref() NodeRef { return NodeRef{ProjectID: p.ProjectID, NodeID: p.NodeID} }

// VethName is the name of the host end of the veth pair of port i of
// node nodeID (a Docker node's adapter i): "nd", ten hex digits of the
// id, "-", i. It fits Linux's 15 characters for up to 99 ports, and the
// runner, the data plane and the reaping of orphans all derive it here.
func VethName(nodeID string, i int) string {
	hex := strings.ReplaceAll(nodeID, "-", "")
	if len(hex) > 10 {
		hex = hex[:10]
	}
	return "nd" + hex + "-" + strconv.Itoa(i)
}

// PortPair is the two UDP ports, on 127.0.0.1, of one port of a process.
type PortPair struct{ Local, Remote int }

// Reloader is a Runner that reboots a running node in place (QEMU's
// system reset), where the others are stopped and started again.
type Reloader interface {
	Reload(nodeID string) error
}

// Tuner is a Runner that gives a running node some changed settings at
// once (a router's idle-PC values, as GNS3 sets them online); the others
// wait for its next start. Tune is called after each change of a node it
// runs, with the node's properties as GNS3 keys them.
type Tuner interface {
	Tune(nodeID string, properties map[string]json.RawMessage) error
}

// ImageDefaultsReader is a Runner that reads, from an image, defaults of
// the nodes that run it (IOU's RAM and NVRAM, which `image -h` states), as
// GNS3's compute reads them when it makes a node: properties under GNS3's
// keys; none when the image says nothing.
type ImageDefaultsReader interface {
	ImageDefaults(imagePath string) map[string]json.RawMessage
}

// MachineIDs is a Runner whose nodes are known on the machine by a small
// number other programs may hold too (IOU's application id, which names
// its sockets in /tmp/netio<uid>: a GNS3 or a second nodedesk running IOU
// holds some): a new node, and a node that starts, gets one nobody holds.
type MachineIDs interface {
	// HeldElsewhere reports whether another program holds id now.
	HeldElsewhere(id int) bool
}

// Provisioner is a Runner whose nodes own something from their creation,
// not only while they run: Docker's container, which GNS3 makes with the
// node and keeps across its stops, so that what is written in it lasts
// until the node is deleted or its project closed. The Service provisions
// a stopped node when it is made, changed or brought back and when its
// project opens (node_provision.go), and releases it when it is deleted
// or its project closes.
type Provisioner interface {
	// Provision makes what a stopped node owns, if it lacks it or has it
	// with other settings, and returns its id (a container's), which the
	// node's view shows. It may take a while (an image pulled).
	Provision(ctx context.Context, p Process) (id string, err error)
	// Provisioned is the id Provision (or a start) gave the node; "" if it
	// owns nothing now.
	Provisioned(nodeID string) string
	// Release stops the node if it runs and removes what it owns.
	Release(nodeID string) error
}

// claimEnv is what a claim of a node of type t sees inside tx.
func (s *Service) claimEnv(tx Tx, t NodeType) claimEnv {
	c := claimEnv{tx: tx}
	if m, ok := s.runner(t).(MachineIDs); ok {
		c.held = m.HeldElsewhere
	}
	return c
}

// Observer is told what a runner's nodes do on their own: a process that
// ended by itself, a sentence for the user. The Service is the Observer
// of every Supervised runner it is given.
type Observer interface {
	OnProcessExit(projectID, nodeID, detail string)
	OnProcessNote(projectID, nodeID string, note Note)
	// OnNodeFiles is told the files of its folder a node saved itself
	// (a router's "write memory" read back from its NVRAM: file name →
	// content); it returns once they are kept.
	OnNodeFiles(projectID, nodeID string, files map[string]string)
}

// Supervised is the lifecycle half every runner of nodedesk shares
// (package app/supervise writes it once): who is told of exits, what a
// killed nodedesk left running, and stopping everything at the end.
type Supervised interface {
	// Observe sets who is told when a node's process ends by itself or
	// has something to say. NewService calls it.
	Observe(o Observer)
	// Open readies the runner when nodedesk starts: it ends the processes
	// a previous nodedesk that was killed left running (by the records
	// the runner keeps) and may begin a slow probe in the background. It
	// returns the names of the nodes whose leftovers it ended.
	Open(ctx context.Context) (ended []string, err error)
	// StopAll stops every process the runner runs: the last thing
	// nodedesk does.
	StopAll()
}

// RunnerEnv is what every runner is made with (package app/emulators
// makes them all, for nodedesk and for the lab tests).
type RunnerEnv struct {
	// ConsoleHost is the host the REST API listens on: consoles listen
	// there and on 127.0.0.1, and nowhere else.
	ConsoleHost string
	// RunDir is the folder of runners' records: each keeps its own in a
	// sub-folder named after its node type; "" keeps none.
	RunDir string
	// Programs name, by node type, the program a runner runs (or the
	// address of the engine it drives) instead of its default.
	Programs map[NodeType]string
	// StopGrace is how long a stop waits after asking a process to end
	// before it is killed; zero is each runner's own default.
	StopGrace time.Duration
	// ShutdownWait is how long a stop waits for a guest to power itself
	// off when its node asks for that (QEMU's on_close
	// shutdown_signal); zero is the runner's own default.
	ShutdownWait time.Duration
	Logger       *slog.Logger
}

// OpenRunners readies every Supervised runner at nodedesk's start (Open):
// the leftovers of a killed nodedesk are ended (each runner says which in
// the log, and Leftovers tells the user).
func (s *Service) OpenRunners(ctx context.Context) error {
	var errs []error
	for _, r := range s.c.Runners {
		sv, ok := r.(Supervised)
		if !ok {
			continue
		}
		ended, err := sv.Open(ctx) // each runner logs what it ended
		if err != nil {
			errs = append(errs, err)
		}
		s.noteLeftovers(ended, nil) // and the user is told (leftovers.go)
	}
	s.provisionOpenProjects(ctx) // their containers, made again
	return errors.Join(errs...)
}

// StopRunners stops every process of every Supervised runner: the last
// thing nodedesk does, whatever happened before.
func (s *Service) StopRunners() {
	s.stopProvisions()
	var wg sync.WaitGroup
	for _, r := range s.c.Runners {
		if sv, ok := r.(Supervised); ok {
			wg.Go(sv.StopAll)
		}
	}
	wg.Wait()
}

// maxMACOffset bounds MAC offsets: VPCS varies one byte of its address.
const maxMACOffset = 254

// OnProcessExit is what a Runner calls when a process ends by itself: the
// node is recorded as stopped and the change published.
func (s *Service) OnProcessExit(projectID, nodeID, detail string) {
	unlock := s.lockNode(nodeID)
	defer unlock()
	n, err := s.recordStatus(context.Background(), NodeRef{ProjectID: projectID, NodeID: nodeID}, Stopped, nil)
	if err == nil && n != nil {
		s.tell(EventLogError, projectID, fmt.Sprintf("%s has stopped by itself: %s", n.Name, detail))
	}
}

// OnNodeFiles is what a Runner calls when a node saved files of its own
// (an IOU router's configs, read back from its NVRAM after "write
// memory" and at stop): they become its files, as if a client wrote
// them, so that the next start, an export and "Edit config" show them.
func (s *Service) OnNodeFiles(projectID, nodeID string, files map[string]string) {
	ref := NodeRef{ProjectID: projectID, NodeID: nodeID}
	n, err := s.FindNode(context.Background(), ref)
	if err != nil {
		return // deleted meanwhile
	}
	u, err := filesUpdate(n.Type, files)
	if err == nil && u != nil {
		ref.Type = n.Type
		_, err = s.UpdateNode(context.Background(), ref, NodeUpdate{Properties: u})
	}
	if err != nil && ErrorCode(err) != ENOTFOUND {
		s.tell(EventLogError, projectID, fmt.Sprintf("The configuration %s saved could not be kept: %s", n.Name, ErrorMessage(err)))
	}
}

// OnProcessNote is what a Runner calls to tell the user something about a
// node that runs (that it runs without hardware acceleration).
func (s *Service) OnProcessNote(projectID, nodeID string, note Note) {
	s.tellDetail(EventLogWarning, projectID, note.Message, note.Detail)
}

// tell says a sentence to the users of a project, as GNS3 does: on the
// compute stream (a GNS3 controller of this nodedesk shows it) and on the
// project's stream, where GNS3's controller passes on what its local
// compute says.
func (s *Service) tell(a EventAction, projectID, message string) {
	s.tellDetail(a, projectID, message, "")
}

// tellDetail is tell with the technical detail behind the sentence.
func (s *Service) tellDetail(a EventAction, projectID, message, detail string) {
	if s.c.Events == nil {
		return
	}
	m := &LogMessage{Message: message, Detail: detail}
	s.c.Events.Publish(Event{Action: a, ProjectID: projectID, Payload: m})
	b, _ := json.Marshal(m)
	s.publish(a, projectID, &ComputeMessage{ComputeID: LocalCompute, Event: b})
}

// claimProcessResources gives n, inside tx, what it lacks: a MAC offset
// (for the types that vary one byte of a fixed address) and one UDP port
// pair per port. A pair has two ports no node owns and no other program of
// this machine holds; stored pairs are checked again at each start, and
// replaced if a port was taken since or left the range.
func (s *Service) claimProcessResources(tx Tx, n *Node) error {
	if n.Properties.MACOffset == nil && n.Type.kind().macOffset {
		used := map[int]bool{}
		nodes, err := tx.Nodes(n.ProjectID)
		if err != nil {
			return err
		}
		for _, o := range nodes {
			if o.ID != n.ID && o.Properties.MACOffset != nil {
				used[*o.Properties.MACOffset] = true
			}
		}
		// The search starts at a place the node's id gives, so that VPCS
		// nodes of one lab on two computes (each numbering its own) rarely
		// share a MAC address.
		h := fnv.New32a()
		h.Write([]byte(n.ID))
		start := int(h.Sum32() % (maxMACOffset + 1))
		for i := 0; i <= maxMACOffset && n.Properties.MACOffset == nil; i++ {
			if m := (start + i) % (maxMACOffset + 1); !used[m] {
				n.Properties.MACOffset = ptr(m)
			}
		}
		if n.Properties.MACOffset == nil {
			return Errorf(ECONFLICT, "All %d MAC addresses of this project are in use; a project can run at most that many %s nodes", maxMACOffset+1, n.Type.Title())
		}
	}
	if claim := n.Type.kind().props.claim; claim != nil {
		if err := claim(s.claimEnv(tx, n.Type), n); err != nil {
			return err
		}
	}
	pairs := len(n.Ports())
	if n.Type.UsesVeths() || n.Type.kind().netio {
		pairs = 0 // its ports are veth pairs (VethName), or IOU's sockets (NetIO)
	}
	relay := n.Type.kind().relayUDP
	want := 2 * pairs
	if pairs > 0 && relay != 0 {
		want++
	}
	for _, p := range n.UDPPorts {
		if !s.c.UDPPorts.Contains(p) || !s.c.PortFree("udp", p) {
			// Another program took it since, or the range moved
			// (--udp-ports): the node would start with a dead port.
			n.UDPPorts = nil
			break
		}
	}
	if len(n.UDPPorts) != want {
		// The node's ports changed since (adapters), or it was given its
		// pairs before its relay port was claimed: all anew.
		n.UDPPorts = nil
		ports, err := s.claimUDPPorts(tx, pairs, relay)
		if err != nil {
			return err
		}
		n.UDPPorts = ports
	}
	return nil
}

// claimUDPPorts is the port allocation rule: it finds pairs pairs of
// adjacent UDP ports (local, then remote) that no node owns and no other
// program of this machine holds, and, when relay is not 0, the port at
// the first pair's local port + relay, which the process may bind too
// (VPCS's relay, decision 0066): the first pair is taken only where that
// port is free as well, and it is claimed last, so that no other node's
// end is ever there.
func (s *Service) claimUDPPorts(tx Tx, pairs, relay int) ([]int, error) {
	if pairs == 0 {
		return nil, nil
	}
	var got []int
	r := s.c.UDPPorts
	free := func(p int) (bool, error) {
		if !r.Contains(p) || slices.Contains(got, p) || (relay != 0 && len(got) > 0 && p == got[0]+relay) {
			return false, nil
		}
		return s.udpPortFree(tx, p)
	}
	for p := r.From; p+1 <= r.To; p += 2 {
		a, err := free(p)
		if err != nil {
			return nil, err
		}
		b, err := free(p + 1)
		if err != nil {
			return nil, err
		}
		c := true
		if len(got) == 0 && relay != 0 && a && b {
			if c, err = free(p + relay); err != nil {
				return nil, err
			}
		}
		if a && b && c {
			if got = append(got, p, p+1); len(got) == 2*pairs {
				if relay != 0 {
					got = append(got, got[0]+relay)
				}
				return got, nil
			}
		}
	}
	return nil, Errorf(ECONFLICT, "Not enough UDP ports are free in %d–%d (%d needed); delete nodes you no longer need", r.From, r.To, 2*pairs)
}

// UDPPairs is the UDP pair of each of n's ports, in the order of its
// ports array (Process.Ports): none before its first start.
func (n *Node) UDPPairs() []PortPair {
	pairs := make([]PortPair, len(n.UDPPorts)/2)
	for i := range pairs {
		pairs[i] = PortPair{Local: n.UDPPorts[2*i], Remote: n.UDPPorts[2*i+1]}
	}
	return pairs
}

// lockNode serialises the lifecycle calls of one node: a start and a stop
// of the same node never overlap.
func (s *Service) lockNode(nodeID string) (unlock func()) {
	m, _ := s.nodeLocks.LoadOrStore(nodeID, new(sync.Mutex))
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// ReconcileStatuses records as stopped every process-run node that a
// previous nodedesk left started or suspended (it ended without stopping
// them, e.g. it crashed): at start-up none of them runs.
func (s *Service) ReconcileStatuses(ctx context.Context) error {
	return s.update(ctx, func(tx Tx, emit emitFunc) error {
		active, err := tx.ActiveNodes()
		if err != nil {
			return err
		}
		changed := false
		for _, k := range active {
			n, err := tx.Node(k.ProjectID, k.NodeID)
			if err != nil || n == nil || s.runner(n.Type) == nil || n.Remote() {
				continue // a remote node runs on its compute
			}
			c := *n
			c.Status = Stopped
			emit(EventNodeUpdated, c.ProjectID, &c)
			if err := tx.PutNode(&c); err != nil {
				return err
			}
			changed = true
		}
		if !changed {
			return errUnchanged
		}
		return nil
	})
}

// StopProcesses stops every running process-run node and records it as
// stopped: what quitting nodedesk does.
func (s *Service) StopProcesses(ctx context.Context) error {
	var active []NodeKey
	if err := s.view(func(tx Tx) (err error) {
		active, err = tx.ActiveNodes()
		return err
	}); err != nil {
		return err
	}
	errs := make([]error, len(active))
	var wg sync.WaitGroup
	for i, k := range active { // all at once: each may wait for its guest to power off
		ref := NodeRef{ProjectID: k.ProjectID, NodeID: k.NodeID}
		if n, err := s.FindNode(ctx, ref); err == nil && n.Remote() {
			continue // its compute keeps running it
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.NodeAction(ctx, ref, Stop)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// capability is the first runner that can do what C says (an optional
// interface such as QEMUTools or DockerEngine); ok is false when none can.
func capability[C any](s *Service) (c C, ok bool) {
	for _, r := range s.c.Runners {
		if c, ok = r.(C); ok {
			return c, true
		}
	}
	return c, false
}

// runner is the Runner of type t's nodes; nil when nodedesk has none.
func (s *Service) runner(t NodeType) Runner {
	for _, r := range s.c.Runners {
		if r.Runs(t) {
			return r
		}
	}
	return nil
}

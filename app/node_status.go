package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// Action is a lifecycle request for a node.
type Action string

// The lifecycle actions of the GNS3 API.
const (
	Start   Action = "start"
	Stop    Action = "stop"
	Suspend Action = "suspend"
	Reload  Action = "reload"
)

// Actions lists the lifecycle actions.
var Actions = []Action{Start, Stop, Suspend, Reload}

// Status is the run state of a node.
type Status string

// The statuses of the spec.
const (
	Stopped   Status = "stopped"
	Started   Status = "started"
	Suspended Status = "suspended"
)

// Known reports whether s is one of the statuses of the spec.
func (s Status) Known() bool { return s == Stopped || s == Started || s == Suspended }

// step is what a node's process must do for a transition.
type step int

// The process steps.
const (
	stepNone    step = iota // the status alone changes (or nothing)
	stepStart               // start the process
	stepStop                // end it
	stepSuspend             // pause it
	stepResume              // continue it
	stepRestart             // end it and start it again
)

// transition is the one place status transitions are decided: the status
// action a takes a node of lifecycle l from, and the process step that
// takes it there.
//
// Always-running nodes end started whatever the action, with no step.
// Process-run nodes: start takes stopped -> started (start) and suspended
// -> started (resume); stop takes started or suspended -> stopped (stop);
// suspend takes started -> suspended (suspend); reload takes stopped ->
// started (start) and started or suspended -> started (restart). Any other
// pair leaves the status as it is, with no step.
func (l Lifecycle) transition(from Status, a Action) (Status, step) {
	if l != ProcessRun {
		return Started, stepNone
	}
	switch {
	case a == Start && from == Stopped, a == Reload && from == Stopped:
		return Started, stepStart
	case a == Start && from == Suspended:
		return Started, stepResume
	case a == Stop && from != Stopped:
		return Stopped, stepStop
	case a == Suspend && from == Started:
		return Suspended, stepSuspend
	case a == Reload:
		return Started, stepRestart
	}
	return from, stepNone
}

// notRun reports whether step st is one nodedesk does not take for a node
// of type t: any but a stop, for the emulators it stores but does not run.
func (t NodeType) notRun(st step) bool { return t.kind().stored && st != stepNone && st != stepStop }

// initialStatus is the status of a new node of lifecycle l.
func (l Lifecycle) initialStatus() Status {
	if l == ProcessRun {
		return Stopped
	}
	return Started
}

// Active reports whether n's process may be running: a process-run node
// that is not stopped. Its console type cannot change then, and nodedesk
// reconciles it at start-up.
func (n *Node) Active() bool { return Active(n.Type, n.Status) }

// Active reports whether a node of type t in status s is active (see
// Node.Active): what the store's index of active nodes holds.
func Active(t NodeType, s Status) bool { return t.Lifecycle() == ProcessRun && s != Stopped }

// NodeAction starts, stops, suspends or reloads one node and returns it
// with its new status. For a node a Runner handles (VPCS), the process is
// started or stopped first and the status records what happened; for the
// other types the status alone changes. Codes: EINVALID, ENOTFOUND,
// ECONFLICT (the process could not start: console port taken, simulator
// missing; or the node is of an emulator nodedesk stores but does not run,
// which can only stop).
func (s *Service) NodeAction(ctx context.Context, ref NodeRef, a Action) (*Node, error) {
	n, err := s.FindNode(ctx, ref)
	if err != nil {
		return nil, err
	}
	unlock := s.lockNode(n.ID)
	defer unlock()
	if n, err = s.FindNode(ctx, ref); err != nil { // as it is now we hold the lock
		return nil, err
	}
	if n.Remote() {
		return s.remoteNodeAction(ctx, n, a)
	}
	next, st := n.Type.Lifecycle().transition(n.Status, a)
	if n.Type.notRun(st) {
		return nil, Errorf(ECONFLICT, "nodedesk does not run %s nodes: %s is kept so that the project can go back to GNS3, but it cannot %s here", n.Type, n.Name, a)
	}
	if st == stepStart || st == stepRestart || st == stepResume {
		if err := s.openToRun(ctx, n.ProjectID); err != nil {
			return nil, err
		}
	}
	if st == stepSuspend && n.Type.kind().suspendIgnored {
		return n, nil // as GNS3's compute answers it: the node runs on
	}
	r := s.runner(n.Type)
	if r == nil || st == stepNone {
		return s.recordStatus(ctx, ref, next, nil)
	}
	switch st {
	case stepStart:
		return s.startProcess(ctx, r, ref)
	case stepRestart:
		if rl, ok := r.(Reloader); ok { // it reboots the node in place
			if err := rl.Reload(n.ID); err != nil {
				return nil, err
			}
			return s.recordStatus(ctx, ref, next, nil)
		}
		if err := r.Stop(n.ID); err != nil {
			return nil, err
		}
		if _, err := s.recordStatus(ctx, ref, Stopped, nil); err != nil {
			return nil, err
		}
		return s.startProcess(ctx, r, ref)
	case stepStop:
		err = r.Stop(n.ID)
	case stepSuspend:
		err = r.Suspend(n.ID)
	case stepResume:
		err = r.Resume(n.ID)
	}
	if err != nil {
		return nil, err
	}
	return s.recordStatus(ctx, ref, next, nil)
}

// openToRun opens a closed project before one of its nodes runs: only an
// open project's frames are carried (a closed project holds none of this
// machine's ports), so a node of a closed project would run unreachable.
func (s *Service) openToRun(ctx context.Context, projectID string) error {
	p, err := s.FindProjectByID(ctx, projectID)
	if err != nil || p.Status != ProjectClosed {
		return err
	}
	_, err = s.OpenProject(ctx, projectID)
	return err
}

// startProcess starts a stopped node's process (its resources claimed and
// stored first) and records it started with the command line it ran.
func (s *Service) startProcess(ctx context.Context, r Runner, ref NodeRef) (*Node, error) {
	var n *Node
	err := s.update(ctx, func(tx Tx, emit emitFunc) (err error) {
		if n, err = findNode(tx, ref); err != nil {
			return err
		}
		was, _ := json.Marshal(n)
		if err := s.claimProcessResources(tx, n); err != nil {
			return err
		}
		if is, _ := json.Marshal(n); bytes.Equal(was, is) {
			return errUnchanged // it had all it needs
		}
		return tx.PutNode(n) // nothing a client sees changed: no event
	})
	if err != nil {
		return nil, err
	}
	images, err := s.nodeImages(n)
	if err != nil {
		return nil, err
	}
	p := s.processOf(n, images)
	if p.StartBody, err = s.startBody(ctx, n.Type); err != nil {
		return nil, err
	}
	release, err := s.openEnds(n)
	if err != nil {
		return nil, err
	}
	defer release() // the ends its start took are the data plane's by then
	cmdline, err := r.Start(p)
	if pv, ok := r.(Provisioner); ok {
		s.keepProvisioned(ctx, ref, pv.Provisioned(n.ID)) // a start may make it again
	}
	if err != nil {
		return nil, s.endTaken(n, err)
	}
	s.watchBoot(r, ref) // before the record, so that its event says booting
	return s.recordStatus(ctx, ref, Started, &cmdline)
}

// recordStatus stores a node's status (and command line, if given) and
// publishes the change.
func (s *Service) recordStatus(ctx context.Context, ref NodeRef, st Status, commandLine *string) (*Node, error) {
	var n *Node
	err := s.update(ctx, func(tx Tx, emit emitFunc) (err error) {
		if n, err = findNode(tx, ref); err != nil {
			return err
		}
		if n.Status == st && (commandLine == nil || (n.CommandLine != nil && *n.CommandLine == *commandLine)) {
			return errUnchanged
		}
		c := *n
		c.Status = st
		if commandLine != nil {
			c.CommandLine = commandLine
		}
		n = &c
		emit(EventNodeUpdated, c.ProjectID, &c)
		return tx.PutNode(&c)
	})
	if err == nil && st == Stopped {
		s.clearBoot(ref.NodeID, nil) // its process is gone
	}
	return n, err
}

// ProjectAction applies a lifecycle action to every node of a project. All
// nodes are tried; the first error, if any, is returned, and the others are
// told on the project's stream. A Start of nodedesk's page or window
// paces the nodes that boot (pacesStart, startPace: node_boot.go): it
// answers once the first of them started, and starts the rest in the
// background as those boot. Nodes of the
// emulators nodedesk does not run are left out of anything but a stop, so
// that a project that holds one still starts. Codes: ENOTFOUND, and those
// of NodeAction.
func (s *Service) ProjectAction(ctx context.Context, projectID string, a Action) error {
	queue := s.startQueue(projectID, a) // a new action ends the last Start all's queue first
	nodes, err := s.FindNodes(ctx, projectID)
	if err != nil {
		return err
	}
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	slots := make(chan struct{}, projectActionWidth)
	boots := make(chan struct{}, startPace.width) // held from a start to its boot
	var skipped []string
	var paced []int // the nodes that boot, a few at a time
	act := func(i int, pace bool) {
		n := nodes[i]
		wg.Add(1)
		if pace {
			boots <- struct{}{}
		}
		slots <- struct{}{}
		go func() {
			_, errs[i] = s.NodeAction(ctx, NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}, a)
			<-slots
			wg.Done()
			if pace {
				s.awaitBoot(queue.ctx, n.ID) // its boot slot is the next one's once it has booted
				<-boots
			}
		}()
	}
	for i, n := range nodes {
		next, st := n.Type.Lifecycle().transition(n.Status, a)
		if n.Type.notRun(st) {
			skipped = append(skipped, n.Name) // the others still act: told below
			continue
		}
		if next == n.Status && st == stepNone {
			continue // nothing to do for this node
		}
		if _, boots := s.runner(n.Type).(BootWatcher); boots && st == stepStart && !n.Remote() && pacesStart(ctx, a) {
			paced = append(paced, i)
			continue
		}
		act(i, false)
	}
	// The first of the nodes that boot start with the others, and the
	// answer waits for them; the rest start in the background, each once
	// one before it has booted (or after the bound), until a new action
	// on the project ends the queue. Their errors are told.
	now := min(len(paced), startPace.width)
	for _, i := range paced[:now] {
		act(i, true)
	}
	if rest := paced[now:]; len(rest) > 0 {
		go func() {
			for _, i := range rest {
				select {
				case boots <- struct{}{}:
				case <-queue.ctx.Done():
					return
				}
				if !queue.begin() {
					return
				}
				n := nodes[i]
				go func() {
					defer func() { <-boots }()
					_, err := s.NodeAction(context.WithoutCancel(queue.ctx), NodeRef{ProjectID: n.ProjectID, NodeID: n.ID}, a)
					queue.starts.Done()
					if err != nil {
						s.tell(EventLogError, projectID, ErrorMessage(err))
						return
					}
					s.awaitBoot(queue.ctx, n.ID)
				}()
			}
		}()
	}
	wg.Wait()
	if len(skipped) > 0 {
		s.tell(EventLogWarning, projectID, fmt.Sprintf("nodedesk does not run these nodes' emulators, so they cannot %s here: %s", a, strings.Join(skipped, ", ")))
	}
	var first error
	for _, err := range errs {
		switch {
		case err == nil:
		case first == nil:
			first = err // the answer: the first node's, in the project's order
		default: // the others are told, not lost
			s.tell(EventLogError, projectID, ErrorMessage(err))
		}
	}
	return first
}

// projectActionWidth is how many nodes a project-wide action handles at
// once, as GNS3 does: guests boot side by side, and a slow one (an ACPI
// shutdown that waits) does not hold up the others.
const projectActionWidth = 3

// processOf is what a Runner is given of n, whose images are found.
func (s *Service) processOf(n *Node, images map[string]string) Process {
	p := Process{
		ProjectID: n.ProjectID, NodeID: n.ID, Name: n.Name, Dir: *s.NodeDirectory(n),
		Console: n.Console, ConsoleType: n.ConsoleType, StartupScript: runScript(n),
		Ports: n.UDPPairs(), PortList: n.Ports(), CustomAdapters: n.CustomAdapters, Properties: propertiesJSON(n), Images: images,
	}
	if n.Properties.MACOffset != nil {
		p.MACOffset = *n.Properties.MACOffset
	}
	if n.Type.UsesVeths() {
		for i := range n.Ports() {
			p.HostInterfaces = append(p.HostInterfaces, VethName(n.ID, i))
		}
	}
	p.Aux = n.Aux
	for _, f := range n.Type.kind().files {
		if v := f.get(&n.Properties); v != nil {
			if p.Files == nil {
				p.Files = map[string]string{}
			}
			p.Files[f.name] = *v
		}
	}
	return p
}

// nodeImages finds, in the image folders of n's type, the images n's
// properties name: their absolute paths by property key. An image that is
// missing is a conflict that names the node, the property and the image;
// one another machine named by its path, found here by its file name, is
// told on the project's notification stream.
func (s *Service) nodeImages(n *Node) (map[string]string, error) {
	keys := n.Type.ImageProperties()
	if len(keys) == 0 {
		return nil, nil
	}
	found := map[string]string{}
	for _, k := range keys {
		var name string
		if raw, ok := n.Properties.Extra[k]; !ok || json.Unmarshal(raw, &name) != nil || name == "" {
			continue
		}
		f, err := s.findImageFile(n.Type.kind().imageKind, name, true)
		if err != nil {
			return nil, &Error{Code: ErrorCode(err), Message: fmt.Sprintf("%s cannot start: its %s: %s", n.Name, k, ErrorMessage(err))}
		}
		if f.foreign {
			s.tell(EventLogWarning, n.ProjectID, n.Name+": "+f.foreignNote(n.Type.kind().imageKind, name))
		}
		found[k] = f.path
	}
	return found, nil
}

// NodeImage is an image a node's properties name, and whether its start
// would find it: Message says, when it is missing, what to do.
type NodeImage struct {
	Property string `json:"property"`
	Name     string `json:"name"`
	Found    bool   `json:"found"`
	Message  string `json:"message,omitempty"`
}

// NodeImages tells, before any start, which images node ref's properties
// name and whether they are there, looked for as a start looks for them
// (nodeImages), so that a node's panel can say an image is missing.
// Codes: ENOTFOUND.
func (s *Service) NodeImages(ctx context.Context, ref NodeRef) ([]NodeImage, error) {
	n, err := s.FindNode(ctx, ref)
	if err != nil {
		return nil, err
	}
	out := []NodeImage{}
	for _, k := range n.Type.ImageProperties() {
		var name string
		if raw, ok := n.Properties.Extra[k]; !ok || json.Unmarshal(raw, &name) != nil || name == "" {
			continue
		}
		im := NodeImage{Property: k, Name: name, Found: true}
		if _, err := s.findImageFile(n.Type.kind().imageKind, name, true); err != nil {
			im.Found, im.Message = false, fmt.Sprintf("%s cannot start: its %s: %s", n.Name, k, ErrorMessage(err))
		}
		out = append(out, im)
	}
	return out, nil
}

// propertiesJSON is n's properties object as GNS3 keys it, every default
// filled in (a node stored before a key existed lacks it), for a Runner.
func propertiesJSON(n *Node) map[string]json.RawMessage {
	view := n.PropertiesView()
	out := make(map[string]json.RawMessage, len(view))
	for k, v := range view {
		if b, err := json.Marshal(v); err == nil {
			out[k] = b
		}
	}
	return out
}

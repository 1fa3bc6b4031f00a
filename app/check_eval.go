package app

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// The verdict of each kind of check (decision 0070). A verdict is "error",
// not "fail", whenever the lab could not run the check (a node stopped, a
// host nodedesk cannot drive, no address known): a fail says the lab does
// not do what the check says.

// PingTimeout is how long a check's first ping waits for its reply; each
// try after waits twice as long as the one before it.
const PingTimeout = time.Second

// wirePoll is how often a wire check looks at what crossed its link.
const wirePoll = 200 * time.Millisecond

// captureSliceFrames is how many frames a wire check's capture keeps.
const captureSliceFrames = 50

// evidenceFrames is how many frames a wire check's evidence lists.
const evidenceFrames = 20

// checkEval evaluates the checks of one run.
type checkEval struct {
	s         *Service
	projectID string
	runID     string

	// The lint findings and the configs' addresses, read once a run
	// (findings); the wire map, read when needed (nil wm: the Service's).
	once  sync.Once
	lint  *LintReport
	addrs []HostAddress
	wm    func(ctx context.Context) (*WireMap, error)
}

// lab is the project as one check sees it: its nodes and links, read when
// the check begins.
type lab struct {
	nodes  []*Node
	byName map[string]*Node
	byID   map[string]*Node
	links  []*Link
}

func (e *checkEval) lab(ctx context.Context) (*lab, error) {
	ns, err := e.s.FindNodes(ctx, e.projectID)
	if err != nil {
		return nil, err
	}
	ls, err := e.s.FindLinks(ctx, e.projectID)
	if err != nil {
		return nil, err
	}
	l := &lab{nodes: ns, links: ls, byName: map[string]*Node{}, byID: map[string]*Node{}}
	for _, n := range ns {
		l.byName[n.Name], l.byID[n.ID] = n, n
	}
	return l, nil
}

// findings reads, once a run, what lint finds and the addresses the
// configs give.
func (e *checkEval) findings(ctx context.Context) {
	e.once.Do(func() {
		if r, err := e.s.Lint(ctx, e.projectID); err == nil {
			e.lint = r
		}
		if a, err := e.s.HostAddresses(ctx, e.projectID); err == nil {
			e.addrs = a
		}
	})
}

// wireMap is the project's wire map now (nil when unknown).
func (e *checkEval) wireMap(ctx context.Context) *WireMap {
	wm := e.wm
	if wm == nil {
		wm = func(ctx context.Context) (*WireMap, error) { return e.s.WireMap(ctx, e.projectID) }
	}
	m, err := wm(ctx)
	if err != nil {
		return nil
	}
	return m
}

func verdict(v, format string, args ...any) CheckResult {
	return CheckResult{Verdict: v, Message: fmt.Sprintf(format, args...)}
}

// eval is the verdict of one check.
func (e *checkEval) eval(ctx context.Context, c Check) CheckResult {
	l, err := e.lab(ctx)
	if err != nil {
		return verdict(VerdictError, "The project could not be read: %s", ErrorMessage(err))
	}
	e.findings(ctx)
	switch c.Kind {
	case CheckReach:
		return e.reach(ctx, l, c)
	case CheckMatrix:
		return e.matrix(ctx, l, c)
	case CheckConsole:
		return e.console(ctx, l, c)
	case CheckWire:
		return e.wire(ctx, l, c)
	}
	return verdict(VerdictError, "%q is not a kind of check this nodedesk runs; the kinds are reach, matrix, console and wire", c.Kind)
}

// driver is the HostDriver of a running node, or why there is none.
func (e *checkEval) driver(l *lab, name string) (*Node, HostDriver, string) {
	n := l.byName[name]
	if n == nil {
		return nil, nil, fmt.Sprintf("The project has no node named %s any more: rename the node back, or change the check", name)
	}
	switch n.Status {
	case Started:
	case Suspended:
		return n, nil, fmt.Sprintf("%s is suspended: resume it, then run the checks again", n.Name)
	default:
		return n, nil, fmt.Sprintf("%s is stopped: start it, then run the checks again", n.Name)
	}
	d, ok := e.s.runner(n.Type).(HostDriver)
	if !ok || n.Remote() {
		return n, nil, fmt.Sprintf("nodedesk cannot drive %s's console (a %s node) to ping or type on it; check from a host whose console nodedesk drives", n.Name, n.Type)
	}
	return n, d, ""
}

// addressOf is the IPv4 address a node is pinged at: the first its
// configuration gives, else the first the wire showed it use.
func (e *checkEval) addressOf(ctx context.Context, n *Node) string {
	for _, a := range e.addrs {
		if a.NodeID == n.ID {
			if ip, ok := addressOnly(a.Address); ok {
				return ip
			}
		}
	}
	if m := e.wireMap(ctx); m != nil {
		for _, lk := range m.Links {
			for _, h := range lk.Hosts {
				if h.NodeID == n.ID {
					for _, a := range h.IPv4 {
						if ip, ok := addressOnly(a); ok {
							return ip
						}
					}
				}
			}
		}
	}
	return ""
}

// target resolves a reach check's to: a node's address, or an address.
func (e *checkEval) target(ctx context.Context, l *lab, to string) (addr, label, nodeID, why string) {
	if n := l.byName[to]; n != nil {
		addr = e.addressOf(ctx, n)
		if addr == "" {
			return "", to, n.ID, fmt.Sprintf("nodedesk knows no address of %s: its configuration names none and the wire showed none. Give %s an address, or start it and let it talk, or name the address in the check", to, to)
		}
		return addr, fmt.Sprintf("%s (%s)", to, addr), n.ID, ""
	}
	if isIPv4(to) {
		return to, to, "", ""
	}
	return "", to, "", fmt.Sprintf("%s is neither a node of the project nor an IPv4 address: change the check", to)
}

// replied reports whether a ping got an answer.
func replied(r PingResult) bool { return r.Received > 0 }

// pingTries is how many pings a reach or matrix cell sends before it says
// no reply: a first echo may be lost while ARP resolves, and on a machine
// that is busy (a 20-host matrix on two cores beside a browser) a reply
// may come after a second. Each try waits twice as long as the one before
// (1, 2, 4 s), so a slow lab is not called broken and a broken one is
// known within about 7 s a cell.
const pingTries = 3

// ping pings addr from node until a reply comes, at most pingTries times,
// and sums what the tries gave.
func ping(ctx context.Context, drv HostDriver, nodeID, addr string) (PingResult, error) {
	var sum PingResult
	for try := range pingTries {
		pr, err := drv.Ping(ctx, nodeID, addr, PingTimeout<<try)
		if err != nil {
			return sum, err
		}
		sum.Sent += pr.Sent
		sum.Received += pr.Received
		sum.Lines = append(sum.Lines, pr.Lines...)
		if replied(pr) || ctx.Err() != nil {
			break
		}
	}
	return sum, nil
}

func (e *checkEval) reach(ctx context.Context, l *lab, c Check) CheckResult {
	from, drv, why := e.driver(l, c.From)
	if drv == nil {
		return verdict(VerdictError, "%s", why)
	}
	addr, label, toID, why := e.target(ctx, l, c.To)
	if addr == "" {
		return verdict(VerdictError, "%s", why)
	}
	pr, err := ping(ctx, drv, from.ID, addr)
	if err != nil {
		return verdict(VerdictError, "The ping from %s to %s did not run: %s. Open %s's console to see why", from.Name, label, ErrorMessage(err), from.Name)
	}
	res := CheckResult{Evidence: []Evidence{{Kind: EvidenceConsole, NodeID: from.ID, Lines: pr.Lines}}}
	got := replied(pr)
	wantReply := c.Expect != "no_reply"
	switch {
	case got && wantReply:
		res.Verdict, res.Message = VerdictPass, fmt.Sprintf("%s reached %s: %d of %d replies", from.Name, label, pr.Received, pr.Sent)
		return res
	case !got && !wantReply:
		res.Verdict, res.Message = VerdictPass, fmt.Sprintf("%s got no reply from %s, as the check expects (%d requests)", from.Name, label, pr.Sent)
		return res
	case got:
		res.Verdict, res.Message = VerdictFail, fmt.Sprintf("%s reached %s (%d of %d replies), though the check says it must not: look at what should keep them apart (a VLAN, a filter, a route)", from.Name, label, pr.Received, pr.Sent)
	default:
		res.Verdict, res.Message = VerdictFail, fmt.Sprintf("%s got no reply from %s (0 of %d): look at the addresses, masks and gateways of both hosts, and at the links and VLANs between them", from.Name, label, pr.Sent)
	}
	ev, reasons := e.explain(ctx, l, from.ID, toID)
	res.Evidence = append(res.Evidence, ev...)
	if len(reasons) > 0 {
		res.Message += ". What nodedesk found: " + strings.Join(reasons, "; ")
	}
	return res
}

// explain is the lint findings and wire faults touching the given nodes
// (or a link of theirs), as evidence and as sentences.
func (e *checkEval) explain(ctx context.Context, l *lab, nodeIDs ...string) ([]Evidence, []string) {
	nodes, links := map[string]bool{}, map[string]bool{}
	for _, id := range nodeIDs {
		if id != "" {
			nodes[id] = true
		}
	}
	for _, lk := range l.links {
		for _, end := range lk.Nodes {
			if nodes[end.NodeID] {
				links[lk.ID] = true
			}
		}
	}
	touches := func(ns, ls []string) bool {
		for _, n := range ns {
			if nodes[n] {
				return true
			}
		}
		for _, k := range ls {
			if links[k] {
				return true
			}
		}
		return false
	}
	var ev []Evidence
	var why []string
	if e.lint != nil {
		for _, f := range e.lint.Findings {
			if touches(f.NodeIDs, f.LinkIDs) {
				f := f
				ev = append(ev, Evidence{Kind: EvidenceLint, Finding: &f})
				why = append(why, f.Message)
			}
		}
	}
	if m := e.wireMap(ctx); m != nil {
		for _, f := range m.Faults {
			if touches(f.NodeIDs, f.LinkIDs) {
				f := f
				ev = append(ev, Evidence{Kind: EvidenceWire, Fault: &f})
				why = append(why, f.Message)
			}
		}
	}
	return ev, why
}

func (e *checkEval) console(ctx context.Context, l *lab, c Check) CheckResult {
	n, drv, why := e.driver(l, c.Node)
	if drv == nil {
		return verdict(VerdictError, "%s", why)
	}
	re, err := regexp.Compile(c.Expect)
	if err != nil {
		return verdict(VerdictError, "The pattern %q is not valid RE2: fix the check", c.Expect)
	}
	within, err := checkWithin(c)
	if err != nil {
		return verdict(VerdictError, "%s", ErrorMessage(err))
	}
	lines, matched, err := drv.Converse(ctx, n.ID, c.Send, re, within)
	if err != nil {
		return verdict(VerdictError, "nodedesk could not talk on %s's console: %s. Open its console to see why", n.Name, ErrorMessage(err))
	}
	res := CheckResult{Evidence: []Evidence{{Kind: EvidenceConsole, NodeID: n.ID, Lines: lines}}}
	if matched {
		res.Verdict, res.Message = VerdictPass, fmt.Sprintf("%s's console showed /%s/", n.Name, c.Expect)
	} else {
		res.Verdict, res.Message = VerdictFail, fmt.Sprintf("%s's console did not show /%s/ within %s: read its lines below, and the node's configuration", n.Name, c.Expect, within)
	}
	return res
}

// linkAt is the link at a node's port.
func linkAt(l *lab, n *Node, p Port) *Link {
	for _, lk := range l.links {
		for _, end := range lk.Nodes {
			if end.NodeID == n.ID && end.AdapterNumber == p.AdapterNumber && end.PortNumber == p.PortNumber {
				return lk
			}
		}
	}
	return nil
}

// seenKind is what crossed a link of the kind key, and its recent frames.
func (e *checkEval) seenKind(linkID, key string) (KindSeen, []SeenFrame) {
	for _, ws := range e.s.wireWatch.WireSeen(e.projectID) {
		if ws.LinkID != linkID {
			continue
		}
		var fr []SeenFrame
		for _, f := range ws.Recent {
			if frameOfKey(f, key) {
				fr = append(fr, f)
			}
		}
		if len(fr) > evidenceFrames {
			fr = fr[len(fr)-evidenceFrames:]
		}
		return ws.Kinds[key], fr
	}
	return KindSeen{}, nil
}

// frameOfKey reports whether a kept frame is of a wire check's frames:
// its kind, any frame for "any", a tagged one for "vlan:N".
func frameOfKey(f SeenFrame, key string) bool {
	switch {
	case key == string(FramesAny):
		return true
	case strings.HasPrefix(key, "vlan:"):
		return f.Kind == FramesTagged
	}
	return string(f.Kind) == key
}

func (e *checkEval) wire(ctx context.Context, l *lab, c Check) CheckResult {
	if c.At == nil {
		return verdict(VerdictError, "The check names no port: give it at")
	}
	n := l.byName[c.At.Node]
	if n == nil {
		return verdict(VerdictError, "The project has no node named %s any more: rename the node back, or change the check", c.At.Node)
	}
	p, ok := portNamed(n, c.At.Port)
	if !ok {
		return verdict(VerdictError, "%s has no port named %s any more: its ports are %s; change the check", n.Name, c.At.Port, portNames(n))
	}
	lk := linkAt(l, n, p)
	if lk == nil {
		return verdict(VerdictError, "%s's %s is not linked, so nothing crosses it: link it, or change the check", n.Name, p.Name)
	}
	if e.s.wireWatch == nil {
		return verdict(VerdictError, "nodedesk sees no frames here: its data plane does not watch the links. Run the check in a nodedesk that carries the lab")
	}
	within, err := checkWithin(c)
	if err != nil {
		return verdict(VerdictError, "%s", ErrorMessage(err))
	}
	never := c.Expect == "never"
	start := time.Now()
	at := fmt.Sprintf("the link at %s %s", n.Name, p.Name)
	base, _ := e.seenKind(lk.ID, c.Frames)
	// Hellos come every few seconds: frames seen within the window before
	// the check began count as well as those after.
	earlier := base.Count > 0 && !base.Last.IsZero() && start.Sub(base.Last) <= within
	found := earlier
	t := time.NewTicker(wirePoll)
	defer t.Stop()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
watch:
	for !found {
		select {
		case <-ctx.Done():
			return verdict(VerdictError, "The run was cut short before %s could be watched for %s", at, within)
		case <-deadline.C:
			break watch
		case <-t.C:
			now, _ := e.seenKind(lk.ID, c.Frames)
			found = now.Count > base.Count
		}
	}
	seen, frames := e.seenKind(lk.ID, c.Frames)
	res := CheckResult{}
	ev := Evidence{Kind: EvidenceFrames, LinkID: lk.ID, Frames: frames}
	if found {
		ev.Capture = e.capture(lk.ID, c)
	}
	res.Evidence = []Evidence{ev}
	switch {
	case found && !never:
		res.Verdict, res.Message = VerdictPass, fmt.Sprintf("%s frames crossed %s (%d seen since the link began carrying)", c.Frames, at, seen.Count)
	case !found && never:
		res.Verdict, res.Message = VerdictPass, fmt.Sprintf("No %s frame crossed %s in %s, as the check expects", c.Frames, at, within)
	case found:
		res.Verdict, res.Message = VerdictFail, fmt.Sprintf("%s frames crossed %s, though the check says none may: the frames below show who sent them", c.Frames, at)
	default:
		res.Verdict, res.Message = VerdictFail, fmt.Sprintf("No %s frame crossed %s in %s: look at whether the nodes on that link send them (their configuration, a shut interface, a VLAN) and whether the link is suspended", c.Frames, at, within)
	}
	if res.Verdict == VerdictFail {
		var ids []string
		for _, end := range lk.Nodes {
			ids = append(ids, end.NodeID)
		}
		more, reasons := e.explain(context.Background(), l, ids...)
		res.Evidence = append(res.Evidence, more...)
		if len(reasons) > 0 {
			res.Message += ". What nodedesk found: " + strings.Join(reasons, "; ")
		}
	}
	return res
}

// capture writes the newest frames of a wire check's kind on a link as a
// pcap under project-files/captures, and returns its path in the project
// folder ("" when there is none or it could not be written).
func (e *checkEval) capture(linkID string, c Check) string {
	kind := FrameKind(c.Frames)
	if strings.HasPrefix(c.Frames, "vlan:") {
		kind = FramesTagged
	}
	b, count := e.s.wireWatch.CaptureSlice(linkID, kind, captureSliceFrames)
	if count == 0 || len(b) == 0 {
		return ""
	}
	rel := fmt.Sprintf("%s/captures/check-%s-%s.pcap", projectFilesDir, e.runID, c.ID)
	f := folderFile{owner: "project", folder: projectFolderName, dir: e.s.ProjectDir(e.projectID), path: rel, name: rel}
	if err := f.write(b); err != nil {
		e.s.c.Logger.Warn("a check's capture could not be written", "path", rel, "err", err)
		return ""
	}
	return rel
}

package app

import (
	"context"
	"regexp"
	"time"
)

// "Check my lab" (decision 0070): a lab says whether it works. Its checks
// live in a file of the project folder (CheckFile); a run drives pings and
// console commands on the hosts nodedesk runs (HostDriver, asked of the
// runners) and reads what the data plane saw cross each link (WireWatch);
// lint finds, from the project alone, what will not work (lint.go); the
// wire map says which addresses live on which link and what is wrong on
// the wire (wiremap.go). This file holds the shared vocabulary and the
// ports; the rules live in check_*.go, lint*.go and wiremap*.go.

// ChecksFileName is the checks file of a project, in its folder beside the
// .gns3 file: an ordinary project file, so export, import, snapshots and
// GNS3 keep it byte for byte.
const ChecksFileName = "checks.json"

// ChecksVersion is the schema version of the checks files nodedesk writes;
// it reads every version up to it and refuses newer ones.
const ChecksVersion = 1

// Check kinds.
const (
	CheckReach   = "reach"   // from a host, an address answers ping (or must not)
	CheckMatrix  = "matrix"  // every host reaches every other host
	CheckConsole = "console" // a command on a console, a pattern within a time
	CheckWire    = "wire"    // frames of a kind crossed a link (or never did)
)

// Verdicts of a check.
const (
	VerdictRunning = "running" // not decided yet
	VerdictPass    = "pass"
	VerdictFail    = "fail"  // the lab does not do what the check says
	VerdictError   = "error" // the check could not run: a node stopped, no address known
)

// CheckFile is a project's checks file.
type CheckFile struct {
	Version int     `json:"version"`
	Checks  []Check `json:"checks"`
}

// Check is one check of a CheckFile. Nodes are named by their names (the
// file is written by people); Kind says which other fields apply.
type Check struct {
	ID          string `json:"id"`
	Description string `json:"description,omitempty"`
	Kind        string `json:"kind"`
	// reach: From pings To (a node's name or an IPv4 address); Expect
	// "reply" (the default) or "no_reply".
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// matrix: Hosts (node names; none: every end host of the lab with a
	// known address) each ping every other; Expect as reach.
	Hosts []string `json:"hosts,omitempty"`
	// console: Send (may be empty: only watch) on Node's console, then
	// Expect (an RE2 pattern) within Within.
	Node string `json:"node,omitempty"`
	Send string `json:"send,omitempty"`
	// Expect: reach and matrix "reply" | "no_reply"; console a pattern;
	// wire "seen" | "never".
	Expect string `json:"expect,omitempty"`
	// wire: frames of kind Frames (a FrameKind, or "vlan:N") cross the
	// link at At within Within ("seen"), or none does ("never").
	At     *NamedPort `json:"at,omitempty"`
	Frames string     `json:"frames,omitempty"`
	// Within bounds a console or wire check, as a Go duration ("10s");
	// empty: 10s.
	Within string `json:"within,omitempty"`
}

// NamedPort names one port of one node by their names, as a user reads them
// ("SW1", "Ethernet0").
type NamedPort struct {
	Node string `json:"node"`
	Port string `json:"port"`
}

// CheckRunRequest is what a run checks: the checks of the file with these
// ids (none: all of them), or, with Connectivity, the lab's learned hosts
// each pinging every other, with no checks file needed.
type CheckRunRequest struct {
	Checks       []string `json:"checks,omitempty"`
	Connectivity bool     `json:"connectivity,omitempty"`
}

// Run states.
const (
	RunRunning  = "running"
	RunFinished = "finished"
)

// CheckRun is one run of a project's checks, as it goes and once done.
type CheckRun struct {
	RunID      string        `json:"run_id"`
	ProjectID  string        `json:"project_id"`
	Status     string        `json:"status"` // RunRunning, RunFinished
	StartedAt  time.Time     `json:"started_at"`
	FinishedAt *time.Time    `json:"finished_at"`
	Passed     int           `json:"passed"`
	Failed     int           `json:"failed"`
	Errors     int           `json:"errors"`
	Results    []CheckResult `json:"results"`
}

// CheckResult is the verdict of one check and the evidence for it.
type CheckResult struct {
	CheckID string `json:"check_id"`
	Kind    string `json:"kind"`
	// Title says what was checked ("PC1 reaches PC2"), Message what was
	// found and, for a failure or an error, what to look at or do.
	Title      string     `json:"title"`
	Verdict    string     `json:"verdict"`
	Message    string     `json:"message"`
	DurationMS int64      `json:"duration_ms"`
	Evidence   []Evidence `json:"evidence"`
	Matrix     *Matrix    `json:"matrix"` // matrix and connectivity only
}

// Evidence kinds.
const (
	EvidenceConsole = "console" // lines of a console
	EvidenceFrames  = "frames"  // frames seen on a link
	EvidenceLint    = "lint"    // a lint finding
	EvidenceWire    = "wire"    // a wire map fault
)

// Evidence is one piece of what a verdict rests on.
type Evidence struct {
	Kind   string      `json:"kind"`
	NodeID string      `json:"node_id,omitempty"`
	LinkID string      `json:"link_id,omitempty"`
	Lines  []string    `json:"lines,omitempty"`  // console
	Frames []SeenFrame `json:"frames,omitempty"` // frames
	// Capture is the project file (a path relative to the project
	// folder, under project-files/captures) holding the frames as pcap.
	Capture string       `json:"capture,omitempty"`
	Finding *LintFinding `json:"finding,omitempty"` // lint
	Fault   *WireFault   `json:"fault,omitempty"`   // wire
}

// Matrix is the verdicts of every ordered pair of hosts.
type Matrix struct {
	Hosts []MatrixHost `json:"hosts"`
	// Cells[i][j] is the verdict of Hosts[i] pinging Hosts[j]; "" on the
	// diagonal.
	Cells [][]string `json:"cells"`
	// Why explains the failing cells from lint and wire findings.
	Why []MatrixWhy `json:"why"`
}

// MatrixHost is a host of a matrix and the address it is pinged at.
type MatrixHost struct {
	NodeID  string `json:"node_id"`
	Name    string `json:"name"`
	Address string `json:"address"`
}

// MatrixWhy explains one failing cell.
type MatrixWhy struct {
	From   int    `json:"from"`
	To     int    `json:"to"`
	Reason string `json:"reason"`
}

// HostAddress is an IPv4 address a node holds on one of its ports, as its
// configuration says (Source "config") or as the wire showed ("wire").
type HostAddress struct {
	NodeID        string `json:"node_id"`
	Name          string `json:"name"`
	AdapterNumber int    `json:"adapter_number"`
	PortNumber    int    `json:"port_number"`
	Address       string `json:"address"` // "10.0.0.1/24" ("/32" when the mask is unknown)
	Gateway       string `json:"gateway,omitempty"`
	Source        string `json:"source"`
	// EndHost says the node is an end host (VPCS, a container, a VM):
	// one a connectivity matrix pings from and to.
	EndHost bool `json:"end_host"`
	// Shut says the configuration shuts the interface down: the address
	// is named there, but nothing crosses the port.
	Shut bool `json:"shut,omitempty"`
}

// LintReport is what lint found in a project.
type LintReport struct {
	Findings []LintFinding `json:"findings"`
}

// Lint severities.
const (
	SeverityError   = "error"   // the lab cannot work as built
	SeverityWarning = "warning" // it may not work
)

// LintFinding is one thing lint found: Code names the rule
// ("duplicate_address", "subnet_mismatch", "vlan_not_on_trunk",
// "dlci_asymmetric", "missing_port", ...), Message says it in plain words
// with what to do, and the nodes and links it is about get the badge.
type LintFinding struct {
	Code     string   `json:"code"`
	Severity string   `json:"severity"`
	Message  string   `json:"message"`
	NodeIDs  []string `json:"node_ids"`
	LinkIDs  []string `json:"link_ids"`
}

// FrameKind is a kind of frame the data plane tells apart on a wire.
type FrameKind string

// The frame kinds.
const (
	FramesAny    FrameKind = "any"
	FramesARP    FrameKind = "arp"
	FramesIPv4   FrameKind = "ipv4"
	FramesICMP   FrameKind = "icmp"
	FramesIPv6   FrameKind = "ipv6"
	FramesOSPF   FrameKind = "ospf"
	FramesSTP    FrameKind = "stp"
	FramesCDP    FrameKind = "cdp"
	FramesLLDP   FrameKind = "lldp"
	FramesDHCP   FrameKind = "dhcp"
	FramesLMI    FrameKind = "lmi"    // Frame Relay LMI
	FramesTagged FrameKind = "tagged" // 802.1Q; "vlan:N" names one VLAN
)

// WireEnd is one end of a link: a port of a node.
type WireEnd struct {
	NodeID        string `json:"node_id"`
	AdapterNumber int    `json:"adapter_number"`
	PortNumber    int    `json:"port_number"`
}

// SeenFrame is one frame the data plane kept as evidence: when, the end
// it came from, its kind and a one-line summary ("ARP who-has 10.0.0.2
// tell 10.0.0.1").
type SeenFrame struct {
	Time    time.Time `json:"time"`
	From    WireEnd   `json:"from"`
	Kind    FrameKind `json:"kind"`
	Summary string    `json:"summary"`
}

// KindSeen counts the frames of one kind (or "vlan:N") on a wire.
type KindSeen struct {
	Count uint64    `json:"count"`
	Last  time.Time `json:"last"`
}

// MACSeen is a source MAC seen on a wire: the end its frames came from and
// the IPv4 addresses it claimed (ARP sender, IPv4 source of ARP-resolved
// traffic).
type MACSeen struct {
	MAC  string    `json:"mac"`
	From WireEnd   `json:"from"`
	IPv4 []string  `json:"ipv4"`
	Last time.Time `json:"last"`
}

// ARPAsk is an address asked for by ARP on a wire, and whether any reply
// was seen.
type ARPAsk struct {
	AskerMAC  string    `json:"asker_mac"`
	AskerIPv4 string    `json:"asker_ipv4"`
	Target    string    `json:"target"`
	Asks      int       `json:"asks"`
	Answered  bool      `json:"answered"`
	Last      time.Time `json:"last"`
}

// TagSeen is an 802.1Q-tagged frame that arrived at a port.
type TagSeen struct {
	At    WireEnd   `json:"at"`
	VLAN  int       `json:"vlan"`
	Count uint64    `json:"count"`
	Last  time.Time `json:"last"`
}

// WireSeen is what the data plane saw cross one link since it began
// carrying it (bounded: the newest entries are kept).
type WireSeen struct {
	LinkID string              `json:"link_id"`
	Since  time.Time           `json:"since"`
	Kinds  map[string]KindSeen `json:"kinds"` // by FrameKind or "vlan:N"
	MACs   []MACSeen           `json:"macs"`
	Asks   []ARPAsk            `json:"asks"`
	Tags   []TagSeen           `json:"tags"`
	Recent []SeenFrame         `json:"recent"`
}

// WireWatch is the data plane's record of what crossed each link of the
// open projects. The data plane implements it (UseWireWatch).
type WireWatch interface {
	// WireSeen returns what crossed each link of a project.
	WireSeen(projectID string) []WireSeen
	// CaptureSlice returns, as a pcap file, the newest frames (at most
	// max) of kind seen on a link, and how many there are.
	CaptureSlice(linkID string, kind FrameKind, max int) ([]byte, int)
}

// Wire fault codes.
const (
	FaultDuplicateIP    = "duplicate_ip"     // two MACs claim one address
	FaultGatewaySilent  = "gateway_silent"   // a host's gateway never answers ARP
	FaultTaggedOnAccess = "tagged_on_access" // a VLAN tag arrives on an access port
)

// WireFault is something wrong the wire shows.
type WireFault struct {
	Code    string   `json:"code"`
	Message string   `json:"message"`
	LinkIDs []string `json:"link_ids"`
	NodeIDs []string `json:"node_ids"`
	Address string   `json:"address,omitempty"`
	MACs    []string `json:"macs,omitempty"`
}

// WireMap is, per link of a project, the addresses that live there and
// what crossed it, and the faults the wire shows.
type WireMap struct {
	ProjectID string      `json:"project_id"`
	Links     []WireLink  `json:"links"`
	Faults    []WireFault `json:"faults"`
}

// WireLink is what the wire map knows of one link.
type WireLink struct {
	LinkID string              `json:"link_id"`
	Since  *time.Time          `json:"since"` // nil: nothing carried yet
	Hosts  []WireHost          `json:"hosts"`
	Kinds  map[string]KindSeen `json:"kinds"`
}

// WireHost is a MAC seen on a link, its addresses and the node behind it
// when known.
type WireHost struct {
	MAC    string   `json:"mac"`
	IPv4   []string `json:"ipv4"`
	NodeID string   `json:"node_id,omitempty"`
}

// HostDriver is a Runner that acts on its running nodes as a user at their
// console would, never changing their configuration: it pings from them
// and talks on their consoles, for the checks.
type HostDriver interface {
	// Ping sends echo requests from node to addr (an IPv4 address) and
	// says how many came back, with the lines of output as evidence. It
	// returns within about timeout per request.
	Ping(ctx context.Context, nodeID, addr string, timeout time.Duration) (PingResult, error)
	// Converse sends send (nothing when empty) as a line on the node's
	// console, then reads until the output matches expect or within
	// passes; it returns the lines read and whether they matched.
	Converse(ctx context.Context, nodeID, send string, expect *regexp.Regexp, within time.Duration) (lines []string, matched bool, err error)
}

// PingResult is what a ping from a host gave.
type PingResult struct {
	Sent, Received int
	Lines          []string
}

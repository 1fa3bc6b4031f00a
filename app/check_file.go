package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A project's checks file (decision 0070): checks.json in the project's
// folder, written as sent once every check is valid, atomically.

// DefaultCheckWithin is how long a console or wire check waits when its
// file gives no within.
const DefaultCheckWithin = 10 * time.Second

// MaxCheckWithin bounds the within of a console or wire check.
const MaxCheckWithin = 5 * time.Minute

// maxChecksFileBytes bounds a checks file.
const maxChecksFileBytes = 1 << 20

// checkIDPattern is what a check's id may be (as openapi.json says).
var checkIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// Checks returns a project's checks file; an empty one of ChecksVersion
// when it has none. Codes: ENOTFOUND, EINVALID (a file nodedesk cannot
// read, such as one written by a newer nodedesk or edited by hand).
func (s *Service) Checks(ctx context.Context, projectID string) (*CheckFile, error) {
	p, err := s.FindProjectByID(ctx, projectID)
	if err != nil {
		return nil, err
	}
	raw, err := s.readChecksFile(p)
	if err != nil || raw == nil {
		return &CheckFile{Version: ChecksVersion, Checks: []Check{}}, err
	}
	f, err := parseChecks(raw)
	if err != nil {
		return nil, Invalid("checks", "%s of project %s cannot be read: %s. Fix the file, or replace it through PUT /v2/projects/%s/checks", ChecksFileName, p.Name, ErrorMessage(err), p.ID)
	}
	return f, nil
}

// PutChecks validates raw as a checks file and writes it, as sent, to
// the project's folder. Codes: ENOTFOUND, EINVALID.
func (s *Service) PutChecks(ctx context.Context, projectID string, raw []byte) (*CheckFile, error) {
	p, err := s.FindProjectByID(ctx, projectID)
	if err != nil {
		return nil, err
	}
	if len(raw) > maxChecksFileBytes {
		return nil, Invalid("checks", "A checks file can have at most %d bytes", maxChecksFileBytes)
	}
	f, err := parseChecks(raw)
	if err != nil {
		return nil, err
	}
	nodes, err := s.FindNodes(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	if err := validateChecks(f, p.Name, nodes); err != nil {
		return nil, err
	}
	if err := s.checksFile(p).write(raw); err != nil {
		return nil, Errorf(EINTERNAL, "%s of project %s could not be written: %v; check the disk and the permissions of %s", ChecksFileName, p.Name, err, s.ProjectDir(p.ID))
	}
	return f, nil
}

// checksFile is p's checks file in its folder.
func (s *Service) checksFile(p *Project) folderFile {
	return folderFile{owner: "project " + p.Name, folder: projectFolderName, dir: s.ProjectDir(p.ID), path: ChecksFileName, name: ChecksFileName}
}

// readChecksFile returns the bytes of p's checks file, nil when it has none.
func (s *Service) readChecksFile(p *Project) ([]byte, error) {
	b, err := s.checksFile(p).read()
	if ErrorCode(err) == ENOTFOUND {
		return nil, nil
	}
	return b, err
}

// parseChecks decodes a checks file strictly: no unknown field, no
// trailing data, a version this nodedesk reads. It says nothing of the
// checks themselves (validateChecks does).
func parseChecks(raw []byte) (*CheckFile, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var f CheckFile
	if err := dec.Decode(&f); err != nil {
		return nil, Invalid("checks", "The checks file is not valid: %s. It is a JSON object such as {\"version\": 1, \"checks\": [...]}", strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, Invalid("checks", "The checks file has more after its JSON object; send one object")
	}
	switch {
	case f.Version < 1:
		return nil, Invalid("version", "The checks file needs its version (1): add \"version\": %d", ChecksVersion)
	case f.Version > ChecksVersion:
		return nil, Invalid("version", "The checks file is version %d, and this nodedesk reads versions up to %d: update nodedesk to use it", f.Version, ChecksVersion)
	}
	if f.Checks == nil {
		f.Checks = []Check{}
	}
	return &f, nil
}

// checkInvalid is a check's invalid field, named in the message.
func checkInvalid(c Check, field, format string, args ...any) error {
	id := c.ID
	if id == "" {
		id = "(no id)"
	}
	return Invalid(field, "Check %q, field %s: %s", id, field, fmt.Sprintf(format, args...))
}

// validateChecks checks every check of f against the project's nodes (by
// name): the first rule broken is the answer.
func validateChecks(f *CheckFile, project string, nodes []*Node) error {
	byName := map[string]*Node{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	node := func(c Check, field, name string) (*Node, error) {
		if name == "" {
			return nil, checkInvalid(c, field, "a %s check needs it: the name of a node of %s", c.Kind, project)
		}
		n := byName[name]
		if n == nil {
			return nil, checkInvalid(c, field, "project %s has no node named %q; name one of its nodes", project, name)
		}
		return n, nil
	}
	seen := map[string]bool{}
	for i, c := range f.Checks {
		switch {
		case c.ID == "":
			return Invalid("id", "Check %d of the file has no id: give it one (letters, digits, _ . -)", i+1)
		case !checkIDPattern.MatchString(c.ID):
			return checkInvalid(c, "id", "an id starts with a letter or digit and has at most 64 letters, digits, _ . or -")
		case seen[c.ID]:
			return checkInvalid(c, "id", "two checks have this id; give each its own")
		}
		seen[c.ID] = true
		if err := unusedFields(c); err != nil {
			return err
		}
		switch c.Kind {
		case CheckReach:
			if _, err := node(c, "from", c.From); err != nil {
				return err
			}
			if c.To == "" {
				return checkInvalid(c, "to", "a reach check needs it: a node's name or an IPv4 address")
			}
			if byName[c.To] == nil && !isIPv4(c.To) {
				return checkInvalid(c, "to", "%q is neither a node of %s nor an IPv4 address", c.To, project)
			}
			if err := replyExpect(c); err != nil {
				return err
			}
		case CheckMatrix:
			named := map[string]bool{}
			for _, h := range c.Hosts {
				if _, err := node(c, "hosts", h); err != nil {
					return err
				}
				if named[h] {
					return checkInvalid(c, "hosts", "%s is named twice; name each host once", h)
				}
				named[h] = true
			}
			if len(c.Hosts) == 1 {
				return checkInvalid(c, "hosts", "a matrix needs at least two hosts (or none: every host with a known address)")
			}
			if err := replyExpect(c); err != nil {
				return err
			}
		case CheckConsole:
			if _, err := node(c, "node", c.Node); err != nil {
				return err
			}
			if c.Expect == "" {
				return checkInvalid(c, "expect", "a console check needs the pattern to wait for, such as \"bytes from 10.0.0.2\"")
			}
			if _, err := regexp.Compile(c.Expect); err != nil {
				return checkInvalid(c, "expect", "%q is not a valid RE2 pattern: %s", c.Expect, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
			}
			if strings.ContainsAny(c.Send, "\r\n") {
				return checkInvalid(c, "send", "send is one line; it cannot hold a line break")
			}
			if _, err := checkWithin(c); err != nil {
				return err
			}
		case CheckWire:
			if c.At == nil {
				return checkInvalid(c, "at", "a wire check needs the port it watches, such as {\"node\": \"SW1\", \"port\": \"Ethernet0\"}")
			}
			n, err := node(c, "at.node", c.At.Node)
			if err != nil {
				return err
			}
			if _, ok := portNamed(n, c.At.Port); !ok {
				return checkInvalid(c, "at.port", "%s has no port named %q; its ports are %s", n.Name, c.At.Port, portNames(n))
			}
			if c.Frames == "" {
				return checkInvalid(c, "frames", "a wire check needs the kind of frames it looks for: %s, or vlan:N", frameKindList())
			}
			if !validFrames(c.Frames) {
				return checkInvalid(c, "frames", "%q is not a kind of frame nodedesk tells apart: %s, or vlan:N with N from 1 to 4094", c.Frames, frameKindList())
			}
			if c.Expect != "" && c.Expect != "seen" && c.Expect != "never" {
				return checkInvalid(c, "expect", "a wire check expects \"seen\" (the default) or \"never\", not %q", c.Expect)
			}
			if _, err := checkWithin(c); err != nil {
				return err
			}
		case "":
			return checkInvalid(c, "kind", "a check needs its kind: reach, matrix, console or wire")
		default:
			return checkInvalid(c, "kind", "%q is not a kind of check; the kinds are reach, matrix, console and wire", c.Kind)
		}
	}
	return nil
}

// unusedFields refuses a field the check's kind does not read: a typo in
// a kind or a field would otherwise check less than its author meant.
func unusedFields(c Check) error {
	uses := map[string][]string{
		CheckReach:   {"from", "to", "expect"},
		CheckMatrix:  {"hosts", "expect"},
		CheckConsole: {"node", "send", "expect", "within"},
		CheckWire:    {"at", "frames", "expect", "within"},
	}[c.Kind]
	if uses == nil {
		return nil // an unknown kind is told by the caller
	}
	set := map[string]bool{"from": c.From != "", "to": c.To != "", "hosts": c.Hosts != nil, "node": c.Node != "",
		"send": c.Send != "", "at": c.At != nil, "frames": c.Frames != "", "within": c.Within != ""}
	for _, f := range []string{"from", "to", "hosts", "node", "send", "at", "frames", "within"} {
		if set[f] && !containsString(uses, f) {
			return checkInvalid(c, f, "a %s check does not use %s; remove it (a %s check reads %s)", c.Kind, f, c.Kind, strings.Join(uses, ", "))
		}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func replyExpect(c Check) error {
	if c.Expect != "" && c.Expect != "reply" && c.Expect != "no_reply" {
		return checkInvalid(c, "expect", "a %s check expects \"reply\" (the default) or \"no_reply\", not %q", c.Kind, c.Expect)
	}
	return nil
}

// checkWithin is how long a console or wire check waits.
func checkWithin(c Check) (time.Duration, error) {
	if c.Within == "" {
		return DefaultCheckWithin, nil
	}
	d, err := time.ParseDuration(c.Within)
	switch {
	case err != nil:
		return 0, checkInvalid(c, "within", "%q is not a duration; write it as 10s, 1m30s or 500ms", c.Within)
	case d <= 0:
		return 0, checkInvalid(c, "within", "%s is not a time to wait; give a positive duration such as 10s", c.Within)
	case d > MaxCheckWithin:
		return 0, checkInvalid(c, "within", "%s is longer than a check may wait (%s); give a shorter time", c.Within, MaxCheckWithin)
	}
	return d, nil
}

func isIPv4(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is4()
}

// frameKinds are the kinds a wire check may name (and vlan:N).
var frameKinds = []FrameKind{FramesAny, FramesARP, FramesIPv4, FramesICMP, FramesIPv6, FramesOSPF, FramesSTP, FramesCDP, FramesLLDP, FramesDHCP, FramesLMI, FramesTagged}

func frameKindList() string {
	var ks []string
	for _, k := range frameKinds {
		ks = append(ks, string(k))
	}
	return strings.Join(ks, ", ")
}

// validFrames reports whether a wire check's frames names a FrameKind or
// vlan:N (N from 1 to 4094).
func validFrames(s string) bool {
	if v, ok := strings.CutPrefix(s, "vlan:"); ok {
		n, err := strconv.Atoi(v)
		return err == nil && n >= 1 && n <= 4094 && strconv.Itoa(n) == v
	}
	for _, k := range frameKinds {
		if string(k) == s {
			return true
		}
	}
	return false
}

// portNamed finds a node's port by its name or short name.
func portNamed(n *Node, name string) (Port, bool) {
	for _, p := range n.Ports() {
		if p.Name == name || (p.ShortName != "" && p.ShortName == name) {
			return p, true
		}
	}
	return Port{}, false
}

func portNames(n *Node) string {
	var ns []string
	for _, p := range n.Ports() {
		ns = append(ns, p.Name)
	}
	if len(ns) == 0 {
		return "none"
	}
	if len(ns) > 12 {
		ns = append(ns[:12], "…")
	}
	return strings.Join(ns, ", ")
}

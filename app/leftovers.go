package app

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// What a previous nodedesk that did not stop (a crash, kill -9, a power
// loss) left, as this one found and cleaned it at start: the emulator
// processes it ended (OpenRunners) and the files of cut-short imports and
// uploads it removed (SweepDebris). The server log says so; Leftovers is
// the same for the user, read by the UI (GET /v2/leftovers) until it is
// dismissed.

// leftovers is what was found, kept for the user.
type leftovers struct {
	mu    sync.Mutex
	at    time.Time
	nodes []string
	files []string
}

// Leftovers is what this nodedesk found at start of a previous one that
// did not stop: Nodes, the nodes whose processes it ended; Files, the
// leftovers of imports and uploads it removed; Message, what that means
// and what to do, "" when nothing was found (or it was dismissed).
type Leftovers struct {
	At      time.Time `json:"at"`
	Nodes   []string  `json:"nodes"`
	Files   []string  `json:"files"`
	Message string    `json:"message"`
}

// noteLeftovers keeps what a start found: nodes ended, files removed.
func (s *Service) noteLeftovers(nodes, files []string) {
	if len(nodes) == 0 && len(files) == 0 {
		return
	}
	l := &s.left
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.at.IsZero() {
		l.at = time.Now().UTC()
	}
	l.nodes = append(l.nodes, nodes...)
	l.files = append(l.files, files...)
}

// Leftovers is what this nodedesk found at start of a previous one that
// did not stop, until DismissLeftovers.
func (s *Service) Leftovers() Leftovers {
	l := &s.left
	l.mu.Lock()
	defer l.mu.Unlock()
	out := Leftovers{At: l.at, Nodes: append([]string{}, l.nodes...), Files: append([]string{}, l.files...)}
	if len(out.Nodes)+len(out.Files) == 0 {
		return out
	}
	msg := "The last nodedesk did not shut down (it crashed or was killed)."
	if len(out.Nodes) > 0 {
		msg += fmt.Sprintf(" It left %d node(s) running, which this start has stopped: %s. Their projects show them stopped; start them again to go on (a router's unsaved configuration is lost).",
			len(out.Nodes), strings.Join(out.Nodes, ", "))
	}
	if len(out.Files) > 0 {
		msg += fmt.Sprintf(" It left %d unfinished import(s) or upload(s), which this start has removed; import or upload them again.", len(out.Files))
	}
	out.Message = msg
	return out
}

// DismissLeftovers forgets what the start found: the user has read it.
func (s *Service) DismissLeftovers() {
	l := &s.left
	l.mu.Lock()
	defer l.mu.Unlock()
	l.at, l.nodes, l.files = time.Time{}, nil, nil
}

package app

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// A project's notification listeners, nodedesk's viewers, and auto_close.
// As in GNS3, a project whose auto_close is set is closed (its nodes
// stopped, its tunnels unbound) a few seconds after the last client
// listening to its notifications has left, unless one came back
// meanwhile. nodedesk adds viewers (decision 0069): a UI of nodedesk
// that is open at all, the desktop window or a browser page of nodedesk,
// keeps every project open, whichever project it shows; once the last
// viewer has gone, the auto_close projects nobody listens to are closed
// after the same wait. The doors count the listeners (ListenProject) and
// the viewers (AttachViewer); the close is CloseProject's, and a close
// nodedesk decides by itself is noted on the project (ProjectClosure).

// DefaultAutoCloseAfter is how long an auto_close project stays open with
// no listener: GNS3's 5 s (gns3server/handlers/api/controller/
// project_handler.py, the notification handlers' sleep).
const DefaultAutoCloseAfter = 5 * time.Second

// projectListeners counts listeners by project id, and the viewers.
type projectListeners struct {
	mu sync.Mutex
	n  map[string]int
	// left numbers the times a project's last listener left, so that a
	// wait that a later leave superseded closes nothing.
	left map[string]uint64
	// viewers counts the UIs of nodedesk open; viewersLeft numbers the
	// times the last one went, as left does.
	viewers     int
	viewersLeft uint64
}

// ListenProject counts a listener of a project's notifications until
// leave is called (once). When the last listener of a project leaves,
// the project, if its auto_close is set and it is opened, is closed after
// Config.AutoCloseAfter unless a listener or a viewer is there by then; a
// close that fails is logged.
func (s *Service) ListenProject(projectID string) (leave func()) {
	l := &s.listeners
	l.mu.Lock()
	if l.n == nil {
		l.n, l.left = map[string]int{}, map[string]uint64{}
	}
	l.n[projectID]++
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.n[projectID]--; l.n[projectID] > 0 {
				return
			}
			delete(l.n, projectID)
			l.left[projectID]++
			gen := l.left[projectID]
			time.AfterFunc(s.c.AutoCloseAfter, func() { s.autoClose(projectID, gen) })
		})
	}
}

// AttachViewer counts a UI of nodedesk (the desktop window, a browser
// page of nodedesk) until detach is called (once). While one is
// attached, no auto_close project is closed, whichever project it shows:
// a lab left running in one project is not stopped because its user
// looks at another. When the last viewer detaches, every opened
// auto_close project that no client listens to is closed after
// Config.AutoCloseAfter, unless a viewer has come back by then.
func (s *Service) AttachViewer() (detach func()) {
	l := &s.listeners
	l.mu.Lock()
	l.viewers++
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.viewers--; l.viewers > 0 {
				return
			}
			l.viewersLeft++
			gen := l.viewersLeft
			time.AfterFunc(s.c.AutoCloseAfter, func() { s.autoCloseUnviewed(gen) })
		})
	}
}

// viewed reports whether a viewer is attached, and logs that it keeps
// project open. Callers hold l.mu.
func (s *Service) viewed(name string) bool {
	if s.listeners.viewers == 0 {
		return false
	}
	s.c.Logger.Info("auto_close: kept open, a nodedesk window or page is open", "project", name)
	return true
}

// autoClose closes a project whose last listener left (the gen-th time)
// if none listens now, no viewer is attached and its auto_close is set.
func (s *Service) autoClose(projectID string, gen uint64) {
	ctx := context.Background()
	p, err := s.FindProjectByID(ctx, projectID)
	if err != nil || !p.AutoClose || p.Status != ProjectOpened {
		return // gone, kept open by its settings, or closed already
	}
	l := &s.listeners
	l.mu.Lock()
	stale := l.n[projectID] > 0 || l.left[projectID] != gen || s.viewed(p.Name)
	l.mu.Unlock()
	if !stale {
		s.closeUnwatched(ctx, p, "no client listened to it")
	}
}

// autoCloseUnviewed closes, once the last viewer went (the gen-th time)
// and none came back, the opened auto_close projects no client listens
// to.
func (s *Service) autoCloseUnviewed(gen uint64) {
	ctx := context.Background()
	ps, err := s.FindProjects(ctx)
	if err != nil {
		s.c.Logger.Error("auto_close: listing the projects", "err", err)
		return
	}
	for _, p := range ps {
		if !p.AutoClose || p.Status != ProjectOpened {
			continue
		}
		l := &s.listeners
		l.mu.Lock()
		stale := l.viewers > 0 || l.viewersLeft != gen || l.n[p.ID] > 0
		l.mu.Unlock()
		if !stale {
			s.closeUnwatched(ctx, p, "no nodedesk window or page, and no client, showed it")
		}
	}
}

// closeUnwatched closes an auto_close project that nobody watches, and
// notes on it why (why: who did not show it).
func (s *Service) closeUnwatched(ctx context.Context, p *Project, why string) {
	s.c.Logger.Info("closing a project with auto_close: "+why, "project", p.Name)
	at := time.Now()
	note := &ProjectClosure{At: at.UTC(), Message: fmt.Sprintf(
		"nodedesk closed this project at %s because %s for %s (its auto_close setting); its nodes were stopped. Start them again to go on.",
		at.Format("15:04"), why, s.c.AutoCloseAfter.Round(time.Millisecond))}
	if err := s.closeProject(ctx, p.ID, note); err != nil {
		s.c.Logger.Error("auto_close of a project failed", "project", p.Name, "err", err)
	}
}

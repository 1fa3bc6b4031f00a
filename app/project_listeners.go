package app

import (
	"context"
	"sync"
	"time"
)

// A project's notification listeners, and auto_close: as in GNS3, a
// project whose auto_close is set is closed (its nodes stopped, its
// tunnels unbound) a few seconds after the last client listening to its
// notifications has left, unless one came back meanwhile. The doors count
// the listeners (ListenProject); the close is CloseProject's.

// DefaultAutoCloseAfter is how long an auto_close project stays open with
// no listener: GNS3's 5 s (gns3server/handlers/api/controller/
// project_handler.py, the notification handlers' sleep).
const DefaultAutoCloseAfter = 5 * time.Second

// projectListeners counts listeners by project id.
type projectListeners struct {
	mu sync.Mutex
	n  map[string]int
	// left numbers the times a project's last listener left, so that a
	// wait that a later leave superseded closes nothing.
	left map[string]uint64
}

// ListenProject counts a listener of a project's notifications until
// leave is called (once). When the last listener of a project leaves,
// the project, if its auto_close is set and it is opened, is closed after
// Config.AutoCloseAfter unless a listener has come back by then; a close
// that fails is logged.
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

// autoClose closes a project whose last listener left (the gen-th time)
// if none listens now and its auto_close is set.
func (s *Service) autoClose(projectID string, gen uint64) {
	l := &s.listeners
	l.mu.Lock()
	stale := l.n[projectID] > 0 || l.left[projectID] != gen
	l.mu.Unlock()
	if stale {
		return
	}
	ctx := context.Background()
	p, err := s.FindProjectByID(ctx, projectID)
	if err != nil || !p.AutoClose || p.Status != ProjectOpened {
		return // gone, kept open by its settings, or closed already
	}
	s.c.Logger.Info("closing a project with auto_close: no client listens to it", "project", p.Name)
	if err := s.CloseProject(ctx, projectID); err != nil {
		s.c.Logger.Error("auto_close of a project failed", "project", p.Name, "err", err)
	}
}

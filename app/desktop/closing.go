package desktop

import "sync"

// Closing the window ends nodedesk, which stops every node. So the page,
// once it says it asks (AskBeforeClose), is handed every close of the
// window (its close button, the system's quit) as the event
// "close-requested"; it asks the user while nodes run and calls Quit to
// go on (decision 0077). A page that never said so (not loaded, broken)
// does not hold the window open.
type closing struct {
	mu       sync.Mutex
	asks     bool
	quitting bool
}

// AskBeforeClose says that the page asks the user before the window
// closes: from now on a close waits for the page's Quit.
func (a *App) AskBeforeClose() {
	a.close.mu.Lock()
	defer a.close.mu.Unlock()
	a.close.asks = true
}

// Quit closes the window, and so ends nodedesk, without asking again:
// the page's answer to "close-requested" once the user said yes (or no
// node runs).
func (a *App) Quit() {
	a.close.mu.Lock()
	a.close.quitting = true
	quit := a.QuitWindow
	a.close.mu.Unlock()
	if quit != nil {
		quit()
	}
}

// BeforeClose is the window's OnBeforeClose: it reports whether the close
// must wait, having asked the page (the event "close-requested"). It is a
// function, not a method, so that the page cannot call it.
func BeforeClose(a *App) (wait bool) {
	a.close.mu.Lock()
	wait = a.close.asks && !a.close.quitting
	a.close.mu.Unlock()
	if wait {
		a.emitter()(a.context(), "close-requested")
	}
	return wait
}

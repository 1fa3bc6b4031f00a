package desktop_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"

	"nodedesk/app/desktop"
)

// TestBeforeClose: a close of the window goes through until the page
// says it asks; then it waits and the page is asked, until the page's
// Quit, which closes the window and lets the close through.
func TestBeforeClose(t *testing.T) {
	var events []string
	a := desktop.New(nil, nil, func(_ context.Context, name string, _ ...any) { events = append(events, name) }, slog.New(slog.DiscardHandler))
	quits := 0
	a.QuitWindow = func() { quits++ }
	if desktop.BeforeClose(a) || len(events) != 0 {
		t.Fatalf("a page that does not ask held the close (events %v)", events)
	}
	a.AskBeforeClose()
	if !desktop.BeforeClose(a) {
		t.Fatal("the close did not wait for the page that asks")
	}
	if !slices.Equal(events, []string{"close-requested"}) {
		t.Errorf("the page was sent %v, want close-requested", events)
	}
	a.Quit()
	if quits != 1 {
		t.Errorf("Quit closed the window %d times, want 1", quits)
	}
	if desktop.BeforeClose(a) {
		t.Error("the close Quit caused waited again")
	}
}

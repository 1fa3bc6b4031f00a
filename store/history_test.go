package store

import (
	"fmt"
	"slices"
	"testing"

	"nodedesk/app"
)

// stackDescriptions lists a stack's entries, newest first, by description.
func stackDescriptions(tb testing.TB, s *Store, projectID string, st app.HistoryStack) []string {
	tb.Helper()
	var out []string
	mustView(tb, s, func(tx app.Tx) error {
		es, err := tx.History(projectID, st)
		for _, e := range es {
			out = append(out, e.Description)
		}
		return err
	})
	return out
}

// TestTx_History: each project has two stacks; push puts on top, a set Seq
// replaces the top, keep drops the oldest, pop takes the top, clear empties
// one stack of one project; the other project and stack are untouched.
func TestTx_History(t *testing.T) {
	s := mustOpenStore(t)
	p, q := mustPutProject(t, s, "lab"), mustPutProject(t, s, "other")
	push := func(tx app.Tx, st app.HistoryStack, pid, desc string, keep int) *app.HistoryEntry {
		e := &app.HistoryEntry{ID: desc, ProjectID: pid, Description: desc}
		if err := tx.PushHistory(st, e, keep); err != nil {
			t.Fatal(err)
		}
		return e
	}
	mustUpdate(t, s, func(tx app.Tx) error {
		if e, err := tx.HistoryTop(p.ID, app.UndoStack); err != nil || e != nil {
			t.Errorf("top of an empty stack: %v, %v", e, err)
		}
		for i := range 5 {
			push(tx, app.UndoStack, p.ID, fmt.Sprint("p", i), 3)
			push(tx, app.UndoStack, q.ID, fmt.Sprint("q", i), 0)
		}
		push(tx, app.RedoStack, p.ID, "r0", 3)
		return nil
	})
	if got := stackDescriptions(t, s, p.ID, app.UndoStack); !slices.Equal(got, []string{"p4", "p3", "p2"}) {
		t.Errorf("undo stack kept to 3: %v", got)
	}
	if got := stackDescriptions(t, s, q.ID, app.UndoStack); len(got) != 5 || got[0] != "q4" {
		t.Errorf("the other project's stack: %v", got)
	}
	mustUpdate(t, s, func(tx app.Tx) error {
		top, err := tx.HistoryTop(p.ID, app.UndoStack)
		if err != nil || top == nil || top.Description != "p4" || top.Seq != 5 {
			t.Fatalf("top %+v, %v", top, err)
		}
		top.Description = "p4 grown"
		if err := tx.PushHistory(app.UndoStack, top, 3); err != nil {
			return err
		}
		if err := tx.PopHistory(p.ID, app.UndoStack); err != nil {
			return err
		}
		push(tx, app.UndoStack, p.ID, "p5", 3)
		return tx.ClearHistory(p.ID, app.RedoStack)
	})
	if got := stackDescriptions(t, s, p.ID, app.UndoStack); !slices.Equal(got, []string{"p5", "p3", "p2"}) {
		t.Errorf("after replace, pop and push: %v", got)
	}
	if got := stackDescriptions(t, s, p.ID, app.RedoStack); len(got) != 0 {
		t.Errorf("redo after clear: %v", got)
	}
	// Deleting a project deletes its history, and only its.
	mustUpdate(t, s, func(tx app.Tx) error { return tx.DeleteProject(p.ID) })
	if got := stackDescriptions(t, s, p.ID, app.UndoStack); len(got) != 0 {
		t.Errorf("a deleted project's history: %v", got)
	}
	if got := stackDescriptions(t, s, q.ID, app.UndoStack); len(got) != 5 {
		t.Errorf("the other project's history after a deletion: %v", got)
	}
}

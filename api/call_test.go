package api

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"nodedesk/app"
)

// TestAnswered: a typed in-process question logs an internal error in
// full, as a request does, and not a refusal; a panic in it is an internal
// error, logged, as in Call, rather than the end of the window.
func TestAnswered(t *testing.T) {
	var log bytes.Buffer
	s := &Server{logger: slog.New(slog.NewTextHandler(&log, nil))}
	ask := func(f func() error) (err error) {
		defer s.answered("Question", &err)
		return f()
	}

	if err := ask(func() error { return app.Errorf(app.ENOTFOUND, "Node ID n1 doesn't exist") }); app.ErrorCode(err) != app.ENOTFOUND || log.Len() != 0 {
		t.Errorf("a refusal: %v, logged %q", err, log.String())
	}
	err := ask(func() error { return errors.New("disk on fire") })
	if app.ErrorCode(err) != app.EINTERNAL || !strings.Contains(log.String(), "disk on fire") || !strings.Contains(log.String(), "call=Question") {
		t.Errorf("an internal error: %v, logged %q", err, log.String())
	}
	log.Reset()
	err = ask(func() error { panic("a bug") })
	if app.ErrorCode(err) != app.EINTERNAL || app.ErrorMessage(err) != app.InternalMessage || !strings.Contains(log.String(), "a bug") {
		t.Errorf("a panic: %v, logged %q", err, log.String())
	}
}

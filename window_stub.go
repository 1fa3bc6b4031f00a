//go:build !production

package main

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"

	"nodedesk/app/desktop"
)

// runWindow in a build without the desktop tags (plain `go build .`, which
// needs no GTK, WebKit or display) says that there is no window.
func runWindow(ctx context.Context, door *desktop.App, ui fs.FS, logger *slog.Logger) error {
	return errors.New("this binary was built without the desktop window (make build adds it)")
}

//go:build production

package main

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"testing/fstest"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"nodedesk/api"
	"nodedesk/app/desktop"
)

// runWindow opens the desktop window and returns when it is closed, or
// closes it when ctx ends (SIGINT, SIGTERM). The page is the embedded
// frontend; it talks to Go through door's bindings (App.Call for the API).
func runWindow(ctx context.Context, door *desktop.App, ui fs.FS, logger *slog.Logger) error {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("no display to open the window on (DISPLAY is not set); run nodedesk in a desktop session, or pass --headless")
	}
	if _, err := fs.Stat(ui, "index.html"); err != nil {
		ui = fstest.MapFS{"index.html": {Data: []byte(api.NotBuiltPage)}}
	}
	door.Emit = runtime.EventsEmit
	door.Dialogs = desktop.Dialogs{Open: openFileDialog, Save: saveFileDialog}
	return wails.Run(&options.App{
		Title:            "nodedesk",
		Width:            1280,
		Height:           820,
		MinWidth:         800,
		MinHeight:        560,
		BackgroundColour: &options.RGBA{R: 246, G: 247, B: 249, A: 255},
		AssetServer:      &assetserver.Options{Assets: ui},
		// A file dropped on the window reaches the page as its path (the
		// event wails:file-drop), which it opens through ImportProjectFile.
		DragAndDrop: &options.DragAndDrop{EnableFileDrop: true},
		OnStartup: func(wctx context.Context) {
			door.QuitWindow = func() { runtime.Quit(wctx) }
			desktop.Start(wctx, door)
			go func() {
				<-ctx.Done()
				door.Quit() // a signal asks no one
			}()
		},
		// A close waits for the page's answer while nodes run (desktop.Quit).
		OnBeforeClose:  func(context.Context) bool { return desktop.BeforeClose(door) },
		Bind:           []any{door},
		ErrorFormatter: desktop.FormatError,
		Logger:         nil,
	})
}

// openFileDialog and saveFileDialog are the door's native file dialogs.
func openFileDialog(ctx context.Context, d desktop.FileDialog) (string, error) {
	return runtime.OpenFileDialog(ctx, runtime.OpenDialogOptions{Title: d.Title, DefaultFilename: d.DefaultFilename, Filters: filters(d.Filters)})
}

func saveFileDialog(ctx context.Context, d desktop.FileDialog) (string, error) {
	return runtime.SaveFileDialog(ctx, runtime.SaveDialogOptions{Title: d.Title, DefaultFilename: d.DefaultFilename, Filters: filters(d.Filters), CanCreateDirectories: true})
}

func filters(list []desktop.FileFilter) []runtime.FileFilter {
	out := make([]runtime.FileFilter, len(list))
	for i, f := range list {
		out[i] = runtime.FileFilter{DisplayName: f.DisplayName, Pattern: f.Pattern}
	}
	return out
}

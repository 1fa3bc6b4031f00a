// Command wailsgen writes the page's typed stubs of the window's bindings
// (frontend/wailsjs/go: desktop.App's methods and the models of their
// Go types, such as desktop.CallResult), as `wails generate module` does,
// without the Wails CLI. Run it from the repository root, where wails.json
// says where the stubs go:
//
//	CGO_ENABLED=0 go run -tags bindings ./app/desktop/wailsgen
//
// TestBindingsGenerated in package desktop fails when the checked-in stubs
// differ from what it writes. Without the bindings tag it compiles but
// only says so.
package main

import (
	"log"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"

	"nodedesk/app/desktop"
)

func main() {
	// With the bindings tag, Run writes the stubs of what is bound and
	// returns; nothing is started.
	if err := wails.Run(&options.App{Bind: []any{desktop.New(nil, nil, nil, nil)}}); err != nil {
		log.Fatal(err)
	}
}

// Package app is nodedesk's domain: projects and the nodes of a network lab,
// the rules that govern them (defaults, naming, console ports, status), the
// typed errors those rules return, and the interfaces the rules need from the
// outside world (a transactional Store, an event Publisher, a Runner per
// emulator, a client per remote compute).
//
// Dependency rule: app imports only the standard library and
// github.com/google/uuid (layout_test.go fails otherwise). It never imports
// store, api or any subfolder of app: those are adapters, and they import
// app. Every rule lives here, in a file named for it, so the REST door
// (package api) and the desktop door call the same Service and cannot
// disagree.
//
// The files, by prefix:
//
//   - service.go, store.go, error.go, event.go, field.go: the Service, its
//     ports (Store, Tx) and the shared vocabulary.
//   - node*.go: the node rules: node_type.go is the node-type table (one row
//     per type), then properties, defaults, naming, ports, consoles, status
//     and updates; nodes.go holds the node use cases.
//   - link*.go, cloud_*.go: links, their captures and filters; a cloud's
//     host ports and UDP tunnels.
//   - project*.go, templates.go, drawing.go, settings.go: projects and
//     their files (export, import, snapshots, node files, duplicates).
//   - runner.go: the Runner port of the process-run node types.
//   - history*.go: undo and redo.
//   - compute*.go: nodedesk as a GNS3 compute (what a GNS3 controller asks).
//   - remote*.go: nodedesk as a controller of remote computes.
package app

// Package app is nodedesk's domain: projects and the nodes of a network lab,
// the rules that govern them (defaults, naming, console ports, status), the
// typed errors those rules return, and the interfaces the rules need from the
// outside world (a transactional Store, an event Publisher).
//
// Dependency rule: app imports only the standard library and
// github.com/google/uuid. It never imports store, api or any I/O framework;
// those packages import app. Every rule lives here, in a file named for it,
// so the REST door (package api) and the desktop door call the same Service
// and cannot disagree.
package app

// Package docker runs Docker nodes as GNS3 2.2 runs them, on the Docker
// Engine of this machine: one container per node, made from the node's
// image with network none and nodedesk's init before its command; one
// veth pair per adapter, whose peer nodedesk makes inside the container's
// namespace as eth<n> and whose host end (app.VethName) the data plane
// reads and writes; the node's /etc/network and other kept folders bound
// from its folder; its console the terminal of the container's main
// process and its aux console a shell in it, both served by nodedesk in
// telnet. The engine is spoken to over its unix socket by a small client
// of this package's own (engine.go; decision 0037), which also lists the
// engine's images (app.DockerEngine).
//
// It imports app, app/termproc (the telnet console) and app/supervise
// (the lifecycle every runner shares; it reaps its own records and
// containers); nothing imports it but app/emulators and its tests.
package docker

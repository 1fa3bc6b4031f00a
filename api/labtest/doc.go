// Package labtest is the lab test harness. Start runs the real stack in
// the test's process, as main wires it: a bbolt store in t.TempDir(),
// app.Service, the data plane (dataplane.Fabric), the runners the test
// asks for (made in one loop by app/emulators: real `vpcs`, qemu-system,
// Docker containers on a private engine, dynamips) and api.Server on
// 127.0.0.1:0. The helpers then drive it as a user's lab does: REST
// calls, each answer checked against openapi.json; telnet and websocket
// consoles; Ethernet frames over a cloud's UDP tunnels; network
// namespaces and veth pairs of the test's own.
//
// The lab tests are this package's own *_test.go files, one per subject
// (vpcs, qemu, docker, dynamips, switch, traffic, cloud, nat, compute,
// console, history). Their helpers, shared with other packages' tests,
// are in app/kit and the emulators' test packages (app/<emulator>/
// <emulator>test): a Lab's requests go through its embedded kit.API, so
// the API's own tests (which cannot import labtest) send theirs the same
// way.
//
// labtest is the whole stack, as main.go is: it imports api, store, app
// and every adapter. Tests import it, the product never does. Lab tests
// share this machine's console and UDP ports: make test runs packages one
// at a time (go test -p 1).
package labtest

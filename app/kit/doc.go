// Package kit holds the helpers shared by nodedesk's tests; it is
// imported by tests only. They are here once, for every package's tests:
// the lab harness (api/labtest), the API's own tests (package api, which
// cannot import labtest: labtest imports api), app's tests, the runner
// packages' tests and the process tests at the root.
//
// API sends REST requests to a running server and checks each answer
// with the contract check the test passes in (api.Server.CheckResponse);
// its methods create projects, nodes, links, clouds and started VPCS
// hosts. Controller plays a GNS3 controller on the compute paths. The
// rest need no server: WaitFor, ProjectDigest of a store, the telnet
// console reader, Ethernet frames and UDP tunnel peers, network
// namespaces, the state of a process (ProcState) and the module's root
// folder (ModuleRoot).
//
// What names one emulator is beside it, as net/http/httptest is beside
// net/http: app/vpcs/vpcstest, app/qemu/qemutest (the test guest),
// app/docker/dockertest (a private Docker Engine), app/dynamips/dynamipstest
// (the dynamips program, the stand-in IOS images); a fresh store is
// store/storetest's.
//
// kit imports nothing of nodedesk but app, so that app's, api's and the
// adapters' tests may all use it.
package kit

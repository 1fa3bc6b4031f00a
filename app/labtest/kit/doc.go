// Package kit holds the helpers shared by nodedesk's tests; it is
// imported by tests only. They are here once, for every package's tests:
// the lab harness (app/labtest), the API's own tests (package api, which
// cannot import labtest: labtest imports api), app's tests and the
// process tests at the root.
//
// API sends REST requests to a running server and checks each answer
// with the contract check the test passes in (api.Server.CheckResponse);
// its methods create projects, nodes, links, clouds and started VPCS
// hosts. Controller plays a GNS3 controller on the compute paths. The
// rest need no server: WaitFor and MustOpenStore, ProjectDigest of a
// store, the telnet console reader, Ethernet frames and UDP tunnel peers,
// network namespaces, the vpcs processes of this machine, the QEMU
// test guest that `make guest` builds (Guest, QEMUBinary), and a private
// Docker Engine with the offline test image (Dockerd, DockerTestImage).
//
// kit imports no package that imports api, so that api's internal tests
// may use it.
package kit

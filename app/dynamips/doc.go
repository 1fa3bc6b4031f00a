// Package dynamips runs Dynamips nodes (Cisco routers on the user's own
// IOS images) as GNS3 2.2.59 runs them: one `dynamips -N1 -H` process per
// running router, in the node's folder (its logs, NVRAM and disks land
// there), driven over Dynamips' text hypervisor protocol with the commands
// gns3-server sends for the same node (commands.go). Each port's NIO is a
// UDP tunnel straight to nodedesk's data plane; the router's console and
// aux lines, which Dynamips serves on internal 127.0.0.1 ports, are served
// by nodedesk on the node's ports (app/termproc's console: several
// clients, the dock's websocket); configs are files of the node's folder,
// given to Dynamips at start and written back from its NVRAM at stop;
// records (app/supervise, app/procrecord) let the next nodedesk end the
// routers a killed one left; idle-PC values are found on a running router
// (idlepc.go).
package dynamips

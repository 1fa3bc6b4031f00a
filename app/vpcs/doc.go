// Package vpcs runs VPCS nodes for real: one `vpcs` simulator process per
// node, in the foreground on a pseudo-terminal, with nodedesk serving the
// node's telnet console on its console port and bridging every connection
// to that terminal. It implements app.Runner, its lifecycle from
// app/supervise; package app never imports it, and only app/emulators
// makes it (NewRunner).
package vpcs

// Package termproc supervises a simulator that runs in the foreground on
// a pseudo-terminal, as VPCS and QEMU's serial line do: the process, its
// telnet console (served by nodedesk on the node's console port to any
// number of clients, each key straight to the terminal), the tail of its
// output (what a user is told when it ends by itself) and its end, polite
// then forced. The runners (app/vpcs, app/qemu) start and stop it. The
// console alone (Console) also serves a terminal that is not a
// pseudo-terminal of nodedesk's: a Docker container's attached TTY
// (app/docker).
package termproc

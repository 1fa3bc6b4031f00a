// Package qemu runs QEMU nodes as GNS3 2.2 runs them: one qemu-system-*
// process per node in its folder project-files/qemu/<node_id>/, each
// adapter a UDP socket straight to nodedesk's data plane, the serial line
// behind the node's telnet console, and the QMP monitor for suspend,
// resume, reload and a polite shutdown; its lifecycle (records, orphans,
// stop-all) comes from app/supervise. The Runner also does what nodedesk
// asks of the QEMU tools (Tools, app.QEMUTools: qemu-img, the binaries'
// versions, the KVM probe, begun early by Open).
package qemu

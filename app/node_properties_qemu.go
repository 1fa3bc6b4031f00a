package app

// QEMU nodes' properties: the keys, defaults and checks of GNS3 2.2's QEMU
// VM (its schemas/qemu.py), kept as given in Properties.Extra, and the
// ports one Ethernet adapter each gives the node (node_ports.go). Package
// app/qemu runs the nodes from them.

// qemuProps are the properties of a QEMU node.
var qemuProps = vmProps

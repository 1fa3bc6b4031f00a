package app

import (
	"encoding/json"
	"os"
	"strconv"
)

// IOU nodes' properties: the keys, defaults and rules of GNS3 2.2.59's
// IOU node (its compute's schemas/iou.py and compute/iou/iou_vm.py), kept
// in Properties.Extra under GNS3's keys. application_id is the number the
// IOU process and its sockets are known by: unique among the IOU nodes of
// every open project, and on the machine while the node runs
// (claimIOUApplicationID). Package app/iou runs the nodes; the data plane
// carries their frames over IOU's own unix sockets (NetIO).

// MaxIOUApplicationID bounds application_id, as GNS3 does: ids 1–511, the
// bridge of id n being n+512.
const MaxIOUApplicationID = 511

// IOUBridgeOffset is what is added to an IOU node's application id to
// give the id of the bridge its frames are exchanged with.
const IOUBridgeOffset = 512

// NetIODir is the folder of the unix datagram sockets IOU processes and
// their bridges exchange frames over, one per id: /tmp/netio<uid>, as IOU
// itself names it (whatever TMPDIR says), shared by every program of the
// user on the machine.
func NetIODir() string { return "/tmp/netio" + strconv.Itoa(os.Getuid()) }

// ApplicationID is n's application_id; 0: none yet.
func (n *Node) ApplicationID() int {
	var id int
	if json.Unmarshal(n.Properties.Extra["application_id"], &id) != nil || id < 1 || id > MaxIOUApplicationID {
		return 0
	}
	return id
}

// NetIO reports whether n's frames travel over IOU's unix sockets now (it
// is a running node of a type that uses them), and its application id:
// the data plane then binds the bridge id+IOUBridgeOffset in NetIODir and
// exchanges each port's frames with the process's socket id, port
// (adapter a, port p) being IOU's bay a, unit p.
func (n *Node) NetIO() (id int, ok bool) {
	if !n.Type.kind().netio || !n.Active() {
		return 0, false
	}
	id = n.ApplicationID()
	return id, id > 0
}

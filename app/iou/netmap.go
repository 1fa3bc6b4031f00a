package iou

import (
	"fmt"
	"nodedesk/app"
	"strings"
)

// netmapBays and netmapUnits are the ports an IOU image can have: bays 0–15
// of 4 units each (Ethernet bays first, then serial bays).
const (
	netmapBays  = 16
	netmapUnits = 4
)

// Netmap is the NETMAP file GNS3 2.2 writes into the node's folder before
// it starts the IOU image with application id id: 64 lines, one for each
// bay 0–15 and unit 0–3, that wire the port to the same bay/unit of the
// bridge id+512, e.g. "513:0/0    1:0/0" for id 1 (the node's id is right
// aligned in 5 columns), each line ending in "\n".
func Netmap(id int) string {
	var b strings.Builder
	b.Grow(netmapBays * netmapUnits * 20)
	for bay := 0; bay < netmapBays; bay++ {
		for unit := 0; unit < netmapUnits; unit++ {
			fmt.Fprintf(&b, "%d:%d/%d%5d:%d/%d\n", id+app.NetIOBridgeOffset, bay, unit, id, bay, unit)
		}
	}
	return b.String()
}

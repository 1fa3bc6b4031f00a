// Package iou runs IOU nodes (Cisco IOS on Linux, "IOL": one process per
// router or switch, on the user's own image) as GNS3 2.2.59 runs them,
// but with no uBridge and no root: in the node's folder, a NETMAP that
// sends every interface's frames to the bridge id+512, the startup and
// private configs pushed into the router's NVRAM file, the licence in
// IOURC, then `image [-e N] [-s N] -n KB -m MB [-l] <id>` on pipes.
// nodedesk's data plane is the bridge (app/dataplane's netio); the
// console is served by app/termproc on those pipes; what the router saves
// in its NVRAM ("write memory") is read back into the node's config files
// (app.Observer.OnNodeFiles) while it runs and when it stops. check.go
// catches, before a start, what breaks IOU for GNS3's users.
package iou

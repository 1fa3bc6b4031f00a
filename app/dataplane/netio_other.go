//go:build !linux

package dataplane

import "nodedesk/app"

// bridgeOS is nothing here: IOU runs on Linux only.
type bridgeOS struct{}

// open fails: IOU processes, and so their bridges, exist on Linux only.
func (b *netioBridge) open() error {
	return app.Errorf(app.EINVALID, "frames over netio sockets are carried on Linux only")
}

// release has nothing to let go of.
func (b *netioBridge) release() {}

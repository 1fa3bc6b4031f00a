//go:build !linux

package dataplane

import (
	"errors"

	"nodedesk/app"
)

// Host ports (AF_PACKET, TAP) are Linux only for now.

var errHostPorts = errors.New("cloud host ports are supported on Linux only")

func openHostPort(end, app.CloudPort) (*hostPort, error) { return nil, errHostPorts }

func checkHostPort(p app.CloudPort) error {
	return app.Errorf(app.ECONFLICT, "Cloud port %s: bridging host interfaces and TAP devices is supported on Linux only", p.Name)
}

type hostReader struct{}

func newHostReader(*hostPort) *hostReader { return &hostReader{} }
func (*hostReader) read() ([]byte, error) { return nil, errHostPorts }

func (*rawWrite) do(uintptr) bool { return true }

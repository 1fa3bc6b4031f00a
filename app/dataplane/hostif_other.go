//go:build !linux

package dataplane

import (
	"errors"
	"os"
	"syscall"

	"nodedesk/app"
)

// Host ports (AF_PACKET, TAP) are Linux only for now.

var errHostPorts = errors.New("cloud host ports are supported on Linux only")

func openHost(hostIf) (*os.File, error) { return nil, errHostPorts }

func checkHostPort(p app.CloudPort) error {
	return app.Errorf(app.ECONFLICT, "Cloud port %s: bridging host interfaces and TAP devices is supported on Linux only", p.Name)
}

type hostReader struct{}

func newHostReader(bool) *hostReader      { return &hostReader{} }
func (*hostReader) use(syscall.RawConn)   {}
func (*hostReader) read() ([]byte, error) { return nil, errHostPorts }

func (*rawWrite) do(uintptr) bool { return true }

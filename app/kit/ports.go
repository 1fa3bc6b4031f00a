package kit

import (
	"net"
	"testing"
)

// FreeTCP is a TCP port of 127.0.0.1 that nothing holds right now.
func FreeTCP(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

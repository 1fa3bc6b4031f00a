//go:build !linux

package dataplane

import "testing"

// netioHot is Linux's IOU hot path (netio_test.go); IOU runs on Linux only.
type netioHot struct{}

func newNetIOHot(tb testing.TB) *netioHot {
	tb.Skip("frames over netio sockets are carried on Linux only")
	return nil
}

func (*netioHot) in([]byte)                {}
func (*netioHot) out([]byte)               {}
func (*netioHot) datagram(f []byte) []byte { return f }

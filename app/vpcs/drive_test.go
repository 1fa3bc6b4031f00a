package vpcs_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"nodedesk/app"
	"nodedesk/app/kit"
	"nodedesk/app/vpcs"
	"nodedesk/app/vpcs/vpcstest"
)

// TestDrive_PingAndConverse: two VPCS wired back to back ping each other
// through the driver, which reads replies, timeouts and unreachable hosts
// from what VPCS prints.
func TestDrive_PingAndConverse(t *testing.T) {
	vpcstest.MustHave(t)
	r := vpcs.New(vpcs.Config{ConsoleHost: "127.0.0.1", StopGrace: time.Second})
	t.Cleanup(r.StopAll)
	port := freeUDP(t)
	a, b := process(t, port), process(t, port+1)
	b.Ports[0] = app.PortPair{Local: port + 1, Remote: port}
	b.MACOffset = 2
	sa, sb := "set pcname a\nip 10.9.0.1/24\n", "set pcname b\nip 10.9.0.2/24\n"
	a.StartupScript, b.StartupScript = &sa, &sb
	for _, p := range []app.Process{a, b} {
		if _, err := r.Start(p); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	for range 3 {
		start := time.Now()
		res, err := r.Ping(ctx, a.NodeID, "10.9.0.2", time.Second)
		t.Logf("%v %+v %v", time.Since(start), res, err)
		if err != nil || res.Received != 1 {
			t.Fatalf("a→b: %+v %v", res, err)
		}
	}
	_ = kit.FreeTCP
	lines, ok, err := r.Converse(ctx, b.NodeID, "show ip", regexp.MustCompile(`10\.9\.0\.2/24`), 3*time.Second)
	if !ok || err != nil {
		t.Fatalf("converse: %q %v %v", lines, ok, err)
	}
}

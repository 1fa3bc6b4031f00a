package natgw

import (
	"encoding/binary"
	"net"
	"testing"
	"time"
)

// dhcpDiscover is a DHCPDISCOVER of mac, asking for want if not nil.
func dhcpDiscover(mac net.HardwareAddr, want net.IP) []byte {
	d := make([]byte, 300)
	d[0], d[1], d[2] = 1, 1, 6
	binary.BigEndian.PutUint32(d[4:], 0x1d1d0000|uint32(mac[5]))
	copy(d[28:], mac)
	binary.BigEndian.PutUint32(d[236:], 0x63825363)
	opts := []byte{53, 1, 1}
	if want != nil {
		opts = append(opts, 50, 4)
		opts = append(opts, want.To4()...)
	}
	copy(d[240:], append(opts, 255))
	return ipFrame(net.HardwareAddr{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, mac, net.IPv4zero, net.IPv4bcast, 17, udpDatagram(68, 67, d))
}

// offer is the address the gateway offers mac.
func offer(t *testing.T, l *lab, mac net.HardwareAddr, want net.IP) net.IP {
	t.Helper()
	l.g.Input(dhcpDiscover(mac, want))
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); { // a bound, not a speed
		f := l.next(time.Until(end))
		if f != nil && len(f) > 42+240 && f[23] == 17 && binary.BigEndian.Uint16(f[34:]) == 67 && f[42] == 2 &&
			net.HardwareAddr(f[42+28:42+34]).String() == mac.String() {
			return net.IP(f[42+16 : 42+20])
		}
	}
	t.Fatalf("no DHCP offer for %s", mac)
	return nil
}

// A host gets the same address from a restarted gateway, whatever the
// order in which the hosts ask; a host that asks for a free address (as
// one that had it does) gets it.
func TestGateway_LeasesSurviveARestart(t *testing.T) {
	a, b := net.HardwareAddr{0x00, 0x50, 0x79, 0x66, 0x68, 0x00}, net.HardwareAddr{0x00, 0x50, 0x79, 0x66, 0x68, 0x01}
	l := newLab(t, Config{NodeID: "n1"})
	ipA, ipB := offer(t, l, a, nil), offer(t, l, b, nil)
	if ipA.Equal(ipB) || ipA[3] < 2 || ipA[3] > 254 || ipB[3] < 2 || ipB[3] > 254 || !ipA.Mask(net.CIDRMask(24, 32)).Equal(net.IPv4(192, 168, 122, 0).To4()) {
		t.Fatalf("offers %s and %s", ipA, ipB)
	}
	if again := offer(t, l, a, nil); !again.Equal(ipA) {
		t.Fatalf("%s offered %s, then %s", a, ipA, again)
	}
	l.g.Close()

	l = newLab(t, Config{NodeID: "n1"}) // restarted; the hosts ask in the other order
	if got := offer(t, l, b, nil); !got.Equal(ipB) {
		t.Fatalf("after a restart %s got %s, had %s", b, got, ipB)
	}
	if got := offer(t, l, a, nil); !got.Equal(ipA) {
		t.Fatalf("after a restart %s got %s, had %s", a, got, ipA)
	}

	c := net.HardwareAddr{0x02, 0, 0, 0, 0, 0x33}
	want := net.IPv4(192, 168, 122, 77).To4()
	if ipA.Equal(want) || ipB.Equal(want) {
		want = net.IPv4(192, 168, 122, 78).To4()
	}
	if got := offer(t, l, c, want); !got.Equal(want) {
		t.Fatalf("%s asked for %s, got %s", c, want, got)
	}
	// Asking for a taken address gets another.
	d := net.HardwareAddr{0x02, 0, 0, 0, 0, 0x44}
	if got := offer(t, l, d, ipA); got.Equal(ipA) {
		t.Fatalf("%s got %s, %s's", d, got, a)
	}
}

// No host is offered an address ending in 224–239 (leasable), where VPCS
// 0.5b2 drops UDP: not by its MAC's hash (this MAC's lands on .236), nor
// when it asks for one.
func TestGateway_LeasesNoAddressVPCSDropsUDPAt(t *testing.T) {
	l := newLab(t, Config{NodeID: "n1"})
	for _, c := range []struct {
		mac  net.HardwareAddr
		want net.IP
	}{
		{net.HardwareAddr{0x00, 0x50, 0x79, 0x66, 0x68, 0x0c}, nil},
		{net.HardwareAddr{0x00, 0x50, 0x79, 0x66, 0x68, 0x0d}, net.IPv4(192, 168, 122, 230)},
	} {
		if got := offer(t, l, c.mac, c.want); got[3] >= 224 && got[3] <= 239 {
			t.Errorf("%s (asking for %v) was offered %s, whose UDP VPCS 0.5b2 drops", c.mac, c.want, got)
		}
	}
}

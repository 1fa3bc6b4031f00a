package kit

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Network namespaces, veth pairs and TAP devices of the test's own, for
// traffic between a lab and this machine that never leaves it. They need
// root's network privileges (CI runs as root).

// MustBeNetAdmin ends a test that needs root's network privileges where
// they are missing (Unavailable).
func MustBeNetAdmin(t testing.TB) {
	t.Helper()
	if runtime.GOOS != "linux" {
		Unavailable(t, "cloud host ports are Linux only")
	}
	if os.Geteuid() != 0 {
		Unavailable(t, "needs root: the test creates a network namespace, a veth pair and a TAP device (CI runs as root)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		Unavailable(t, "needs the ip tool (iproute2)")
	}
}

// Sh runs a command of the test's setup, failing the test if it fails.
func Sh(t testing.TB, args ...string) {
	t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// ShQuiet runs a clean-up command, whose failure (already gone) is fine.
func ShQuiet(args ...string) { _ = exec.Command(args[0], args[1:]...).Run() }

// CmdOK reports whether a command succeeds.
func CmdOK(args ...string) bool { return exec.Command(args[0], args[1:]...).Run() == nil }

// RandomSuffix is six random hex digits, for names of the test's own.
func RandomSuffix(t testing.TB) string {
	b := make([]byte, 3)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// Netns creates a network namespace with its loopback up, removed (with
// every interface in it) when the test ends.
func Netns(t testing.TB) string {
	t.Helper()
	ns := "nd-" + RandomSuffix(t)
	Sh(t, "ip", "netns", "add", ns)
	t.Cleanup(func() { ShQuiet("ip", "netns", "del", ns) })
	Sh(t, "ip", "-n", ns, "link", "set", "lo", "up")
	return ns
}

// VethInto makes a veth pair: one end in ns with addr, up; the other in
// this namespace, up, with no address (and no IPv6, so the host sends
// nothing on it by itself). It returns the host end's name.
func VethInto(t testing.TB, ns, addr string) string {
	t.Helper()
	return VethNamed(t, ns, "ndh"+RandomSuffix(t), addr)
}

// VethNamed is VethInto with the host end named host (the name a runner
// gives it, such as app.VethName's).
func VethNamed(t testing.TB, ns, host, addr string) string {
	t.Helper()
	peer := "ndn" + RandomSuffix(t)
	Sh(t, "ip", "link", "add", host, "type", "veth", "peer", "name", peer)
	t.Cleanup(func() { ShQuiet("ip", "link", "del", host) })
	_ = os.WriteFile("/proc/sys/net/ipv6/conf/"+host+"/disable_ipv6", []byte("1"), 0o644)
	Sh(t, "ip", "link", "set", peer, "netns", ns)
	Sh(t, "ip", "-n", ns, "addr", "add", addr, "dev", peer)
	Sh(t, "ip", "-n", ns, "link", "set", peer, "up")
	Sh(t, "ip", "link", "set", host, "up")
	return host
}

// PacketSockets counts the packet sockets (AF_PACKET) of this network
// namespace bound to interface name: a cloud port that opened it holds one.
func PacketSockets(t testing.TB, name string) int {
	t.Helper()
	ifi, err := net.InterfaceByName(name)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("/proc/net/packet")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n")[1:] {
		// sk RefCnt Type Proto Iface R Rmem User Inode
		if f := strings.Fields(line); len(f) > 4 && f[4] == strconv.Itoa(ifi.Index) {
			n++
		}
	}
	return n
}

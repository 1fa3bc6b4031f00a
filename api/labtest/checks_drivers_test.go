package labtest

import (
	"strings"
	"testing"

	"nodedesk/app"
	"nodedesk/app/docker/dockertest"
	"nodedesk/app/kit"
	"nodedesk/app/qemu/qemutest"
)

// TestLab_ChecksInContainersAndGuests: the checks drive a container (ping
// by docker exec, a console command on its shell) and a QEMU guest (ping
// and a command typed on its serial line) as they drive VPCS: a host that
// answers passes, an address nobody holds fails with what ping printed,
// and a console's answer is read back; the container's network file is
// what it was.
func TestLab_ChecksInContainersAndGuests(t *testing.T) {
	l := Start(t, with(dockertest.Emulator, qemutest.Emulator))
	g := qemutest.Guest(t)
	uploadImage(t, l, "nd-vmlinuz", g.KernelELF)
	uploadImage(t, l, "nd-initrd.img", g.Initrd)
	pid := l.MustCreateProject("drivers")
	sw := l.MustCreateSwitch(t, pid, nil)
	c1 := dockerNode(t, l, pid, "C1")
	ifaces := "auto eth0\niface eth0 inet static\n\taddress 10.0.0.2\n\tnetmask 255.255.255.0\n"
	l.Do("POST", nodeURL(pid, c1)+"/files/etc/network/interfaces", ifaces).Want(t, 201)
	k1 := guestNode(t, l, pid, "K1", map[string]any{"kernel_image": "nd-vmlinuz", "initrd": "nd-initrd.img", "ram": 128,
		"kernel_command_line": qemutest.GuestKernelArgs + " nd.ip=10.0.0.3/24"})
	pc := l.StartHost(t, pid, "PC1", "10.0.0.1")
	l.Link(t, pid, pc.ID, 0, sw, 0)
	l.Link(t, pid, c1["node_id"].(string), 0, sw, 1)
	l.Link(t, pid, k1["node_id"].(string), 0, sw, 2)
	for _, n := range []map[string]any{c1, k1} {
		l.Do("POST", nodeURL(pid, n)+"/start", nil).Want(t, 200)
	}
	guestConsoles(t, k1) // booted, at its shell
	shell(t, c1, int(c1["console"].(float64)))

	reach := func(id, from, to string, reply bool) map[string]any {
		c := map[string]any{"id": id, "kind": app.CheckReach, "from": from, "to": to}
		if !reply {
			c["expect"] = "no_reply"
		}
		return c
	}
	echo := func(id, node string) map[string]any {
		return map[string]any{"id": id, "kind": app.CheckConsole, "node": node, "send": "echo said-$((6*7))", "expect": "said-42", "within": "10s"}
	}
	putChecks(t, l, pid,
		reach("c1-pc1", "C1", "PC1", true), reach("k1-pc1", "K1", "PC1", true), reach("k1-c1", "K1", "C1", true),
		reach("c1-nobody", "C1", "10.0.0.99", true), reach("k1-nobody", "K1", "10.0.0.99", true),
		echo("c1-echo", "C1"), echo("k1-echo", "K1"))
	got := wantVerdicts(t, runChecks(t, l, pid, map[string]any{}), map[string]string{
		"c1-pc1": app.VerdictPass, "k1-pc1": app.VerdictPass, "k1-c1": app.VerdictPass,
		"c1-nobody": app.VerdictFail, "k1-nobody": app.VerdictFail,
		"c1-echo": app.VerdictPass, "k1-echo": app.VerdictPass,
	})
	for _, id := range []string{"c1-nobody", "k1-nobody"} {
		if lines := evidenceLines(got[id]); !strings.Contains(lines, "packets transmitted") {
			t.Errorf("%s: the evidence does not show what ping printed: %q", id, lines)
		}
	}
	for _, id := range []string{"c1-echo", "k1-echo"} {
		if lines := evidenceLines(got[id]); !strings.Contains(lines, "said-42") {
			t.Errorf("%s: the evidence does not show the answer: %q", id, lines)
		}
	}
	if b := l.Do("GET", nodeURL(pid, c1)+"/files/etc/network/interfaces", nil).Want(t, 200).Body; string(b) != ifaces {
		t.Errorf("C1's interfaces file after the checks: %q", b)
	}
	if t.Failed() {
		t.Logf("PC1's console: %s", kit.Printable(pc.Con.Log.String()))
	}
}

// evidenceLines is every console line of a result's evidence, one string.
func evidenceLines(r app.CheckResult) string {
	var b strings.Builder
	for _, ev := range r.Evidence {
		for _, l := range ev.Lines {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

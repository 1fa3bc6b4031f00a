package dynamips

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"nodedesk/app"
)

// Idle-PC: the address of the loop IOS runs when it has nothing to do.
// Told it, Dynamips sleeps there instead of spinning a CPU core. Values
// are found on a running router, as gns3-server finds them: Dynamips
// samples the PCs it runs (vm get_idle_pc_prop, about 10 s) and proposes
// the most frequent; the automatic search tries each for a few seconds
// and keeps the first that brings the router's CPU use under 70%.

// idlePCValue is the address part of a proposal. gns3-server tries only
// 8-digit values; nodedesk takes Dynamips' 16-digit sign-extended ones
// too (a router running from kseg0, as the stand-in image does, has
// 0xffffffff8xxxxxxx), which Dynamips matches just the same.
var idlePCValue = regexp.MustCompile(`^0x([0-9a-f]{8}|[0-9a-f]{16})$`)

// probeTime is how long each proposal is tried; gns3-server's 3 s.
var probeTime = 3 * time.Second

// IdlePCProposals returns the idle-PC proposals of a running router,
// best first, as Dynamips gives them ("0x<address> [<hits>]"). As
// gns3-server does, the router's idle PC is cleared first, so that the
// sampling sees its busy loop.
func (r *Runner) IdlePCProposals(nodeID string) ([]string, error) {
	rt, err := r.get(nodeID)
	if err != nil {
		return nil, err
	}
	name := quote(rt.p.Name)
	if _, err := rt.hv.send(10*time.Second, "vm set_idle_pc_online %s 0 0x0", name); err != nil {
		return nil, app.Errorf(app.ECONFLICT, "The idle PC of %s could not be cleared: %v", rt.p.Name, err)
	}
	props, err := rt.hv.send(60*time.Second, "vm get_idle_pc_prop %s 0", name)
	if err != nil {
		return nil, app.Errorf(app.ECONFLICT, "Dynamips could not sample the idle PC of %s: %v", rt.p.Name, err)
	}
	if props == nil {
		props = []string{}
	}
	return props, nil
}

// AutoIdlePC finds an idle-PC value for a running router and leaves it
// running with it: each proposal is set and the router's CPU use
// measured over probeTime; the first under 70% is the answer.
func (r *Runner) AutoIdlePC(nodeID string) (string, error) {
	props, err := r.IdlePCProposals(nodeID)
	if err != nil {
		return "", err
	}
	rt, err := r.get(nodeID)
	if err != nil {
		return "", err
	}
	if len(props) == 0 {
		return "", app.Errorf(app.ECONFLICT, "Dynamips found no idle-PC values for %s; let IOS boot fully (the prompt shown), then try again", rt.p.Name)
	}
	name := quote(rt.p.Name)
	for _, prop := range props {
		v, _, _ := strings.Cut(prop, " ")
		if !idlePCValue.MatchString(v) {
			continue
		}
		if _, err := rt.hv.send(10*time.Second, "vm set_idle_pc_online %s 0 %s", name, v); err != nil {
			return "", app.Errorf(app.ECONFLICT, "The idle PC of %s could not be set: %v", rt.p.Name, err)
		}
		before, err := cpuTicks(rt.cmd.Process.Pid)
		if err != nil {
			return "", app.Errorf(app.ECONFLICT, "%s is no longer running", rt.p.Name)
		}
		start := time.Now()
		time.Sleep(probeTime)
		after, err := cpuTicks(rt.cmd.Process.Pid)
		if err != nil {
			return "", app.Errorf(app.ECONFLICT, "%s is no longer running", rt.p.Name)
		}
		if usage := float64(after-before) / clockTicks / time.Since(start).Seconds() * 100; usage < 70 {
			return v, nil
		}
	}
	_, _ = rt.hv.send(10*time.Second, "vm set_idle_pc_online %s 0 0x0", name)
	return "", app.Errorf(app.ECONFLICT, "None of the %d idle-PC values Dynamips proposed brings the CPU use of %s under 70%%; try again once IOS is idle at its prompt", len(props), rt.p.Name)
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/<pid>/stat's
// times (100 on Linux).
const clockTicks = 100

// cpuTicks is the CPU time (user + system) a process has used, in ticks.
func cpuTicks(pid int) (uint64, error) {
	f, err := statFields(pid)
	if err != nil || len(f) < 13 {
		return 0, err
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64) // utime, field 14
	s, err2 := strconv.ParseUint(f[12], 10, 64) // stime, field 15
	if err1 != nil || err2 != nil {
		return 0, strconv.ErrSyntax
	}
	return u + s, nil
}

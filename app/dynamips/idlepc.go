package dynamips

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"nodedesk/app"
	"nodedesk/app/procrecord"
)

// Idle-PC: the address of the loop IOS runs when it has nothing to do.
// Told it, Dynamips sleeps there instead of spinning a CPU core. Values
// are found on a running router, as gns3-server finds them: Dynamips
// samples the PCs it runs (vm get_idle_pc_prop, about 10 s) and proposes
// the most frequent; the automatic search tries each for a few seconds
// and keeps the first that brings the router's CPU use under 70%.

// idlePCValue is the address part of a proposal that can be kept: an
// 8-digit value once shownIdlePC has dropped a sign extension, as
// gns3-server tries (and the GNS3 GUI's idle-PC fields take) only those.
var idlePCValue = regexp.MustCompile(`^0x[0-9a-f]{8}$`)

// Idle-PC values as users keep them and as Dynamips compares them: GNS3
// keeps 32-bit addresses of 8 digits. Dynamips' MIPS routers compare the
// 64-bit, sign-extended PC, so an address at or above 0x80000000 (kseg0,
// where the stand-in image idles) reaches it as 0xffffffff8…, and comes
// back from it so in proposals; the PowerPC routers (c1700, c2600) are
// 32-bit.

// hypervisorIdlePC is the kept value v as Dynamips compares it on a
// router of platform.
func hypervisorIdlePC(platform, v string) string {
	if platform == "c1700" || platform == "c2600" {
		return v
	}
	a, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(v), "0x"), 16, 64)
	if err != nil || len(v) != 10 || a < 0x80000000 {
		return v
	}
	return fmt.Sprintf("0x%016x", a|0xffffffff00000000)
}

// shownIdlePC is a PC Dynamips gives as users keep it: a sign-extended
// 32-bit address in its 8 digits.
func shownIdlePC(v string) string {
	l := strings.ToLower(v)
	if len(l) == 18 && strings.HasPrefix(l, "0xffffffff") && l[10] >= '8' {
		return "0x" + l[10:]
	}
	return v
}

// probeTime is how long each proposal is tried; gns3-server's 3 s.
var probeTime = 3 * time.Second

// IdlePCProposals returns the idle-PC proposals of a running router,
// best first, as Dynamips gives them ("0x<address> [<hits>]"). As
// gns3-server does, the router's idle PC is cleared first, so that the
// sampling sees its busy loop; unlike it, the router then gets back the
// value it ran with (the GNS3 GUI sends none when the user keeps it, and
// the router would spin a core).
func (r *Runner) IdlePCProposals(nodeID string) ([]string, error) {
	rt, err := r.get(nodeID)
	if err != nil {
		return nil, err
	}
	props, err := rt.sampleIdlePCs()
	if rt.s.IdlePC != "" { // the router idles again with the value it runs with
		_ = rt.idleOnline(rt.s.IdlePC)
	}
	return props, err
}

// sampleIdlePCs clears the running router's idle PC and has Dynamips
// sample the PCs it runs; the router is left without an idle PC.
func (rt *router) sampleIdlePCs() ([]string, error) {
	if err := rt.idleOnline(""); err != nil {
		return nil, app.Errorf(app.ECONFLICT, "The idle PC of %s could not be cleared: %v", rt.p.Name, err)
	}
	props, err := rt.hv.send(60*time.Second, "vm get_idle_pc_prop %s 0", quote(rt.p.Name))
	if err != nil {
		return nil, app.Errorf(app.ECONFLICT, "Dynamips could not sample the idle PC of %s: %v", rt.p.Name, err)
	}
	shown := make([]string, 0, len(props))
	for _, prop := range props {
		v, hits, _ := strings.Cut(prop, " ")
		shown = append(shown, strings.TrimSpace(shownIdlePC(v)+" "+hits))
	}
	return shown, nil
}

// minBusy is the least share of a core a router must use without an idle
// PC for a search to judge values by it: IOS without one spins a core; a
// suspended router, whose PC never moves, uses almost none, and any value
// would seem to halve it.
const minBusy = 0.2

// AutoIdlePC finds an idle-PC value for a running router and leaves it
// running with it: the router's CPU use is measured over probeTime
// without an idle PC (its own one removed too), then with each proposal;
// the first that brings it under 70% of a core, as gns3-server asks, and
// under half of what the router used without one (so that a machine too
// busy to give the router a core does not pass any value) is the answer.
// When none is found, or anything fails midway, the router gets back
// the idle PC it ran with, so that Dynamips and the node agree.
func (r *Runner) AutoIdlePC(nodeID string) (string, error) {
	rt, err := r.get(nodeID)
	if err != nil {
		return "", err
	}
	return rt.autoIdlePC()
}

// autoIdlePC is AutoIdlePC's search on the router.
func (rt *router) autoIdlePC() (found string, err error) {
	kept := rt.s.IdlePC
	defer func() {
		if err != nil {
			if rerr := rt.idleOnline(kept); rerr != nil && kept != "" {
				err = app.Errorf(app.ECONFLICT, "%v; and its idle PC %s could not be given back: %v", err, kept, rerr)
			}
		}
	}()
	props, err := rt.sampleIdlePCs()
	if err != nil {
		return "", err
	}
	if len(props) == 0 {
		return "", app.Errorf(app.ECONFLICT, "Dynamips found no idle-PC values for %s; let IOS boot fully (the prompt shown), then try again", rt.p.Name)
	}
	busy, err := cpuShare(rt.cmd.Process.Pid, probeTime)
	if err != nil {
		return "", app.Errorf(app.ECONFLICT, "%s is no longer running", rt.p.Name)
	}
	if busy < minBusy {
		return "", app.Errorf(app.ECONFLICT, "%s used only %.0f%% of a core without an idle PC, so no value can be judged by what it saves; it may be suspended: resume it, let IOS reach its prompt, then try again", rt.p.Name, busy*100)
	}
	for _, prop := range props {
		v, _, _ := strings.Cut(prop, " ")
		if !idlePCValue.MatchString(v) {
			continue
		}
		if err := rt.idleOnline(v); err != nil {
			return "", app.Errorf(app.ECONFLICT, "The idle PC of %s could not be set: %v", rt.p.Name, err)
		}
		use, err := cpuShare(rt.cmd.Process.Pid, probeTime)
		if err != nil {
			return "", app.Errorf(app.ECONFLICT, "%s is no longer running", rt.p.Name)
		}
		if use < 0.7 && use < busy/2 {
			rt.s.IdlePC = v // what it runs with now (the Service keeps it too)
			return v, nil
		}
	}
	return "", app.Errorf(app.ECONFLICT, "None of the %d idle-PC values Dynamips proposed brings the CPU use of %s down; try again once IOS is idle at its prompt", len(props), rt.p.Name)
}

// Tune gives a running router the idle-PC settings it was changed to,
// as gns3-server does while a router runs (router.py: set_idle_pc_online,
// set_idle_max, set_idle_sleep_time), so that a value typed in its panel
// stops it spinning a core at once. Its other settings wait for its next
// start. A router that does not run has nothing to tune.
func (r *Runner) Tune(nodeID string, props map[string]json.RawMessage) error {
	rt, err := r.get(nodeID)
	if err != nil {
		return nil
	}
	want, err := readSettings(props)
	if err != nil {
		return err
	}
	name := quote(rt.p.Name)
	if want.IdlePC != rt.s.IdlePC {
		if err := rt.idleOnline(want.IdlePC); err != nil {
			return fmt.Errorf("Dynamips refused idle PC %s: %v", want.IdlePC, err)
		}
		rt.s.IdlePC = want.IdlePC
	}
	if want.IdleMax != rt.s.IdleMax {
		if _, err := rt.hv.send(10*time.Second, "vm set_idle_max %s 0 %d", name, want.IdleMax); err != nil {
			return fmt.Errorf("Dynamips refused idle max %d: %v", want.IdleMax, err)
		}
		rt.s.IdleMax = want.IdleMax
	}
	if want.IdleSleep != rt.s.IdleSleep {
		if _, err := rt.hv.send(10*time.Second, "vm set_idle_sleep_time %s 0 %d", name, want.IdleSleep); err != nil {
			return fmt.Errorf("Dynamips refused idle sleep %d ms: %v", want.IdleSleep, err)
		}
		rt.s.IdleSleep = want.IdleSleep
	}
	return nil
}

// idleOnline gives the running router idle PC v (as users keep it; "":
// none, and the router spins again).
func (rt *router) idleOnline(v string) error {
	hv := "0x0"
	if v != "" {
		hv = hypervisorIdlePC(rt.s.Platform, v)
	}
	_, err := rt.hv.send(10*time.Second, "vm set_idle_pc_online %s 0 %s", quote(rt.p.Name), hv)
	return err
}

// cpuShare is the share of one core process pid uses over d.
func cpuShare(pid int, d time.Duration) (float64, error) {
	before, err := cpuTicks(pid)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	time.Sleep(d)
	after, err := cpuTicks(pid)
	if err != nil {
		return 0, err
	}
	return float64(after-before) / clockTicks / time.Since(start).Seconds(), nil
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/<pid>/stat's
// times (100 on Linux).
const clockTicks = 100

// cpuTicks is the CPU time (user + system) a process has used, in ticks.
func cpuTicks(pid int) (uint64, error) {
	f, err := procrecord.StatFields(pid)
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

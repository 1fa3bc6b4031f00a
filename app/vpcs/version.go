package vpcs

import (
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"time"
)

// versionRE finds the version in the banner `vpcs -v` prints.
var versionRE = regexp.MustCompile(`version (\d+)\.(\d+)`)

// relayOff reports whether a VPCS banner names a version that can turn off
// its relay (option -R, from 0.8 on). The relay is a second UDP socket at
// the -s port + 9 that nodedesk never allocated: off, VPCS binds only the
// port it was given.
func relayOff(banner string) bool {
	m := versionRE.FindStringSubmatch(banner)
	if m == nil {
		return false
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	return major > 0 || minor >= 8
}

// versionWait bounds `vpcs -v`.
const versionWait = 5 * time.Second

// canTurnOffRelay asks the simulator at bin, once, whether it takes -R.
func (r *Runner) canTurnOffRelay(bin string) bool {
	r.mu.Lock()
	v, ok := r.relayOff[bin]
	r.mu.Unlock()
	if ok {
		return v
	}
	ctx, cancel := context.WithTimeout(context.Background(), versionWait)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "-v").Output()
	v = err == nil && relayOff(string(out))
	if err == nil { // a failure is asked again at the next start
		r.mu.Lock()
		r.relayOff[bin] = v
		r.mu.Unlock()
	}
	return v
}

package docker

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// A lab's container gets every capability this machine allows: routers
// set addresses and routes, capture, mount, tune the kernel's network
// settings. GNS3 runs its containers privileged, which fails where the
// host's bounding set lacks a capability (CAP_SYS_RESOURCE in some
// sandboxes): nodedesk asks for each capability of the bounding set by
// name instead.

// capNames are the capabilities by number (linux/capability.h).
var capNames = [...]string{
	"CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID",
	"SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN", "NET_RAW",
	"IPC_LOCK", "IPC_OWNER", "SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT",
	"SYS_ADMIN", "SYS_BOOT", "SYS_NICE", "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD",
	"LEASE", "AUDIT_WRITE", "AUDIT_CONTROL", "SETFCAP", "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG",
	"WAKE_ALARM", "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF", "CHECKPOINT_RESTORE",
}

// capNetAdmin is CAP_NET_ADMIN's number: what a container needs for its
// interfaces, and nodedesk to make them.
const capNetAdmin = 12

// capSet reads a capability set of this process (CapBnd, CapEff) from
// /proc/self/status.
func capSet(field string) (uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	return 0, fmt.Errorf("/proc/self/status has no %s", field)
}

// labCaps splits the capabilities nodedesk knows into those of the
// bounding set bnd (asked for) and the others (the host refuses them).
func labCaps(bnd uint64) (asked, refused []string) {
	for i, name := range capNames {
		if bnd&(1<<uint(i)) != 0 {
			asked = append(asked, "CAP_"+name)
		} else {
			refused = append(refused, "CAP_"+name)
		}
	}
	return asked, refused
}

// unknownCap finds the capability an engine does not know in its refusal
// of a container ("invalid CapAdd: unknown capability: \"CAP_BPF\"": an
// engine older than the kernel).
var unknownCap = regexp.MustCompile(`unknown capability: "?(CAP_[A-Z_]+)"?`)

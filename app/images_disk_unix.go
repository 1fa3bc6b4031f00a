//go:build linux || darwin || freebsd

package app

import "syscall"

// diskFree is the space of dir's disk that an unprivileged writer may use,
// in bytes; ok is false when it cannot be read.
func diskFree(dir string) (free uint64, ok bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}

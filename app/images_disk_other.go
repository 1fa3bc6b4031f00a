//go:build !(linux || darwin || freebsd)

package app

// diskFree cannot read the free space of a disk on this system: uploads
// are bounded by MaxImageBytes and by the disk's own refusal.
func diskFree(dir string) (free uint64, ok bool) { return 0, false }

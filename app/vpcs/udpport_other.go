//go:build !linux

package vpcs

// holdsUDP cannot tell without Linux's /proc: known is false.
func holdsUDP(pid, port int) (held, known bool) { return false, false }

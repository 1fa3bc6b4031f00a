package app

import "strings"

// HostInterfaceOf is the one rule of a host interface's type and
// specialness, as a cloud node shows it: loopback is special, a tap device
// is of type tap. Package app/hostnet reads the machine's interfaces
// through it.
func HostInterfaceOf(name string, loopback bool) HostInterface {
	t := "ethernet"
	if strings.HasPrefix(name, "tap") {
		t = "tap"
	}
	return HostInterface{Name: name, Special: loopback, Type: t}
}

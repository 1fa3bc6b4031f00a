package app

import (
	"net"
	"strings"
)

// SystemInterfaces lists this machine's network interfaces as a cloud node
// shows them: loopback is "special", tap devices are of type tap.
func SystemInterfaces() []HostInterface {
	ifaces, err := net.Interfaces()
	if err != nil {
		return []HostInterface{}
	}
	out := make([]HostInterface, 0, len(ifaces))
	for _, i := range ifaces {
		t := "ethernet"
		if strings.HasPrefix(i.Name, "tap") {
			t = "tap"
		}
		out = append(out, HostInterface{Name: i.Name, Special: i.Flags&net.FlagLoopback != 0, Type: t})
	}
	return out
}

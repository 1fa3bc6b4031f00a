package app

import (
	"os"
	"path/filepath"
)

// GrantNetworkHint is the sentence that tells the user how to give
// nodedesk's binary the network privileges host ports and container
// interfaces need (CAP_NET_RAW, CAP_NET_ADMIN), naming the binary as
// setcap wants it: its real path, not a symbolic link.
func GrantNetworkHint() string {
	exe, err := os.Executable()
	if err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r // setcap refuses a symbolic link
		}
	} else {
		exe = "/path/to/nodedesk"
	}
	return "Grant it once with: sudo setcap cap_net_raw,cap_net_admin+ep " + exe +
		" — then restart nodedesk (run it again after each rebuild or copy of the binary)"
}

package docker

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/vishvananda/netlink"

	"nodedesk/app"
)

// Each adapter of a running node is a veth pair: its host end, named
// app.VethName, stays in nodedesk's namespace, where the data plane reads
// and writes its frames; its peer is made directly inside the
// container's network namespace as eth<n>, with the adapter's MAC
// address. Making a pair with one end in another namespace needs
// CAP_NET_ADMIN only (no setns, no access to the container's files).

// addrGenModeNone is the kernel's IN6_ADDR_GEN_MODE_NONE.
const addrGenModeNone = 1

// errNoNetAdmin is the refusal to start a node whose interfaces nodedesk
// may not make.
func errNoNetAdmin(name string) error {
	return app.Errorf(app.ECONFLICT, "%s needs CAP_NET_ADMIN to give its container its interfaces, and nodedesk runs without it. %s",
		name, app.GrantNetworkHint())
}

// haveNetAdmin reports whether this process may make interfaces.
func haveNetAdmin() bool {
	eff, err := capSet("CapEff")
	return err == nil && eff&(1<<capNetAdmin) != 0
}

// addVeth makes adapter i's pair: host on this side, up; eth<i> inside
// the namespace of process pid, with mac (down: the container's init
// sets it up).
func addVeth(host string, i, pid int, mac net.HardwareAddr) error {
	deleteLink(host) // left by a nodedesk that was killed
	la := netlink.NewLinkAttrs()
	la.Name = host
	v := &netlink.Veth{LinkAttrs: la, PeerName: fmt.Sprintf("eth%d", i),
		PeerNamespace: netlink.NsPid(pid), PeerHardwareAddr: mac}
	if err := netlink.LinkAdd(v); err != nil {
		return err
	}
	link, err := netlink.LinkByName(host)
	if err != nil {
		return err
	}
	// No IPv6 link-local address: this machine then sends nothing on
	// the lab's wire by itself.
	_ = netlink.LinkSetIP6AddrGenMode(link, addrGenModeNone)
	return netlink.LinkSetUp(link)
}

// deleteLink deletes an interface of this namespace, if it exists.
func deleteLink(name string) {
	if link, err := netlink.LinkByName(name); err == nil {
		_ = netlink.LinkDel(link)
	}
}

// linkExists reports whether an interface of this namespace exists.
func linkExists(name string) bool {
	_, err := netlink.LinkByName(name)
	return err == nil
}

// isPermission reports whether err is the kernel's refusal for want of
// privilege.
func isPermission(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES)
}

package iou

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// xmlCiscoCom is the host name IOU images look up at start to report
// their use ("phone home").
const xmlCiscoCom = "xml.cisco.com"

// The IOL-XE (IOS XE 17.x) images: Cisco ships them as
// x86_64_crb_linux-adventerprisek9-ms.iol (router) and
// x86_64_crb_linux_l2-adventerprisek9-ms.iol (switch), and users rename
// them with the version: "...ms.17.16.1a.iol", "l2-adventerprisek9-ms-17.15.01.bin".
// The older IOU images (IOS 15.x) are i86bi-linux-l2-... and i86bi_LinuxL2-....
var (
	iolXEName      = regexp.MustCompile(`crb[_-]linux|iol(l2)?[_-]xe|(^|[^0-9])17[._-][0-9]`)
	iolSwitchName  = regexp.MustCompile(`(^|[^a-z0-9]|linux|iol)l2([^a-z0-9]|$)`)
	xmlLookupLimit = 3 * time.Second
)

// CheckXMLCiscoCom catches the host setting that kills IOL-XE 17.x switch
// images at once: when xml.cisco.com resolves to any address (a line in
// /etc/hosts such as "127.0.0.127 xml.cisco.com", added to stop IOU's
// phone-home, is the usual cause), those images abort (SIGABRT, signal 6)
// before they print anything; GNS3 shows "return code: -6". The 17.x
// router images and the older 15.x images start either way. The image is
// told by its file name (image: its path or name); lookup resolves a host
// name (nil: the system resolver, for at most 3 s). It returns nil when
// the image is not such a switch or the name does not resolve.
func CheckXMLCiscoCom(image string, lookup func(host string) ([]string, error)) error {
	name := strings.ToLower(filepath.Base(image))
	if !iolXEName.MatchString(name) || !iolSwitchName.MatchString(name) {
		return nil
	}
	if lookup == nil {
		lookup = func(host string) ([]string, error) {
			ctx, cancel := context.WithTimeout(context.Background(), xmlLookupLimit)
			defer cancel()
			return net.DefaultResolver.LookupHost(ctx, host)
		}
	}
	addrs, err := lookup(xmlCiscoCom)
	if err != nil || len(addrs) == 0 {
		return nil
	}
	return fmt.Errorf("IOU image %s looks like an IOL-XE 17.x switch (L2) image, and those abort at start, before printing anything "+
		"(SIGABRT, signal 6), when the host name %s resolves; on this machine it resolves to %s. "+
		"Remove the %s line from /etc/hosts (as root: sed -i '/xml\\.cisco\\.com/d' /etc/hosts), or the entry in your local DNS "+
		"that answers for it, so that the name does not resolve at all: any address, 127.0.0.127 or 127.0.0.1 included, "+
		"makes these images abort, while the 17.x router images and the older 15.x images need no such entry",
		filepath.Base(image), xmlCiscoCom, strings.Join(addrs, ", "), xmlCiscoCom)
}

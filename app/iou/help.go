package iou

import (
	"regexp"
	"strconv"
	"strings"
)

// The two lines of "<image> -h" that give an image's defaults. GNS3 2.2
// matches them the same way (update_default_iou_values in iou_vm.py); \v is
// spelled out because Python's \s takes it and Go's does not.
var (
	helpNVRAM = regexp.MustCompile(`-n <n>[\t\n\v\f\r ]+Size of nvram in Kb \(default ([0-9]+)KB\)`)
	helpRAM   = regexp.MustCompile(`-m <n>[\t\n\v\f\r ]+Megabytes of router memory \(default ([0-9]+)MB\)`)
)

// DefaultsFromHelp reads the default NVRAM size (KB) and RAM (MB) from what
// an IOU image prints on stderr when run with -h, as GNS3 2.2 does when a
// node is created without them or uses the image's defaults. Real images
// and the stand-in print lines such as
//
//	-n <n>        Size of nvram in Kb (default 64KB)
//	-m <n>        Megabytes of router memory (default 256MB)
//
// Each value is 0 when its line is absent or its number does not fit in an
// int; the caller then keeps its own setting. Bytes that are not UTF-8 are
// dropped first, as GNS3 does when it decodes the output.
func DefaultsFromHelp(stderr string) (nvramKB, ramMB int) {
	s := strings.ToValidUTF8(stderr, "")
	return helpNumber(helpNVRAM, s), helpNumber(helpRAM, s)
}

func helpNumber(re *regexp.Regexp, s string) int {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0
	}
	return n
}

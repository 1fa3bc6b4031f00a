package qemu

import "context"

// ProbeKVM is replaced by the images branch's probe (accel.go).
func ProbeKVM(ctx context.Context, binary string) (bool, string) { return false, "KVM not probed" }

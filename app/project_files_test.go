package app

import "testing"

func TestClientPath(t *testing.T) {
	for _, c := range []struct {
		give, want string
		wantCode   Code
	}{
		{give: "startup.vpc", want: "startup.vpc"},
		{give: "./startup.vpc", want: "startup.vpc"},
		{give: `configs\startup.vpc`, want: "configs/startup.vpc"},
		{give: "a/../b.txt", want: "b.txt"},
		{give: "a//b.txt", want: "a/b.txt"},
		{give: "", wantCode: EINVALID},
		{give: "a\x00b", wantCode: EINVALID},
		{give: "\xff", wantCode: EINVALID},
		{give: "/etc/passwd", wantCode: EFORBIDDEN},
		{give: `\etc\passwd`, wantCode: EFORBIDDEN},
		{give: "..", wantCode: EFORBIDDEN},
		{give: "../x", wantCode: EFORBIDDEN},
		{give: `a\..\..\x`, wantCode: EFORBIDDEN},
		{give: ".", wantCode: EFORBIDDEN},
		{give: ".vpcs_history", wantCode: EFORBIDDEN},
		{give: "a/.hidden", wantCode: EFORBIDDEN},
	} {
		got, err := clientPath(c.give, nodeFolderName)
		if ErrorCode(err) != c.wantCode || got != c.want {
			t.Errorf("clientPath(%q) = %q, %v; want %q, code %q", c.give, got, err, c.want, c.wantCode)
		}
	}
}

// TestExportable holds GNS3's rule of what an export (and a snapshot's
// copy of the files) leaves out.
func TestExportable(t *testing.T) {
	for _, c := range []struct {
		give          string
		withSnapshots bool
		want          bool
	}{
		{give: "README.txt", want: true},
		{give: "project-files/vpcs/x/startup.vpc", want: true},
		{give: "project-files/captures/a.pcap"},
		{give: "project-files/tmp/x"},
		{give: "project-files/qemu/x/qemu_log.txt"},
		{give: "project-files/dynamips/x/c7200_i1_log.log"},
		{give: "project-files/images/.DS_Store"},
		{give: "snapshots/s_010125_101010.gns3project"},
		{give: "snapshots/s_010125_101010.gns3project", withSnapshots: true, want: true},
		{give: "project-files/snapshots/x"},
		{give: "project-files/snapshots/x", withSnapshots: true, want: true},
		{give: "project-files/qemu/x/snapshots/y"},
		// A router's scratch files are made again at its next start; its
		// NVRAM, flash, disk and configs are the user's.
		{give: "project-files/dynamips/c7200-adv.image-512.ghost"},
		{give: "project-files/dynamips/x/ilt_2023010200_mips64e"},
		{give: "project-files/dynamips/x/c7200_i1_ram"},
		{give: "project-files/dynamips/x/c3745_i1_rom"},
		{give: "project-files/dynamips/x/c7200_i1_lock"},
		{give: "project-files/dynamips/x/c7200_i1_nvram", want: true},
		{give: "project-files/dynamips/x/c7200_i1_bootflash", want: true},
		{give: "project-files/dynamips/x/c7200_i1_disk0", want: true},
		{give: "project-files/dynamips/x/configs/i1_startup-config.cfg", want: true},
		{give: "project-files/qemu/x/disk.ghost", want: true},
	} {
		if got := Exportable(c.give, c.withSnapshots); got != c.want {
			t.Errorf("Exportable(%q, %v) = %v, want %v", c.give, c.withSnapshots, got, c.want)
		}
	}
}

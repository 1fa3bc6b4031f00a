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

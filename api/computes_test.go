package api

import (
	"net"
	"strconv"
	"strings"
	"testing"

	"nodedesk/app"
)

// TestComputes_Rules: adding, renaming and removing a remote compute over
// a real listener, with GNS3's refusals — an unknown field, the reserved
// ids, a name already used by a remote compute or by this machine's own
// compute. The compute's port has nothing listening, so it stays not
// connected, and nothing waits for it.
func TestComputes_Rules(t *testing.T) {
	ts := mustOpenServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // a closed port: the compute cannot be reached

	c := ts.Do("POST", "/v2/computes", map[string]any{"protocol": "http", "host": "127.0.0.1", "port": port}).Want(t, 201).JSON(t)
	id, _ := c["compute_id"].(string)
	if id == "" || c["name"] != "http://127.0.0.1:"+strconv.Itoa(port) || c["password"] != nil {
		t.Errorf("new compute %v: want an id, GNS3's default name and no password", c)
	}
	for _, tc := range []struct {
		body  map[string]any
		code  int
		field string
		says  string
	}{
		{map[string]any{"protocol": "http", "host": "127.0.0.1", "port": port, "colour": "red"}, 400, "colour", ""},
		{map[string]any{"protocol": "gopher", "host": "127.0.0.1", "port": port}, 400, "protocol", ""},
		{map[string]any{"compute_id": "local", "protocol": "http", "host": "127.0.0.1", "port": port}, 409, "compute_id", ""},
		{map[string]any{"protocol": "http", "host": "127.0.0.1", "port": port, "name": c["name"]}, 409, "name", "already exists"},
		{map[string]any{"protocol": "http", "host": "127.0.0.1", "port": port, "name": app.LocalComputeName()}, 409, "name", "this machine's own compute"},
	} {
		e := ts.Do("POST", "/v2/computes", tc.body).Want(t, tc.code).JSON(t)
		if e["field"] != tc.field || !strings.Contains(e["message"].(string), tc.says) {
			t.Errorf("POST %v: %v, want field %s saying %q", tc.body, e, tc.field, tc.says)
		}
	}

	list := ts.Do("GET", "/v2/computes", nil).Want(t, 200).List(t)
	if len(list) != 2 || list[0]["compute_id"] != "local" || list[1]["compute_id"] != id || list[1]["connected"] != false {
		t.Errorf("computes %v: want local, then the new one not connected", list)
	}
	if r := ts.Do("PUT", "/v2/computes/"+id, map[string]any{"name": "lab2"}).Want(t, 200).JSON(t); r["name"] != "lab2" {
		t.Errorf("renamed: %v", r)
	}
	ts.Do("PUT", "/v2/computes/local", map[string]any{"name": "x"}).Want(t, 409)
	// What a GNS3 controller forwards to a compute: refused at once, saying
	// why, while the compute is not connected; answered for local.
	for _, path := range []string{"/ports", "/network/interfaces", "/qemu/images", "/qemu/binaries"} {
		e := ts.Do("GET", "/v2/computes/"+id+path, nil).Want(t, 409).JSON(t)
		if msg, _ := e["message"].(string); !strings.Contains(msg, "unreachable") || !strings.Contains(msg, "lab2") {
			t.Errorf("GET %s of a compute not connected: %v, want 409 naming it unreachable", path, e)
		}
		ts.Do("GET", "/v2/computes/nope"+path, nil).Want(t, 404)
		ts.Do("GET", "/v2/computes/local"+path, nil).Want(t, 200) // qemu/binaries too, since issue 22
	}
	ts.Do("DELETE", "/v2/computes/"+id, nil).Want(t, 204)
	ts.Do("GET", "/v2/computes/"+id, nil).Want(t, 404)
}

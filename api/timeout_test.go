package api

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestSlowClients: a client that sends its headers too slowly is cut off.
func TestSlowClients(t *testing.T) {
	ts := mustOpenServerWith(t, testOptions{timeouts: Timeouts{ReadHeader: 300 * time.Millisecond, Read: time.Second}})
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /v2/version HTTP/1.1\r\nHost: %s\r\n", strings.TrimPrefix(ts.URL, "http://"))
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(conn); err != nil {
		t.Fatalf("the server kept a slow client: %v", err)
	}
	// A normal client still gets through.
	ts.Do("GET", "/v2/version", nil).Want(t, 200)
}

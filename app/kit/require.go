package kit

import (
	"fmt"
	"os"
	"testing"
)

// RequireLabs is the environment variable that says this machine must run
// every test that needs its privileges or devices (root, /dev/net/tun, a
// tmpfs, dockerd, io_uring): make test sets it to 1 when it runs as root
// with /dev/net/tun.
const RequireLabs = "NODEDESK_REQUIRE_LABS"

// Unavailable ends a test that this machine cannot run, saying why
// (format, args: what is missing and how to provide it). It skips the
// test, visibly; where RequireLabs is 1 it fails it instead, so that a
// machine that should run the test never passes by skipping it.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	why := fmt.Sprintf(format, args...)
	if os.Getenv(RequireLabs) == "1" {
		t.Fatalf("cannot run here, and %s=1 says this machine must: %s (%s=0 allows such skips)", RequireLabs, why, RequireLabs)
	}
	t.Skip("SKIPPED: " + why)
}

// ElsewhereMark begins the reason of every RunElsewhere skip, so that the
// closing skip list of make test (scripts/testskips) can set them apart.
const ElsewhereMark = "RUN ELSEWHERE: "

// RunElsewhere skips a Test function that is not one of this run's tests:
// a child process's entry, which its parent test runs in a process of
// its own, or a benchmark that make bench runs. why says which. The skip
// stays visible: make test's skip list shows it apart from the others.
func RunElsewhere(t testing.TB, why string) {
	t.Helper()
	t.Skip(ElsewhereMark + why)
}

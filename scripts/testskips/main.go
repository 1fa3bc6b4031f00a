// Command testskips prints the list of skipped tests that ends make test's
// log: every Go test skipped in the go test -json streams it is given
// (gotestsum --jsonfile files), by package and name with the reason it
// gave, and every node:test test skipped in the TAP files it is given
// (the browser tests' report). It exits 0: a skip that must not happen
// fails its own test (kit.Unavailable); this list makes the others seen.
//
// Usage: testskips FILE.json|FILE.tap ...
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"

	"gotest.tools/gotestsum/testjson"
)

func main() {
	var skips []string
	for _, f := range os.Args[1:] {
		var got []string
		var err error
		if strings.HasSuffix(f, ".tap") {
			got, err = tapSkips(f)
		} else {
			got, err = goSkips(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "testskips: %s: %v\n", f, err)
			os.Exit(2)
		}
		skips = append(skips, got...)
	}
	var elsewhere, others []string
	for _, s := range skips {
		if strings.Contains(s, elsewhereMark) {
			elsewhere = append(elsewhere, s)
		} else {
			others = append(others, s)
		}
	}
	fmt.Printf("\nNot tests of this run (child processes, benchmarks: kit.RunElsewhere): %d\n", len(elsewhere))
	for _, s := range elsewhere {
		fmt.Println(s)
	}
	fmt.Printf("\nSkipped tests: %d\n", len(others))
	for _, s := range others {
		fmt.Println(s)
	}
}

// elsewhereMark is kit.ElsewhereMark (kit is for tests; this command
// does not import it).
const elsewhereMark = "RUN ELSEWHERE: "

// goSkips lists the skipped tests of a go test -json stream, each with
// the lines it printed (its t.Skip reason among them).
func goSkips(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	exec, err := testjson.ScanTestOutput(testjson.ScanConfig{Stdout: f, IgnoreNonJSONOutputLines: true, Handler: quiet{}})
	if err != nil {
		return nil, err
	}
	var skips []string
	for _, tc := range exec.Skipped() {
		s := "  " + tc.Package + " " + tc.Test.Name()
		for _, line := range exec.Package(tc.Package).OutputLines(tc) {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "=== ") && !strings.HasPrefix(t, "--- SKIP") {
				s += "\n      " + t
			}
		}
		skips = append(skips, s)
	}
	return skips, nil
}

// quiet is a scan handler that prints nothing: the stream was printed
// when it ran.
type quiet struct{}

func (quiet) Event(testjson.TestEvent, *testjson.Execution) error { return nil }
func (quiet) Err(string) error                                    { return nil }

var (
	tapSubtest = regexp.MustCompile(`^(\s*)# Subtest: (.*)$`)
	tapSkip    = regexp.MustCompile(`^(\s*)ok \d+ - (.*) # SKIP(.*)$`)
)

// tapSkips lists the skipped tests of a node:test TAP report, each named
// with the tests it is in.
func tapSkips(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var skips, within []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := tapSubtest.FindStringSubmatch(line); m != nil {
			depth := len(m[1]) / 4
			within = append(within[:min(depth, len(within))], m[2])
		} else if m := tapSkip.FindStringSubmatch(line); m != nil {
			depth := len(m[1]) / 4
			name := strings.Join(append(append([]string{}, within[:min(depth, len(within))]...), m[2]), " > ")
			skips = append(skips, "  e2e "+name+"\n      "+strings.TrimSpace(m[3]))
		}
	}
	return skips, sc.Err()
}

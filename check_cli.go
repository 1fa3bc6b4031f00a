package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"nodedesk/app"
)

// nodedesk check (decision 0070): a lab's checks, for scripts and CI.
// With a .gns3 or .gns3project file, a nodedesk runs in this process on a
// temporary data folder: the lab is imported, opened and started, its
// checks run (or a connectivity check when it has none), and everything
// is stopped and removed. With a project's name or id, the nodedesk
// serving at --listen runs them; when none serves, the --db store is
// opened here and its lab started for the run. Either way the checks run
// through the REST API, as any client's would.

// exitStatus is the exit status of nodedesk check: 0 every check passed,
// 1 a check failed, 2 the lab could not run.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

const (
	exitFailed   exitStatus = 1
	exitCannot   exitStatus = 2
	checkPoll               = 250 * time.Millisecond
	checkRunWait            = 20 * time.Minute // a run's bound (app's is 15 min)
)

// checkCommand runs nodedesk check with args; its error is an
// exitStatus (or flag.ErrHelp) once it has said why.
func checkCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("nodedesk check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	listen := fs.String("listen", "127.0.0.1:3080", "the `host:port` of the nodedesk that keeps PROJECT")
	db := fs.String("db", defaultDB(), "the store `file` to open when no nodedesk serves at --listen")
	fs.Usage = func() {
		fmt.Fprintf(stdout, "Usage: nodedesk check LAB.gns3|LAB.gns3project|PROJECT [--listen ADDR] [--db PATH]\n\n"+
			"Runs a lab's checks (its checks.json; with none, every host pings every other) and prints a line per check.\n"+
			"Exit status: 0 every check passed, 1 a check failed, 2 the lab could not run.\n\n")
		fs.SetOutput(stdout)
		fs.PrintDefaults()
	}
	// Flags may come before or after the lab.
	var lab string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.Usage()
				return err
			}
			fmt.Fprintf(stderr, "nodedesk check: %v; see nodedesk check --help\n", err)
			return exitCannot
		}
		if fs.NArg() == 0 {
			break
		}
		if lab != "" {
			fmt.Fprintf(stderr, "nodedesk check: one lab at a time: %q and %q were given\n", lab, fs.Arg(0))
			return exitCannot
		}
		lab, args = fs.Arg(0), fs.Args()[1:]
	}
	if lab == "" {
		fmt.Fprintln(stderr, "nodedesk check: name a lab: a .gns3 or .gns3project file, or a project of your nodedesk; see nodedesk check --help")
		return exitCannot
	}
	c := &checker{out: stdout, errw: stderr}
	status := c.check(ctx, lab, *listen, *db)
	if status == 0 {
		return nil
	}
	return status
}

// checker is one nodedesk check.
type checker struct {
	out, errw io.Writer
	api       *restClient
	log       *tailLog // the log of a nodedesk run here, shown when the lab could not run
}

// cannot says why the lab could not run, and returns exitCannot.
func (c *checker) cannot(format string, args ...any) exitStatus {
	fmt.Fprintf(c.errw, "nodedesk check: "+format+"\n", args...)
	if c.log != nil && c.log.Len() > 0 {
		fmt.Fprintf(c.errw, "\nnodedesk's log (its last lines):\n%s", c.log.String())
	}
	return exitCannot
}

func isLabFile(s string) bool {
	ext := strings.ToLower(filepath.Ext(s))
	return ext == ".gns3" || ext == ".gns3project"
}

func (c *checker) check(ctx context.Context, lab, listen, db string) exitStatus {
	if isLabFile(lab) {
		tmp, err := os.MkdirTemp("", "nodedesk-check-")
		if err != nil {
			return c.cannot("cannot make a temporary folder: %v", err)
		}
		defer os.RemoveAll(tmp)
		stop, err := c.serveHere(ctx, filepath.Join(tmp, "nodedesk.db"))
		if err != nil {
			return c.cannot("%v", err)
		}
		defer stop()
		pid, err := c.importLab(ctx, lab)
		if err != nil {
			return c.cannot("%s could not be imported: %v", lab, err)
		}
		return c.runLab(ctx, pid, true)
	}
	if c.api = (&restClient{base: "http://" + listen}); c.api.serving(ctx) {
		pid, err := c.findProject(ctx, lab)
		if err != nil {
			return c.cannot("%v", err)
		}
		return c.runLab(ctx, pid, false)
	}
	if _, err := os.Stat(db); err != nil {
		return c.cannot("no nodedesk serves at %s, and its store %s cannot be read (%v): start nodedesk, or give --listen or --db", listen, db, err)
	}
	stop, err := c.serveHere(ctx, db)
	if err != nil {
		return c.cannot("no nodedesk serves at %s, and its store could not be opened here: %v", listen, err)
	}
	defer stop()
	pid, err := c.findProject(ctx, lab)
	if err != nil {
		return c.cannot("%v", err)
	}
	return c.runLab(ctx, pid, true)
}

// serveHere runs a headless nodedesk in this process on the store db, on
// a free loopback port; stop ends it (its nodes stopped).
func (c *checker) serveHere(ctx context.Context, db string) (stop func(), err error) {
	c.log = &tailLog{max: 64 << 10}
	sctx, cancel := context.WithCancel(ctx)
	urls := make(chan string, 1)
	done := make(chan error, 1)
	o := cliOptions{headless: true, listen: "127.0.0.1:0", db: db, udpPorts: app.DefaultUDPPorts}
	go func() { done <- serve(sctx, o, c.log, func(u string) { urls <- u }) }()
	select {
	case u := <-urls:
		c.api = &restClient{base: u}
	case err := <-done:
		cancel()
		if err == nil {
			err = errors.New("nodedesk stopped before it served")
		}
		return nil, err
	case <-ctx.Done():
		cancel()
		<-done
		return nil, ctx.Err()
	}
	return func() {
		cancel()
		<-done
	}, nil
}

// importLab makes a project of a .gns3project (imported) or a .gns3 (loaded,
// with the checks.json beside it), opened; it returns its id.
func (c *checker) importLab(ctx context.Context, lab string) (string, error) {
	abs, err := filepath.Abs(lab)
	if err != nil {
		return "", err
	}
	if strings.EqualFold(filepath.Ext(abs), ".gns3") {
		var p struct {
			ID string `json:"project_id"`
		}
		if err := c.api.do(ctx, "POST", "/v2/projects/load", map[string]string{"path": abs}, &p); err != nil {
			return "", err
		}
		raw, err := os.ReadFile(filepath.Join(filepath.Dir(abs), app.ChecksFileName))
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return "", err
		default:
			if err := c.api.do(ctx, "PUT", "/v2/projects/"+p.ID+"/checks", raw, nil); err != nil {
				return "", fmt.Errorf("its %s: %w", app.ChecksFileName, err)
			}
		}
		return p.ID, nil
	}
	body, err := os.ReadFile(abs)
	if err != nil {
		return "", err
	}
	id := uuid.NewString()
	if err := c.api.do(ctx, "POST", "/v2/projects/"+id+"/import", body, nil); err != nil {
		return "", err
	}
	return id, nil
}

// findProject is the id of the project named (or whose id is) name.
func (c *checker) findProject(ctx context.Context, name string) (string, error) {
	var ps []struct {
		ID   string `json:"project_id"`
		Name string `json:"name"`
	}
	if err := c.api.do(ctx, "GET", "/v2/projects", nil, &ps); err != nil {
		return "", err
	}
	var names []string
	for _, p := range ps {
		if p.ID == name || p.Name == name {
			return p.ID, nil
		}
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		return "", fmt.Errorf("nodedesk at %s keeps no project named %s, nor any other; give a .gns3 or .gns3project file instead", c.api.base, name)
	}
	return "", fmt.Errorf("nodedesk at %s keeps no project named %s; its projects are %s", c.api.base, name, strings.Join(names, ", "))
}

// runLab opens the project, starts its nodes when start says so, runs
// its checks (or connectivity, with none), prints their verdicts, and
// stops what it started.
func (c *checker) runLab(ctx context.Context, pid string, start bool) exitStatus {
	base := "/v2/projects/" + pid
	if err := c.api.do(ctx, "POST", base+"/open", nil, nil); err != nil {
		return c.cannot("the project could not be opened: %v", err)
	}
	if start {
		defer func() { // stopped whatever happened, before the nodedesk here ends
			sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_ = c.api.do(sctx, "POST", base+"/nodes/stop", nil, nil)
		}()
		if err := c.api.do(ctx, "POST", base+"/nodes/start", nil, nil); err != nil {
			return c.cannot("the lab's nodes did not all start: %v", err)
		}
	}
	var f app.CheckFile
	if err := c.api.do(ctx, "GET", base+"/checks", nil, &f); err != nil {
		return c.cannot("the lab's checks could not be read: %v", err)
	}
	req := app.CheckRunRequest{Connectivity: len(f.Checks) == 0}
	if req.Connectivity {
		fmt.Fprintln(c.out, "The lab has no checks.json: checking that every host reaches every other.")
	}
	var run app.CheckRun
	if err := c.api.do(ctx, "POST", base+"/checks/run", req, &run); err != nil {
		return c.cannot("the checks could not run: %v", err)
	}
	limit := time.Now().Add(checkRunWait)
	for run.Status != app.RunFinished {
		if time.Now().After(limit) {
			return c.cannot("the run did not finish in %s", checkRunWait)
		}
		select {
		case <-ctx.Done():
			return c.cannot("interrupted")
		case <-time.After(checkPoll):
		}
		if err := c.api.do(ctx, "GET", base+"/checks/run", nil, &run); err != nil {
			return c.cannot("the run could not be followed: %v", err)
		}
	}
	return c.report(&run)
}

// report prints a line per check, the explanations of a matrix's failing
// cells, and a summary; it returns the exit status the verdicts give.
func (c *checker) report(run *app.CheckRun) exitStatus {
	for _, r := range run.Results {
		fmt.Fprintf(c.out, "%s %s: %s\n", strings.ToUpper(r.Verdict), r.CheckID, r.Message)
		if r.Verdict == app.VerdictFail {
			for _, ev := range r.Evidence { // what the hosts said, for the CI log
				for _, l := range lastLines(ev.Lines, evidenceLines) {
					fmt.Fprintf(c.out, "    %s: %s\n", ev.Kind, l)
				}
			}
		}
		if m := r.Matrix; m != nil {
			for _, w := range m.Why {
				if w.From < len(m.Hosts) && w.To < len(m.Hosts) {
					fmt.Fprintf(c.out, "    %s → %s (%s): %s\n", m.Hosts[w.From].Name, m.Hosts[w.To].Name, m.Hosts[w.To].Address, w.Reason)
				}
			}
		}
	}
	took := ""
	if run.FinishedAt != nil {
		took = fmt.Sprintf(" in %.1fs", run.FinishedAt.Sub(run.StartedAt).Seconds())
	}
	fmt.Fprintf(c.out, "%d passed, %d failed, %d could not run%s\n", run.Passed, run.Failed, run.Errors, took)
	switch {
	case run.Failed > 0:
		return exitFailed
	case run.Errors > 0:
		return exitCannot
	}
	return 0
}

// evidenceLines is how many lines of a host's console a failure shows.
const evidenceLines = 6

// lastLines is the last n of lines, without the empty ones.
func lastLines(lines []string, n int) []string {
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// restClient calls a nodedesk's REST API.
type restClient struct {
	base string
	http http.Client
}

// serving reports whether a nodedesk answers at the client's address.
func (r *restClient) serving(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var v struct {
		Version string `json:"version"`
	}
	return r.do(ctx, "GET", "/v2/version", nil, &v) == nil && v.Version != ""
}

// do sends body (raw bytes, or a value as JSON) and decodes the answer
// into out; an answer of 400 or more is an error with its message.
func (r *restClient) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.base+path, rd)
	if err != nil {
		return err
	}
	res, err := r.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode >= 400 {
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(raw, &e) == nil && e.Message != "" {
			return errors.New(e.Message)
		}
		return fmt.Errorf("%s %s answered %s", method, path, res.Status)
	}
	if out != nil && len(raw) > 0 {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// tailLog keeps the last max bytes written to it.
type tailLog struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailLog) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

func (t *tailLog) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.buf)
}

func (t *tailLog) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

package main

// Process-level tests of the nodedesk command line: TestMain builds the real
// binary once and every test runs it as a child process, the way a user or a
// GNS3 client would meet it.

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

const (
	// startupErrorLimit is how long a start-up error may take to end the
	// process (the requirement; store.lockTimeout is 1 s of it).
	startupErrorLimit = 2 * time.Second
	// servingLimit bounds the wait for the "nodedesk is serving" line; it is
	// generous because a loaded machine may start the binary slowly.
	servingLimit = 10 * time.Second
	// shutdownLimit bounds a clean shutdown after SIGTERM.
	shutdownLimit = 5 * time.Second
	// quickExitLimit bounds commands that should end at once (--version,
	// --help, bad flags); it is a hang guard, not a requirement.
	quickExitLimit = 10 * time.Second
)

// binPath is the nodedesk binary built by TestMain.
var binPath string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "nodedesk-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "main_test: cannot make a temp dir for the binary:", err)
		return 2
	}
	defer os.RemoveAll(dir)
	goBin, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintln(os.Stderr, "main_test: cannot find the go command to build nodedesk:", err)
		return 2
	}
	binPath = filepath.Join(dir, "nodedesk")
	build := exec.Command(goBin, "build", "-o", binPath, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "main_test: go build -o %s . failed: %v\n%s", binPath, err, out)
		return 2
	}
	return m.Run()
}

// syncBuffer is a bytes.Buffer safe for the exec copy goroutine writing
// while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// proc is one running (or finished) nodedesk.
type proc struct {
	cmd     *exec.Cmd
	stdout  *syncBuffer
	stderr  *syncBuffer
	started time.Time
	serving time.Time     // when waitServing saw the serving line
	done    chan struct{} // closed when Wait has returned
	waitErr error         // valid once done is closed
}

// sandboxEnv is the test's environment with HOME and XDG_DATA_HOME pointing
// into fresh temp dirs, so that no child ever touches the real home. extra
// entries are applied last: "KEY=value" sets KEY (the value may be empty),
// a bare "KEY" removes it.
func sandboxEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	set := map[string]string{
		"HOME":          t.TempDir(),
		"XDG_DATA_HOME": t.TempDir(),
	}
	unset := map[string]bool{}
	for _, kv := range extra {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			unset[k] = true // a bare KEY removes it
			delete(set, k)
			continue
		}
		set[k] = v
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; ok || unset[k] {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}

// start runs nodedesk with args in env (nil: a sandbox env). The process
// is killed in t.Cleanup if it is still running.
func start(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	return startUnder(t, env, nil, args...)
}

// startUnder is start with nodedesk run by a wrapper command (setpriv
// with its arguments, say); nil runs it directly.
func startUnder(t *testing.T, env, wrapper []string, args ...string) *proc {
	t.Helper()
	return startAt(t, env, "", wrapper, args...)
}

// startAt is startUnder with nodedesk's working folder dir ("": the
// test's).
func startAt(t *testing.T, env []string, dir string, wrapper []string, args ...string) *proc {
	t.Helper()
	if env == nil {
		env = sandboxEnv(t)
	}
	argv := append(append(slices.Clone(wrapper), binPath), args...)
	p := &proc{
		cmd:    exec.Command(argv[0], argv[1:]...),
		stdout: &syncBuffer{},
		stderr: &syncBuffer{},
		done:   make(chan struct{}),
	}
	p.cmd.Env = env
	p.cmd.Dir = dir
	p.cmd.Stdout = p.stdout
	p.cmd.Stderr = p.stderr
	p.cmd.WaitDelay = 5 * time.Second // bounds Wait's copying after a kill
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("cannot start %s %q: %v", binPath, args, err)
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitExit waits for the process to end until limit after from (the start,
// or the moment a signal was sent); past that it kills the process and
// fails the test. It returns the exit code (-1 if a signal ended it).
func (p *proc) waitExit(t *testing.T, from time.Time, limit time.Duration, what string) int {
	t.Helper()
	deadline := time.NewTimer(time.Until(from.Add(limit)))
	defer deadline.Stop()
	select {
	case <-p.done:
	case <-deadline.C:
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("nodedesk %q was still running %v after %s; killed it\nstderr:\n%s",
			p.cmd.Args[1:], limit, what, p.stderr)
	}
	var ee *exec.ExitError
	if p.waitErr != nil && !errors.As(p.waitErr, &ee) {
		t.Fatalf("waiting for nodedesk %q: %v", p.cmd.Args[1:], p.waitErr)
	}
	return p.cmd.ProcessState.ExitCode()
}

var servingURL = regexp.MustCompile(`msg="nodedesk is serving".*\burl=(http://127\.0\.0\.1:[0-9]+)`)

// waitServing polls stderr for the "nodedesk is serving" log line and
// returns the URL it names. It fails if the process exits first or the line
// does not come within servingLimit.
func (p *proc) waitServing(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(servingLimit)
	for {
		if m := servingURL.FindStringSubmatch(p.stderr.String()); m != nil {
			p.serving = time.Now()
			return m[1]
		}
		if p.exited() {
			t.Fatalf("nodedesk %q exited (%v) before serving\nstderr:\n%s", p.cmd.Args[1:], p.waitErr, p.stderr)
		}
		if time.Now().After(deadline) {
			t.Fatalf("nodedesk %q did not log \"nodedesk is serving\" within %v\nstderr:\n%s", p.cmd.Args[1:], servingLimit, p.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop sends SIGTERM and requires exit code 0 within shutdownLimit; it
// does not wait after the serving line, so a signal that arrives right
// after start-up must still shut down cleanly.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	if p.exited() {
		t.Fatalf("nodedesk %q ended (%v) before SIGTERM\nstderr:\n%s", p.cmd.Args[1:], p.cmd.ProcessState, p.stderr)
	}
	sent := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM to nodedesk: %v", err)
	}
	code := p.waitExit(t, sent, shutdownLimit, "SIGTERM")
	if code != 0 {
		t.Fatalf("nodedesk exited with %v after SIGTERM (in %v), want exit code 0\nstderr:\n%s",
			p.cmd.ProcessState, time.Since(sent).Round(time.Millisecond), p.stderr)
	}
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\r\n\t "), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

var httpClient = &http.Client{Timeout: 10 * time.Second}

// call sends a request (body nil or JSON) and returns the status and body.
func call(t *testing.T, method, url string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, url, err)
	}
	return resp.StatusCode, out
}

// checkVersion requires GET /v2/version to answer the GNS3 version.
func checkVersion(t *testing.T, base string) {
	t.Helper()
	code, body := call(t, http.MethodGet, base+"/v2/version", nil)
	if code != http.StatusOK {
		t.Fatalf("GET /v2/version = %d %s, want 200", code, body)
	}
	var v struct {
		Version *string `json:"version"`
		Local   *bool   `json:"local"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("GET /v2/version: %v in %s", err, body)
	}
	if v.Version == nil || *v.Version != "2.2.59" || v.Local == nil || !*v.Local {
		t.Fatalf("GET /v2/version = %s, want {\"version\":\"2.2.59\",\"local\":true}", body)
	}
}

func TestMain_InfoFlags(t *testing.T) {
	t.Run("version", func(t *testing.T) {
		p := start(t, nil, "--version")
		if code := p.waitExit(t, p.started, quickExitLimit, "--version"); code != 0 {
			t.Fatalf("nodedesk --version exit code = %d, want 0\nstderr:\n%s", code, p.stderr)
		}
		out := p.stdout.String()
		if !strings.HasPrefix(out, "nodedesk ") || !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
			t.Errorf("nodedesk --version printed %q, want one line starting \"nodedesk \"", out)
		}
		if s := p.stderr.String(); s != "" {
			t.Errorf("nodedesk --version wrote to stderr: %q", s)
		}
	})
	for _, arg := range []string{"--help", "-h"} {
		t.Run("help"+arg, func(t *testing.T) {
			p := start(t, nil, arg)
			if code := p.waitExit(t, p.started, quickExitLimit, arg); code != 0 {
				t.Fatalf("nodedesk %s exit code = %d, want 0\nstderr:\n%s", arg, code, p.stderr)
			}
			out := p.stdout.String()
			if !strings.Contains(out, "Usage") {
				t.Errorf("nodedesk %s printed no usage on stdout:\n%s", arg, out)
			}
			for _, flag := range []string{"--headless", "--listen", "--db", "--version"} {
				if !strings.Contains(out, flag) {
					t.Errorf("nodedesk %s usage does not name %s:\n%s", arg, flag, out)
				}
			}
			if n := strings.Count(out, "Usage:"); n != 1 {
				t.Errorf("nodedesk %s printed the usage %d times on stdout, want once:\n%s", arg, n, out)
			}
			if e := p.stderr.String(); e != "" {
				t.Errorf("nodedesk %s wrote to stderr: %q", arg, e)
			}
		})
	}
}

func TestMain_BadArguments(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in the last line of stderr
	}{
		{"unknown flag", []string{"--no-such-flag"}, "no-such-flag"},
		{"unknown flag after good ones", []string{"--headless", "--bogus=1"}, "bogus"},
		{"flag without value", []string{"--listen"}, "listen"},
		{"positional argument", []string{"extra"}, "extra"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, nil, tc.args...)
			if code := p.waitExit(t, p.started, quickExitLimit, "bad arguments"); code == 0 {
				t.Fatalf("nodedesk %q exit code = 0, want non-zero\nstdout:\n%s\nstderr:\n%s", tc.args, p.stdout, p.stderr)
			}
			if l := lastLine(p.stderr.String()); !strings.Contains(l, tc.want) {
				t.Errorf("nodedesk %q: last stderr line %q does not mention %q", tc.args, l, tc.want)
			}
		})
	}
}

func TestMain_StartupErrors(t *testing.T) {
	type setup struct {
		args []string
		want []string // each in the last non-empty stderr line
		// after, if set, runs once the process has exited.
		after func(t *testing.T)
	}
	tests := []struct {
		name    string
		prepare func(t *testing.T, dir string) setup
	}{
		{"busy port", func(t *testing.T, dir string) setup {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			addr := ln.Addr().String()
			return setup{
				args: []string{"--headless", "--listen", addr, "--db", filepath.Join(dir, "a.db")},
				want: []string{addr, "in use"},
			}
		}},
		{"db folder is a file", func(t *testing.T, dir string) setup {
			file := filepath.Join(dir, "file")
			if err := os.WriteFile(file, []byte("not a folder\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(file, "x.db")
			return setup{
				args: []string{"--headless", "--listen", "127.0.0.1:0", "--db", db},
				want: []string{db},
			}
		}},
		{"db folder cannot be made", func(t *testing.T, dir string) setup {
			db := "/proc/nodedesk-test/x.db"
			return setup{
				args: []string{"--headless", "--listen", "127.0.0.1:0", "--db", db},
				want: []string{db},
			}
		}},
		{"db is a folder", func(t *testing.T, dir string) setup {
			db := filepath.Join(dir, "folder.db")
			if err := os.Mkdir(db, 0o700); err != nil {
				t.Fatal(err)
			}
			return setup{
				args: []string{"--headless", "--listen", "127.0.0.1:0", "--db", db},
				want: []string{db},
			}
		}},
		{"db held by another nodedesk", func(t *testing.T, dir string) setup {
			db := filepath.Join(dir, "c.db")
			first := start(t, nil, "--headless", "--listen", "127.0.0.1:0", "--db", db)
			checkVersion(t, first.waitServing(t))
			return setup{
				args: []string{"--headless", "--listen", "127.0.0.1:0", "--db", db},
				want: []string{db, "in use by another nodedesk"},
				after: func(t *testing.T) {
					if first.exited() {
						t.Fatalf("the first nodedesk exited while the second tried its store\nstderr:\n%s", first.stderr)
					}
					first.stop(t)
				},
			}
		}},
	}
	// Files that are not nodedesk stores: each must be refused and left
	// byte for byte as it was.
	notStores := []struct {
		name  string
		bytes func(t *testing.T, path string) []byte
	}{
		{"random bytes", func(t *testing.T, path string) []byte {
			b := make([]byte, 8<<10)
			if _, err := rand.Read(b); err != nil {
				t.Fatal(err)
			}
			return b
		}},
		{"text file", func(t *testing.T, path string) []byte {
			return []byte(strings.Repeat("these are my notes, not a database\n", 300))
		}},
		{"short text file", func(t *testing.T, path string) []byte {
			return []byte("hello\n")
		}},
		{"foreign bbolt file", func(t *testing.T, path string) []byte {
			db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			err = db.Update(func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("someone-else"))
				if err != nil {
					return err
				}
				return b.Put([]byte("k"), []byte("v"))
			})
			if cerr := db.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}},
	}
	for _, ns := range notStores {
		tests = append(tests, struct {
			name    string
			prepare func(t *testing.T, dir string) setup
		}{"not a store/" + ns.name, func(t *testing.T, dir string) setup {
			db := filepath.Join(dir, "d.db")
			content := ns.bytes(t, db)
			if err := os.WriteFile(db, content, 0o600); err != nil {
				t.Fatal(err)
			}
			return setup{
				args: []string{"--headless", "--listen", "127.0.0.1:0", "--db", db},
				want: []string{db, "not a nodedesk store"},
				after: func(t *testing.T) {
					got, err := os.ReadFile(db)
					if err != nil {
						t.Fatalf("reading %s back: %v", db, err)
					}
					if !bytes.Equal(got, content) {
						t.Errorf("nodedesk changed %s: %d bytes before, %d after, contents differ", db, len(content), len(got))
					}
				},
			}
		}})
	}

	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.prepare(t, t.TempDir())
			p := start(t, nil, s.args...)
			code := p.waitExit(t, p.started, startupErrorLimit, "start-up error")
			took := time.Since(p.started)
			if code == 0 {
				t.Errorf("nodedesk %q exit code = 0 (%v), want non-zero\nstderr:\n%s", s.args, p.cmd.ProcessState, p.stderr)
			}
			stderr := p.stderr.String()
			if strings.Contains(stderr, "nodedesk is serving") {
				t.Errorf("nodedesk %q logged that it is serving before failing\nstderr:\n%s", s.args, stderr)
			}
			last := lastLine(stderr)
			for _, w := range s.want {
				if !strings.Contains(strings.ToLower(last), strings.ToLower(w)) {
					t.Errorf("nodedesk %q: last stderr line does not name %q:\n  %s\nwhole stderr:\n%s", s.args, w, last, stderr)
				}
			}
			if s.after != nil {
				s.after(t)
			}
			t.Logf("exit %d in %v: %s", code, took.Round(time.Millisecond), last)
		})
	}
}

// project is the part of a GNS3 project the tests look at.
type project struct {
	ID   string `json:"project_id"`
	Name string `json:"name"`
}

func TestMain_CleanShutdownAndRestart(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "labs.db")
	args := []string{"--headless", "--listen", "127.0.0.1:0", "--db", db}

	first := start(t, nil, args...)
	base := first.waitServing(t)
	checkVersion(t, base)

	code, body := call(t, http.MethodPost, base+"/v2/projects", map[string]any{"name": "p"})
	if code != http.StatusCreated {
		t.Fatalf("POST /v2/projects = %d %s, want 201", code, body)
	}
	var created project
	if err := json.Unmarshal(body, &created); err != nil || created.Name != "p" || created.ID == "" {
		t.Fatalf("POST /v2/projects answered %s (%v), want a project named p with an id", body, err)
	}

	first.stop(t)
	if l := lastLine(first.stderr.String()); strings.Contains(strings.ToLower(l), "error") {
		t.Errorf("clean shutdown ended with an error line: %s", l)
	}

	second := start(t, nil, args...)
	base = second.waitServing(t)
	code, body = call(t, http.MethodGet, base+"/v2/projects", nil)
	if code != http.StatusOK {
		t.Fatalf("GET /v2/projects after restart = %d %s, want 200", code, body)
	}
	var list []project
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatalf("GET /v2/projects after restart: %v in %s", err, body)
	}
	found := false
	for _, p := range list {
		if p.ID == created.ID && p.Name == "p" {
			found = true
		}
	}
	if !found {
		t.Errorf("GET /v2/projects after restart = %s, want it to list project p (%s)", body, created.ID)
	}
	second.stop(t)
}

func TestMain_DefaultDB(t *testing.T) {
	tests := []struct {
		name string
		// env gives HOME and XDG_DATA_HOME; want is the store it must create.
		env func(home, xdg string) (env []string, want string)
	}{
		{"XDG_DATA_HOME", func(home, xdg string) ([]string, string) {
			return []string{"HOME=" + home, "XDG_DATA_HOME=" + xdg}, filepath.Join(xdg, "nodedesk", "nodedesk.db")
		}},
		{"HOME without XDG_DATA_HOME", func(home, xdg string) ([]string, string) {
			return []string{"HOME=" + home, "XDG_DATA_HOME"}, filepath.Join(home, ".local", "share", "nodedesk", "nodedesk.db")
		}},
		{"empty XDG_DATA_HOME", func(home, xdg string) ([]string, string) {
			return []string{"HOME=" + home, "XDG_DATA_HOME="}, filepath.Join(home, ".local", "share", "nodedesk", "nodedesk.db")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home, xdg := t.TempDir(), t.TempDir()
			extra, want := tc.env(home, xdg)
			p := start(t, sandboxEnv(t, extra...), "--headless", "--listen", "127.0.0.1:0")
			checkVersion(t, p.waitServing(t))
			p.stop(t)

			fi, err := os.Stat(want)
			if err != nil {
				t.Fatalf("nodedesk without --db did not create %s: %v\nstderr:\n%s", want, err, p.stderr)
			}
			if !fi.Mode().IsRegular() || fi.Size() == 0 {
				t.Errorf("%s is %v with %d bytes, want a non-empty regular file", want, fi.Mode(), fi.Size())
			}
			if !strings.Contains(p.stderr.String(), "store="+want) {
				t.Errorf("the serving log line does not name store=%s\nstderr:\n%s", want, p.stderr)
			}
			// Nothing but the store's folder was made anywhere else.
			for _, root := range []string{home, xdg} {
				_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
					if err != nil || path == root || strings.HasPrefix(want, path+string(filepath.Separator)) || strings.HasPrefix(path, filepath.Dir(want)) {
						return nil
					}
					t.Errorf("nodedesk created %s outside the store's folder", path)
					return nil
				})
			}
		})
	}
}

// TestMain_AuthAndConfig: basic authentication from flags or from the
// configuration file, which flags override; a bad file is refused.
func TestMain_AuthAndConfig(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "nodedesk.conf")
	if err := os.WriteFile(conf, []byte("# lab server\nauth_user = lab\nauth_password = s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		user string
	}{
		{"config file", []string{"--config", conf}, "lab"},
		{"flags", []string{"--auth-user", "admin", "--auth-password", "pw"}, "admin"},
		{"flags override the file", []string{"--config", conf, "--auth-user", "admin", "--auth-password", "pw"}, "admin"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := start(t, nil, append([]string{"--headless", "--listen", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "a.db")}, tt.args...)...)
			url := p.waitServing(t)
			if status, body := call(t, "GET", url+"/v2/version", nil); status != 401 {
				t.Errorf("without credentials: %d %s", status, body)
			}
			req, _ := http.NewRequest("GET", url+"/v2/version", nil)
			pass := map[string]string{"lab": "s3cret", "admin": "pw"}[tt.user]
			req.SetBasicAuth(tt.user, pass)
			res, err := httpClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Errorf("with credentials: %d", res.StatusCode)
			}
			p.stop(t)
		})
	}
	bad := filepath.Join(dir, "bad.conf")
	_ = os.WriteFile(bad, []byte("port 3080\n"), 0o600)
	for _, args := range [][]string{{"--config", bad}, {"--config", filepath.Join(dir, "missing.conf")}, {"--auth-user", "only"}} {
		p := start(t, nil, append([]string{"--headless", "--listen", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "b.db")}, args...)...)
		if code := p.waitExit(t, p.started, quickExitLimit, args[0]); code == 0 {
			t.Errorf("%v: exit 0, want an error", args)
		}
		if line := lastLine(p.stderr.String()); line == "" {
			t.Errorf("%v: no error message", args)
		}
	}
}

// TestLoopbackOnly: which --listen hosts keep the API on this machine
// (others get a warning). Tests bind only 127.0.0.1, so this is checked on
// the rule itself.
func TestLoopbackOnly(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "localhost": true, "::1": true, "127.0.0.2": true,
		"0.0.0.0": false, "": false, "::": false, "192.168.1.10": false, "lab.example": false,
	} {
		if got := loopbackOnly(host); got != want {
			t.Errorf("loopbackOnly(%q) = %v, want %v", host, got, want)
		}
	}
}

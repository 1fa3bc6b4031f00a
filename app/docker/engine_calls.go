package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The calls, one method each, named by what they do.

// versionInfo is what GET /version answers.
type versionInfo struct {
	Version       string
	APIVersion    string `json:"ApiVersion"`
	MinAPIVersion string `json:"MinAPIVersion"`
}

// Version asks the engine its version; it is also how nodedesk knows the
// engine answers.
func (e *engine) Version(ctx context.Context) (versionInfo, error) {
	var v versionInfo
	rc, err := e.streamVersioned(ctx, http.MethodGet, "/version", nil, nil, false)
	if err != nil {
		return v, err
	}
	defer rc.Close()
	if err := json.NewDecoder(rc).Decode(&v); err != nil {
		return v, fmt.Errorf("Docker's version could not be read: %w", err)
	}
	return v, nil
}

// imageTags lists the local images by repository and tag, sorted; the
// untagged are left out.
func (e *engine) imageTags(ctx context.Context) ([]string, error) {
	var list []struct{ RepoTags []string }
	if err := e.call(ctx, http.MethodGet, "/images/json", nil, nil, &list); err != nil {
		return nil, err
	}
	var tags []string
	for _, im := range list {
		for _, t := range im.RepoTags {
			if t != "" && !strings.HasPrefix(t, "<none>") && !strings.HasSuffix(t, ":<none>") {
				tags = append(tags, t)
			}
		}
	}
	sort.Strings(tags)
	return tags, nil
}

// imageInfo is what nodedesk reads of an image.
type imageInfo struct {
	ID     string `json:"Id"`
	Config struct {
		Cmd        []string
		Entrypoint []string
		User       string
		Volumes    map[string]struct{}
	}
}

// inspectImage reads an image; an image the engine lacks is an *apiError
// of status 404.
func (e *engine) inspectImage(ctx context.Context, ref string) (*imageInfo, error) {
	var im imageInfo
	if err := e.call(ctx, http.MethodGet, "/images/"+ref+"/json", nil, nil, &im); err != nil {
		return nil, err
	}
	return &im, nil
}

// pull fetches an image from its registry, until ctx ends.
func (e *engine) pull(ctx context.Context, ref string) error {
	rc, err := e.stream(ctx, http.MethodPost, "/images/create", url.Values{"fromImage": {ref}}, nil)
	if err != nil {
		return err
	}
	defer rc.Close()
	dec := json.NewDecoder(rc)
	for {
		var m struct {
			Error string `json:"error"`
		}
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		if m.Error != "" {
			return errors.New(m.Error)
		}
	}
}

// containerConfig is the body of a container's creation, the parts
// nodedesk sets.
type containerConfig struct {
	Hostname        string              `json:"Hostname,omitempty"`
	Image           string              `json:"Image"`
	Entrypoint      []string            `json:"Entrypoint"`
	Cmd             []string            `json:"Cmd"`
	Env             []string            `json:"Env,omitempty"`
	User            string              `json:"User,omitempty"`
	Labels          map[string]string   `json:"Labels,omitempty"`
	Tty             bool                `json:"Tty"`
	OpenStdin       bool                `json:"OpenStdin"`
	StdinOnce       bool                `json:"StdinOnce"`
	AttachStdin     bool                `json:"AttachStdin"`
	AttachStdout    bool                `json:"AttachStdout"`
	AttachStderr    bool                `json:"AttachStderr"`
	NetworkDisabled bool                `json:"NetworkDisabled"`
	Volumes         map[string]struct{} `json:"Volumes,omitempty"`
	HostConfig      hostConfig          `json:"HostConfig"`
}

// hostConfig is the host side of a container's creation.
type hostConfig struct {
	Mounts      []mount  `json:"Mounts,omitempty"`
	CapAdd      []string `json:"CapAdd,omitempty"`
	NetworkMode string   `json:"NetworkMode,omitempty"`
	UsernsMode  string   `json:"UsernsMode,omitempty"`
}

// mount is a folder of this machine bound into a container.
type mount struct {
	Type     string `json:"Type"` // "bind"
	Source   string `json:"Source"`
	Target   string `json:"Target"`
	ReadOnly bool   `json:"ReadOnly,omitempty"`
}

// create creates a container named name.
func (e *engine) create(ctx context.Context, name string, c *containerConfig) (string, error) {
	var out struct {
		ID string `json:"Id"`
	}
	if err := e.call(ctx, http.MethodPost, "/containers/create", url.Values{"name": {name}}, c, &out); err != nil {
		return "", err
	}
	return out.ID, nil
}

// start starts a container (one running already is fine).
func (e *engine) start(ctx context.Context, id string) error {
	if err := e.call(ctx, http.MethodPost, "/containers/"+id+"/start", nil, nil, nil); err != nil && status(err) != http.StatusNotModified {
		return err
	}
	return nil
}

// containerInfo is what nodedesk reads of a container.
type containerInfo struct {
	ID    string `json:"Id"`
	Name  string
	State struct {
		Status   string
		Running  bool
		Paused   bool
		Pid      int
		ExitCode int
		Error    string
	}
	Config struct {
		Labels map[string]string
	}
}

// inspect reads a container.
func (e *engine) inspect(ctx context.Context, id string) (*containerInfo, error) {
	var c containerInfo
	if err := e.call(ctx, http.MethodGet, "/containers/"+id+"/json", nil, nil, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// pause freezes a container's processes; unpause thaws them.
func (e *engine) pause(ctx context.Context, id string) error {
	return e.call(ctx, http.MethodPost, "/containers/"+id+"/pause", nil, nil, nil)
}

func (e *engine) unpause(ctx context.Context, id string) error {
	return e.call(ctx, http.MethodPost, "/containers/"+id+"/unpause", nil, nil, nil)
}

// stop ends a container: SIGTERM (its stop signal), then SIGKILL after
// grace. One stopped already is fine.
func (e *engine) stop(ctx context.Context, id string, grace time.Duration) error {
	q := url.Values{"t": {strconv.Itoa(int(grace.Seconds()))}}
	if err := e.call(ctx, http.MethodPost, "/containers/"+id+"/stop", q, nil, nil); err != nil && status(err) != http.StatusNotModified {
		return err
	}
	return nil
}

// kill sends SIGKILL to a container's main process.
func (e *engine) kill(ctx context.Context, id string) error {
	return e.call(ctx, http.MethodPost, "/containers/"+id+"/kill", nil, nil, nil)
}

// remove removes a container, ending it first if it runs, and its
// anonymous volumes. One that is gone already is fine.
func (e *engine) remove(ctx context.Context, id string) error {
	q := url.Values{"force": {"1"}, "v": {"1"}}
	if err := e.call(ctx, http.MethodDelete, "/containers/"+id, q, nil, nil); err != nil && status(err) != http.StatusNotFound {
		return err
	}
	return nil
}

// wait returns a container's exit code once it has stopped running (at
// once if it does not run).
func (e *engine) wait(ctx context.Context, id string) (int, error) {
	var out struct {
		StatusCode int
		Error      *struct{ Message string }
	}
	if err := e.call(ctx, http.MethodPost, "/containers/"+id+"/wait", nil, nil, &out); err != nil {
		return 0, err
	}
	if out.Error != nil && out.Error.Message != "" {
		return out.StatusCode, errors.New(out.Error.Message)
	}
	return out.StatusCode, nil
}

// logs is the last lines a container printed (its terminal's output: a
// container with a TTY has one stream).
func (e *engine) logs(ctx context.Context, id string, lines int) (string, error) {
	q := url.Values{"stdout": {"1"}, "stderr": {"1"}, "tail": {strconv.Itoa(lines)}}
	rc, err := e.stream(ctx, http.MethodGet, "/containers/"+id+"/logs", q, nil)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, 64<<10))
	return string(demux(b)), err
}

// demux joins the frames of a multiplexed stream (a container without a
// TTY: 8-byte headers, stream and length) and returns a raw one as is.
func demux(b []byte) []byte {
	var out []byte
	for rest := b; len(rest) > 0; {
		if len(rest) < 8 || rest[0] > 2 || rest[1] != 0 || rest[2] != 0 || rest[3] != 0 {
			return b
		}
		n := int(rest[4])<<24 | int(rest[5])<<16 | int(rest[6])<<8 | int(rest[7])
		if len(rest) < 8+n {
			return b
		}
		out = append(out, rest[8:8+n]...)
		rest = rest[8+n:]
	}
	return out
}

// attach opens a container's terminal: what its main process prints and
// what it reads.
func (e *engine) attach(ctx context.Context, id string) (*hijacked, error) {
	q := url.Values{"stream": {"1"}, "stdin": {"1"}, "stdout": {"1"}, "stderr": {"1"}}
	return e.hijack(ctx, "/containers/"+id+"/attach", q, nil)
}

// resize sets a container's terminal size.
func (e *engine) resize(ctx context.Context, id string, rows, cols int) error {
	q := url.Values{"h": {strconv.Itoa(rows)}, "w": {strconv.Itoa(cols)}}
	return e.call(ctx, http.MethodPost, "/containers/"+id+"/resize", q, nil, nil)
}

// execConfig is the body of an exec's creation.
type execConfig struct {
	Cmd          []string `json:"Cmd"`
	Env          []string `json:"Env,omitempty"`
	User         string   `json:"User,omitempty"`
	Tty          bool     `json:"Tty"`
	AttachStdin  bool     `json:"AttachStdin"`
	AttachStdout bool     `json:"AttachStdout"`
	AttachStderr bool     `json:"AttachStderr"`
}

// exec runs a command in a running container and returns its terminal
// (tty) or its output streams, which end when it ends.
func (e *engine) exec(ctx context.Context, id string, c execConfig) (execID string, conn *hijacked, err error) {
	var out struct {
		ID string `json:"Id"`
	}
	c.AttachStdout, c.AttachStderr = true, true
	if err := e.call(ctx, http.MethodPost, "/containers/"+id+"/exec", nil, c, &out); err != nil {
		return "", nil, err
	}
	conn, err = e.hijack(ctx, "/exec/"+out.ID+"/start", nil, map[string]bool{"Detach": false, "Tty": c.Tty})
	return out.ID, conn, err
}

// run runs a command in a running container to its end (or ctx's) and
// returns its exit code and output.
func (e *engine) run(ctx context.Context, id string, cmd ...string) (int, string, error) {
	execID, conn, err := e.exec(ctx, id, execConfig{Cmd: cmd})
	if err != nil {
		return 0, "", err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	b, rerr := io.ReadAll(io.LimitReader(conn, 1<<20))
	stop()
	conn.Close()
	if rerr != nil && ctx.Err() != nil {
		return 0, string(demux(b)), ctx.Err()
	}
	// The stream may end a moment before the engine has the exit code.
	for {
		var st struct {
			Running  bool
			ExitCode int
		}
		if err := e.call(ctx, http.MethodGet, "/exec/"+execID+"/json", nil, nil, &st); err != nil {
			return 0, string(demux(b)), err
		}
		if !st.Running {
			return st.ExitCode, string(demux(b)), nil
		}
		select {
		case <-ctx.Done():
			return 0, string(demux(b)), ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// archive is a tar stream of path in a container (created or running).
func (e *engine) archive(ctx context.Context, id, path string) (io.ReadCloser, error) {
	return e.stream(ctx, http.MethodGet, "/containers/"+id+"/archive", url.Values{"path": {path}}, nil)
}

// containerSummary is one container of a list.
type containerSummary struct {
	ID     string `json:"Id"`
	Labels map[string]string
}

// containersLabelled lists the containers, running or not, that carry
// label key=value.
func (e *engine) containersLabelled(ctx context.Context, key, value string) ([]containerSummary, error) {
	f, _ := json.Marshal(map[string][]string{"label": {key + "=" + value}})
	var list []containerSummary
	err := e.call(ctx, http.MethodGet, "/containers/json", url.Values{"all": {"1"}, "filters": {string(f)}}, nil, &list)
	return list, err
}

package docker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"

	"nodedesk/app"
)

// A node's container lives as long as the node in an open project, as in
// GNS3 2.2.59: it is made when the node is made (Provision), a stop ends
// its processes but keeps it, so that what was written inside it is there
// at the next start, and it is removed when the node is deleted or its
// project closed (Release), or when nodedesk quits (StopAll). Its record
// (records.go) is kept while it exists, so a nodedesk that was killed
// removes it at its next start. A container made with other settings
// than the node's now (an image, a start command, adapters changed while
// it was stopped) is made again, as GNS3 makes it again at each change.

// labelConfig labels a container with the digest of the settings it was
// made with (configDigest).
const labelConfig = "nodedesk.config"

// made is the container a node has, running or not.
type made struct {
	rec     record
	digest  string   // of the settings it was made with
	vols    []string // the kept folders
	targets []string // the folders bound into it
	cmdline string
}

// madeTable holds the containers the runner has made, by node id.
type madeTable struct {
	mu sync.Mutex
	m  map[string]*made
}

func (t *madeTable) get(nodeID string) (*made, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, ok := t.m[nodeID]
	return m, ok
}

func (t *madeTable) put(nodeID string, m *made) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[string]*made{}
	}
	t.m[nodeID] = m
}

// take removes and returns a node's container, if any.
func (t *madeTable) take(nodeID string) (*made, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, ok := t.m[nodeID]
	delete(t.m, nodeID)
	return m, ok
}

func (t *madeTable) ids() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ids []string
	for id := range t.m {
		ids = append(ids, id)
	}
	return ids
}

// configDigest is the digest of a container's settings.
func configDigest(cfg *containerConfig) string {
	b, _ := json.Marshal(cfg)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// Provision makes the container of a stopped node p, as GNS3 makes it
// with the node, if it has none made with its settings now: the image
// (pulled if the engine lacks it, within PullWait), the kept folders in
// its folder (/etc/network's interfaces example among them), the
// container. It returns the container's id. A node that runs keeps its
// container.
func (r *Runner) Provision(ctx context.Context, p app.Process) (string, error) {
	if r.eng == nil {
		return "", r.engErr
	}
	if n, ok := r.nodes.Get(p.NodeID); ok {
		return n.rec.Container, nil
	}
	st, err := r.check(p)
	if err != nil {
		return "", err
	}
	if err := r.gather(ctx, st); err != nil {
		return "", err
	}
	if err := r.prepare(ctx, st); err != nil {
		return "", err
	}
	m, _, err := r.ensure(ctx, st)
	if err != nil {
		return "", err
	}
	return m.rec.Container, nil
}

// Provisioned is the id of the container of node nodeID, "" if it has
// none.
func (r *Runner) Provisioned(nodeID string) string {
	if m, ok := r.made.get(nodeID); ok {
		return m.rec.Container
	}
	return ""
}

// Release stops a node if it runs and removes its container and record:
// what its delete and its project's close do.
func (r *Runner) Release(nodeID string) error {
	if r.eng == nil {
		return nil
	}
	err := r.Stop(nodeID)
	m, ok := r.made.take(nodeID)
	if !ok {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startWait)
	defer cancel()
	if rerr := r.eng.remove(ctx, m.rec.Container); rerr != nil {
		r.made.put(nodeID, m) // kept, and its record: tried again later
		return r.engineError(rerr, "remove the container of "+m.rec.Name)
	}
	for _, v := range m.rec.Veths {
		deleteLink(v)
	}
	r.forget(nodeID)
	return err
}

// StopAll stops every node and removes every container the runner made:
// the last thing nodedesk does.
func (r *Runner) StopAll() {
	r.Lifecycle.StopAll()
	var wg sync.WaitGroup
	for _, id := range r.made.ids() {
		wg.Go(func() {
			if err := r.Release(id); err != nil {
				r.c.Logger.Warn("a Docker node's container could not be removed", "node", id, "err", err)
			}
		})
	}
	wg.Wait()
}

// ensure gives the node st starts the container made with its settings:
// the one it has, or a new one (its old one removed). fresh says it is
// new. The node's folders are prepared (prepare) and st.n is set.
func (r *Runner) ensure(ctx context.Context, st *startPlan) (m *made, fresh bool, err error) {
	p := st.p
	targets := mountTargets(st.vols, st.im)
	st.cfg = r.containerConfig(p, st.s, st.im, st.vols, targets, len(st.veths), st.env, st.hosts, st.caps)
	digest := configDigest(st.cfg)
	st.cfg.Labels[labelConfig] = digest
	if old, ok := r.made.get(p.NodeID); ok {
		if old.digest == digest {
			c, err := r.eng.inspect(ctx, old.rec.Container)
			if err == nil && c.Config.Labels[labelConfig] == digest {
				return old, false, nil
			}
			if err != nil && status(err) != http.StatusNotFound {
				return nil, false, r.engineError(err, "read the container of "+p.Name)
			}
		}
		// Made with other settings, or removed by hand: made again.
		if err := r.eng.remove(ctx, old.rec.Container); err != nil {
			return nil, false, r.engineError(err, "remove the old container of "+p.Name)
		}
		r.made.take(p.NodeID)
	}
	m = &made{digest: digest, vols: st.vols, targets: targets,
		rec:     record{NodeID: p.NodeID, ProjectID: p.ProjectID, Name: p.Name, ContainerName: containerName(p), Veths: st.veths},
		cmdline: strings.Join(append(slices.Clone(st.cfg.Entrypoint[1:]), st.cfg.Cmd...), " ")}
	if err := r.keep(m.rec); err != nil {
		return nil, false, app.Errorf(app.EINTERNAL, "The record of %s could not be written in %s (%v); check free disk space", p.Name, r.c.RunDir, err)
	}
	r.removeStale(ctx, m.rec)
	id, err := r.create(ctx, m.rec.ContainerName, st.cfg, p)
	if err != nil {
		r.forget(p.NodeID)
		return nil, false, err
	}
	m.rec.Container = id
	if err := r.keep(m.rec); err != nil {
		_ = r.eng.remove(context.WithoutCancel(ctx), id)
		r.forget(p.NodeID)
		return nil, false, app.Errorf(app.EINTERNAL, "The record of %s could not be written in %s (%v); check free disk space", p.Name, r.c.RunDir, err)
	}
	r.made.put(p.NodeID, m)
	return m, true, nil
}

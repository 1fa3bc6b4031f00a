package docker

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"nodedesk/app"
)

// A record of each node that runs is kept in the runner's folder, written
// before its container is made, so that a nodedesk that was killed
// (kill -9, a crash) finds at its next start what it left: the
// containers, which Docker keeps running, and the host ends of their
// veth pairs, which die with the containers' namespaces but may outlive
// a container stopped by hand. Containers are also labelled with the
// runner's folder, which finds one made after its record was written
// and before its id was.

// The labels of nodedesk's containers.
const (
	labelNode    = "nodedesk.node"
	labelProject = "nodedesk.project"
	labelName    = "nodedesk.name" // the node's name, which Open reports
	labelRun     = "nodedesk.run"
)

// record is what is kept of one running node.
type record struct {
	NodeID        string   `json:"node_id"`
	ProjectID     string   `json:"project_id"`
	Name          string   `json:"name"`
	ContainerName string   `json:"container_name"`
	Container     string   `json:"container,omitempty"` // id, once made
	Veths         []string `json:"veths,omitempty"`
}

func (r *Runner) recordPath(nodeID string) string {
	return filepath.Join(r.c.RunDir, nodeID+".json")
}

// keep writes a node's record.
func (r *Runner) keep(rec record) error {
	if r.c.RunDir == "" {
		return nil
	}
	if err := os.MkdirAll(r.c.RunDir, 0o700); err != nil {
		return err
	}
	b, _ := json.Marshal(rec)
	tmp := r.recordPath(rec.NodeID) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, r.recordPath(rec.NodeID))
}

// forget removes a node's record.
func (r *Runner) forget(nodeID string) {
	if r.c.RunDir != "" {
		_ = os.Remove(r.recordPath(nodeID))
	}
}

// labels are the labels of a container of the node p starts.
func (r *Runner) labels(p app.Process) map[string]string {
	return map[string]string{labelNode: p.NodeID, labelProject: p.ProjectID, labelName: p.Name, labelRun: r.runLabel()}
}

// runLabel tells this runner's containers from any other's: its folder.
func (r *Runner) runLabel() string {
	if r.c.RunDir == "" {
		return "-"
	}
	if abs, err := filepath.Abs(r.c.RunDir); err == nil {
		return abs
	}
	return r.c.RunDir
}

// reapOrphans removes what a previous nodedesk left of the nodes it ran,
// by its records and its containers' labels: each container (ended
// first if it runs) and each host end of a veth pair; then the records.
// It returns the names of the nodes it found (app.Supervised.Open; the
// id of one whose container has no name label), and is what Open does at
// start-up, before any node starts. A machine without Docker has nothing
// to reap; records that name containers are kept if the engine cannot
// be reached, for the next start.
func (r *Runner) reapOrphans(ctx context.Context) (ended []string, err error) {
	if r.c.RunDir == "" {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	recs, err := r.readRecords()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{} // node ids
	found := func(nodeID, name string) {
		if nodeID == "" || seen[nodeID] {
			return
		}
		seen[nodeID] = true
		if name == "" {
			name = nodeID
		}
		ended = append(ended, name)
	}
	var reachErr error
	if r.eng == nil {
		reachErr = r.engErr
	}
	for _, rec := range recs {
		found(rec.NodeID, rec.Name)
		if err := r.reapRecorded(ctx, rec, reachErr == nil); err != nil {
			reachErr = err
		}
	}
	if reachErr == nil {
		if reachErr, err = r.reapLabelled(ctx, found); err != nil {
			return ended, err
		}
	}
	if reachErr != nil && len(recs) > 0 {
		return ended, reachErr
	}
	return ended, nil
}

// readRecords reads the records in the runner's folder; one half
// written or unreadable is removed.
func (r *Runner) readRecords() ([]record, error) {
	entries, err := os.ReadDir(r.c.RunDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var recs []record
	for _, e := range entries {
		path := filepath.Join(r.c.RunDir, e.Name())
		if e.IsDir() {
			continue // the resources folder
		}
		if !strings.HasSuffix(e.Name(), ".json") {
			_ = os.Remove(path) // a record half written
			continue
		}
		var rec record
		if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &rec) == nil && rec.NodeID != "" {
			recs = append(recs, rec)
		} else {
			_ = os.Remove(path)
		}
	}
	return recs, nil
}

// reapRecorded removes what one record names: its veths and, when the
// engine is thought reachable (reach), its container. The record goes
// unless it names a container the engine could not be asked to remove;
// the error returned says the engine cannot be reached.
func (r *Runner) reapRecorded(ctx context.Context, rec record, reach bool) (unreachable error) {
	for _, v := range rec.Veths {
		deleteLink(v)
	}
	if reach {
		for _, c := range []string{rec.Container, rec.ContainerName} {
			if c == "" {
				continue
			}
			if err := r.eng.remove(ctx, c); err != nil && status(err) == 0 {
				unreachable = err // not an answer of the engine: it cannot be reached
				reach = false
			}
		}
	}
	if reach || rec.Container == "" && rec.ContainerName == "" {
		r.forget(rec.NodeID)
		r.c.Logger.Warn("removed a Docker node's container left running by a previous nodedesk", "node", rec.Name, "container", rec.ContainerName)
	}
	return unreachable
}

// reapLabelled removes the containers labelled with the runner's folder
// that no record named (made after the record and before their id was
// written), telling found of each node (its id and name). unreachable
// says the engine could not be reached; err, that it refused.
func (r *Runner) reapLabelled(ctx context.Context, found func(nodeID, name string)) (unreachable, err error) {
	list, err := r.eng.containersLabelled(ctx, labelRun, r.runLabel())
	if err != nil && status(err) == 0 {
		return err, nil
	} else if err != nil {
		return nil, err
	}
	for _, c := range list {
		found(c.Labels[labelNode], c.Labels[labelName])
		if err := r.eng.remove(ctx, c.ID); err != nil {
			return nil, err
		}
		r.c.Logger.Warn("removed a container left by a previous nodedesk", "container", c.ID)
	}
	return nil, nil
}

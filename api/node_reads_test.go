package api

import (
	"sync"
	"sync/atomic"
	"testing"

	"nodedesk/app"
)

// readCounter counts the node reads of a store's read-only transactions
// and of its write transactions.
type readCounter struct {
	app.Store
	views, writes atomic.Int32
}

type countingReads struct {
	app.Tx
	n *atomic.Int32
}

func (t countingReads) Node(projectID, nodeID string) (*app.Node, error) {
	t.n.Add(1)
	return t.Tx.Node(projectID, nodeID)
}

func (c *readCounter) View(fn func(app.Tx) error) error {
	return c.Store.View(func(tx app.Tx) error { return fn(countingReads{tx, &c.views}) })
}

func (c *readCounter) Update(fn func(app.Tx) error) error {
	return c.Store.Update(func(tx app.Tx) error { return fn(countingReads{tx, &c.writes}) })
}

// TestNodeUpdate_ReadsNodeOnce: a controller PUT whose properties'
// schema follows the node's type reads the node once before its write
// (the service, which then knows the type) and once inside it, besides
// history's after-image; the door reads none of its own.
func TestNodeUpdate_ReadsNodeOnce(t *testing.T) {
	var rc *readCounter
	var once sync.Once
	ts := mustOpenServerWith(t, testOptions{wrapStore: func(s app.Store) app.Store {
		once.Do(func() { rc = &readCounter{Store: s} })
		return rc
	}})
	pid := ts.MustCreateProject("reads")
	n := ts.MustCreateNode(pid, map[string]any{"node_type": "vpcs"})
	rc.views.Store(0)
	rc.writes.Store(0)
	ts.Do("PUT", "/v2/projects/"+pid+"/nodes/"+n["node_id"].(string), map[string]any{
		"name": "PC9", "properties": map[string]any{"startup_script": "ip 10.0.0.9/24\n"}}).Want(t, 200)
	if v, w := rc.views.Load(), rc.writes.Load(); v != 1 || w != 2 {
		t.Errorf("the PUT read the node %d times before its write and %d times in it; want 1 and 2 (its own read, history's after-image)", v, w)
	}
}

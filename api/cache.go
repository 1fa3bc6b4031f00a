package api

import (
	"encoding/json"
	"net/http"
	"sync"

	"nodedesk/app"
)

// renderCache keeps the encoded answers of node GETs (both views) and of
// project node lists, so that the reads clients make most skip the store,
// the wire form and the encoding.
//
// Why it stays correct: every committed change is published, and the
// Broker calls apply synchronously, in commit order, before anyone is told
// of the change (Service.update publishes before it answers the writer).
// apply drops what the change touched and bumps a generation. A reader
// notes the generation before it reads the store and may fill the cache
// only if no change came in between, so a value read before a commit can
// never be stored after it.
type renderCache struct {
	mu    sync.Mutex
	gen   uint64
	nodes map[string]*cachedNode // by node id
	lists map[string][]byte      // by project id
}

// cachedNode is a node's encoded views, each encoded when first asked for.
type cachedNode struct {
	project    string
	typ        app.NodeType
	controller []byte // nil until asked for
	compute    []byte // nil until asked for (or without a compute view)
}

// maxCachedNodes bounds the cache's memory (a node's views are ~2.5 KB).
const maxCachedNodes = 20000

func newRenderCache() *renderCache {
	return &renderCache{nodes: map[string]*cachedNode{}, lists: map[string][]byte{}}
}

// apply forgets what a committed change touched.
func (c *renderCache) apply(e app.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	switch p := e.Payload.(type) {
	case *app.Node:
		delete(c.nodes, p.ID)
		delete(c.lists, p.ProjectID)
	case *app.Project:
		if e.Action == "project.deleted" {
			for id, n := range c.nodes {
				if n.project == p.ID {
					delete(c.nodes, id)
				}
			}
			delete(c.lists, p.ID)
		}
	}
}

func (c *renderCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// node returns a cached node of the project.
func (c *renderCache) node(projectID, nodeID string) *cachedNode {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := c.nodes[nodeID]; n != nil && n.project == projectID {
		return n
	}
	return nil
}

// putNode caches n (merged with the views already cached) if nothing
// changed since generation gen.
func (c *renderCache) putNode(gen uint64, id string, n *cachedNode) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if old := c.nodes[id]; old != nil {
		merged := *old
		if n.controller != nil {
			merged.controller = n.controller
		}
		if n.compute != nil {
			merged.compute = n.compute
		}
		c.nodes[id] = &merged
		return
	}
	if len(c.nodes) >= maxCachedNodes {
		for k := range c.nodes { // drop one, any one
			delete(c.nodes, k)
			break
		}
	}
	c.nodes[id] = n
}

func (c *renderCache) list(projectID string) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lists[projectID]
}

func (c *renderCache) putList(gen uint64, projectID string, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		c.lists[projectID] = b
	}
}

// cachedView answers a node's controller view (ref.Type empty) or compute
// view from the cache, or from the service, filling the cache.
func (s *Server) cachedView(r *http.Request, ref app.NodeRef) ([]byte, error) {
	if n := s.cache.node(ref.ProjectID, ref.NodeID); n != nil {
		switch {
		case ref.Type == "" && n.controller != nil:
			return n.controller, nil
		case ref.Type != "" && ref.Type == n.typ && n.compute != nil:
			return n.compute, nil
		}
	}
	gen := s.cache.generation()
	n, err := s.svc.FindNode(r.Context(), ref)
	if err != nil {
		return nil, err
	}
	c := &cachedNode{project: n.ProjectID, typ: n.Type}
	var b []byte
	if ref.Type == "" {
		b, err = json.Marshal(s.nodeJSON(n))
		c.controller = b
	} else {
		b, err = json.Marshal(s.computeJSON(n))
		c.compute = b
	}
	if err != nil {
		return nil, err
	}
	s.cache.putNode(gen, n.ID, c)
	return b, nil
}

// writeRaw writes an already encoded JSON body.
func writeRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

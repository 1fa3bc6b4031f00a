package store

import (
	"encoding/binary"

	"github.com/google/uuid"
)

// Buckets, one per kind and one per index. Keys are fixed-width bytes.
var (
	bucketMeta     = []byte("meta")       // "schema_version" -> uint64 BE
	bucketProjects = []byte("projects")   // project uuid (16) -> JSON app.Project
	bucketNodes    = []byte("nodes")      // project uuid (16) + node uuid (16) -> JSON app.Node
	bucketConsoles = []byte("consoles")   // console port uint16 BE -> project uuid + node uuid
	bucketNames    = []byte("node_names") // project uuid (16) + node name -> node uuid (16)

	keySchemaVersion = []byte("schema_version")
)

// allBuckets is every bucket a store of the current schema has.
var allBuckets = [][]byte{bucketMeta, bucketProjects, bucketNodes, bucketConsoles, bucketNames}

// uuidKey encodes a canonical UUID string as its 16 bytes.
func uuidKey(id string) []byte {
	u, err := uuid.Parse(id)
	if err != nil {
		panic("store: not a UUID: " + id) // the Service only passes canonical ids
	}
	return u[:]
}

// nodeKey is the key of a node: project id then node id, so that a
// project's nodes are one prefix range.
func nodeKey(projectID, nodeID string) []byte {
	return append(uuidKey(projectID), uuidKey(nodeID)...)
}

func consoleKey(port int) []byte {
	return binary.BigEndian.AppendUint16(nil, uint16(port))
}

func nameKey(projectID, name string) []byte {
	return append(uuidKey(projectID), name...)
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

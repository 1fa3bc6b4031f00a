package store

import (
	"encoding/binary"

	"github.com/google/uuid"
)

// Buckets, one per kind and one per index. Keys are fixed-width bytes.
var (
	bucketMeta      = []byte("meta")       // "schema_version" -> uint64 BE
	bucketProjects  = []byte("projects")   // project uuid (16) -> JSON app.Project
	bucketNodes     = []byte("nodes")      // project uuid (16) + node uuid (16) -> JSON app.Node
	bucketConsoles  = []byte("consoles")   // console port uint16 BE -> project uuid + node uuid
	bucketNames     = []byte("node_names") // project uuid (16) + node name -> node uuid (16)
	bucketLinks     = []byte("links")      // project uuid (16) + link uuid (16) -> JSON app.Link (schema 2)
	bucketPorts     = []byte("link_ports") // project uuid + node uuid + adapter uint16 + port uint16 -> link uuid (schema 2)
	bucketUDP       = []byte("udp_ports")  // UDP port uint16 BE -> project uuid + node uuid (schema 3)
	bucketActive    = []byte("active")     // project uuid + node uuid of process-bound nodes not stopped -> empty (schema 3)
	bucketDrawings  = []byte("drawings")   // project uuid (16) + drawing uuid (16) -> JSON app.Drawing (schema 4)
	bucketSettings  = []byte("settings")   // setting name -> JSON: an emulator's settings under its row's name (schema 4)
	bucketSnapshots = []byte("snapshots")  // project uuid (16) + snapshot uuid (16) -> JSON app.Snapshot (schema 5)
	bucketTemplates = []byte("templates")  // template uuid (16) -> JSON app.Template, user templates (schema 5)
	bucketUndo      = []byte("undo")       // project uuid (16) + seq uint64 BE -> JSON app.HistoryEntry, the undo stack (schema 6)
	bucketRedo      = []byte("redo")       // project uuid (16) + seq uint64 BE -> JSON app.HistoryEntry, the redo stack (schema 6)
	bucketNIOs      = []byte("nios")       // project uuid (16) + node uuid (16) + adapter uint16 + port uint16 -> JSON app.NIO (schema 7)
	bucketComputes  = []byte("computes")   // compute id (as given) -> JSON app.Compute, remote computes (schema 7)

	keySchemaVersion = []byte("schema_version")
	// prefixRestoreIntent + project id, in settings: JSON string, the tag
	// of a snapshot restore's staged files not yet swapped in.
	prefixRestoreIntent = []byte("restore_intent:")
)

// allBuckets is every bucket a store of the current schema has.
var allBuckets = [][]byte{bucketMeta, bucketProjects, bucketNodes, bucketConsoles, bucketNames, bucketLinks, bucketPorts, bucketUDP, bucketActive, bucketDrawings, bucketSettings, bucketSnapshots, bucketTemplates, bucketUndo, bucketRedo, bucketNIOs, bucketComputes}

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
func nodeKey(projectID, nodeID string) []byte { return recordKey(projectID, nodeID) }

// recordKey is the key of a record of a project (node, link, drawing,
// snapshot): project id then the record's id, so that a project's records
// share its id as prefix.
func recordKey(projectID, id string) []byte {
	return append(uuidKey(projectID), uuidKey(id)...)
}

// u16Key encodes a TCP or UDP port as the key of a port index.
func u16Key(port int) []byte {
	return binary.BigEndian.AppendUint16(nil, uint16(port))
}

func nameKey(projectID, name string) []byte {
	return append(uuidKey(projectID), name...)
}

// linkKey is the key of a link: project id then link id.
func linkKey(projectID, linkID string) []byte { return recordKey(projectID, linkID) }

// portKey is the key of a port in the link_ports index; a node's ports
// share the prefix nodeKey(projectID, nodeID).
func portKey(projectID, nodeID string, adapter, port int) []byte {
	k := nodeKey(projectID, nodeID)
	k = binary.BigEndian.AppendUint16(k, uint16(adapter))
	return binary.BigEndian.AppendUint16(k, uint16(port))
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// historyKey is the key of a history entry: project id then its place in
// its stack, so that a project's stack is one prefix range, oldest first.
func historyKey(projectID string, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(uuidKey(projectID), seq)
}

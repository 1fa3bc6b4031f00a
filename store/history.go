package store

import (
	"bytes"
	"encoding/binary"

	"nodedesk/app"
)

// A project's history is two stacks, each a prefix range of its bucket
// (undo, redo) keyed by the project and the entry's place. Places are
// contiguous: an entry is pushed at the top's place + 1, and only the top
// (pop, replace) and the bottom (the bound) are ever removed, so the
// newest keep entries are those above the top's place minus keep, and
// bounding a stack reads no entry.

func (t *tx) stack(st app.HistoryStack) bucket {
	if st == app.RedoStack {
		return t.bucket(bucketRedo)
	}
	return t.bucket(bucketUndo)
}

// seqOf is the place of a history key.
func seqOf(k []byte) uint64 { return binary.BigEndian.Uint64(k[16:]) }

// top positions c on the newest entry of a project's stack; nil when the
// stack is empty.
func top(c cursor, prefix []byte) (k, v []byte) {
	k, _ = c.Seek(binary.BigEndian.AppendUint64(bytes.Clone(prefix), ^uint64(0)))
	if k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	if k == nil || !bytes.HasPrefix(k, prefix) {
		return nil, nil
	}
	return k, v
}

func decodeEntry(k, v []byte) (*app.HistoryEntry, error) {
	e, err := decode[app.HistoryEntry](v)
	if e != nil {
		e.Seq = seqOf(k)
	}
	return e, err
}

func (t *tx) History(projectID string, st app.HistoryStack) ([]*app.HistoryEntry, error) {
	prefix := uuidKey(projectID)
	out := []*app.HistoryEntry{}
	c := t.stack(st).Cursor()
	for k, v := top(c, prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Prev() {
		e, err := decodeEntry(k, v)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func (t *tx) HistoryTop(projectID string, st app.HistoryStack) (*app.HistoryEntry, error) {
	k, v := top(t.stack(st).Cursor(), uuidKey(projectID))
	if k == nil {
		return nil, nil
	}
	return decodeEntry(k, v)
}

func (t *tx) PushHistory(st app.HistoryStack, e *app.HistoryEntry, keep int) error {
	b := t.stack(st)
	prefix := uuidKey(e.ProjectID)
	if e.Seq == 0 {
		e.Seq = 1
		if k, _ := top(b.Cursor(), prefix); k != nil {
			e.Seq = seqOf(k) + 1
		}
	}
	if err := put(b, historyKey(e.ProjectID, e.Seq), e); err != nil {
		return err
	}
	if keep <= 0 || e.Seq <= uint64(keep) {
		return nil
	}
	// Drop what is below the newest keep places.
	var old [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && seqOf(k) <= e.Seq-uint64(keep); k, _ = c.Next() {
		old = append(old, bytes.Clone(k))
	}
	for _, k := range old {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) PopHistory(projectID string, st app.HistoryStack) error {
	b := t.stack(st)
	k, _ := top(b.Cursor(), uuidKey(projectID))
	if k == nil {
		return nil
	}
	return b.Delete(bytes.Clone(k))
}

func (t *tx) ClearHistory(projectID string, st app.HistoryStack) error {
	return deletePrefix(t.stack(st), uuidKey(projectID))
}

package app

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// A deleted node's folder, kept for undo. Deleting a node (DeleteNode, or
// an undo or redo that deletes it) moves its folder, whole and as it is
// (disks, NVRAM, configs, scripts, hidden files), into the project's
// trash, .trash/<node id>; bringing the node back (an undo of its delete,
// a redo of its creation) moves it back before anything else can touch
// the node (its container is made after). A rename keeps every byte, and
// costs neither time nor disk beyond what the folder already held.
//
// The folder stays in the trash while an entry of the project's history
// names the node, and sweepNodeTrash removes it once none does: when the
// history drops the entry (its bound, MaxHistory; a new change that
// empties the redo stack), at each node's delete, and when the project is
// opened or closed. A project's delete removes its folder, trash and all.
// The trash is hidden (a dot name): exports, snapshots, duplicates, the
// project's file API and restores never see it.
//
// Where a node's folder is follows whether its record exists: under
// trashMu, a folder goes to the trash only if its node is gone, and comes
// back only if its node exists, so a delete and an undo that race end
// with the folder where the last of them says.

// trashDir is the folder of a project's folder that keeps its deleted
// nodes' folders.
const trashDir = ".trash"

// nodeTrash is where node n's folder waits, relative to its project's
// folder, with /.
func nodeTrash(n *Node) string { return trashDir + "/" + n.ID }

// nodeFolderRel is n's folder relative to its project's folder, with /,
// or "" when its type keeps none here (or it is remote).
func (s *Service) nodeFolderRel(n *Node) string {
	dir := s.NodeDirectory(n)
	if dir == nil {
		return ""
	}
	rel, err := filepath.Rel(s.ProjectDir(n.ProjectID), *dir)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}

// nodeExists reports whether node n's record exists now.
func (s *Service) nodeExists(n *Node) bool {
	_, err := s.FindNode(context.Background(), NodeRef{ProjectID: n.ProjectID, NodeID: n.ID})
	return err == nil
}

// trashNodeFolder moves the folder of n, a node just deleted, into its
// project's trash, unless n exists again (an undo came first) or has no
// folder; then sweeps the trash. A failure is logged: the folder stays.
func (s *Service) trashNodeFolder(n *Node) {
	rel := s.nodeFolderRel(n)
	if rel == "" {
		return
	}
	s.trashMu.Lock()
	defer s.trashMu.Unlock()
	if s.nodeExists(n) {
		return
	}
	root, err := os.OpenRoot(s.ProjectDir(n.ProjectID))
	if err != nil {
		return // no project folder: nothing was ever written
	}
	defer root.Close()
	if _, err := root.Lstat(rel); errors.Is(err, fs.ErrNotExist) {
		return
	}
	to := nodeTrash(n)
	err = root.RemoveAll(to) // what an older delete of it left
	if err == nil {
		err = root.MkdirAll(trashDir, 0o755)
	}
	if err == nil {
		err = root.Rename(rel, to)
	}
	if err != nil {
		s.c.Logger.Warn("a deleted node's folder could not be kept for undo; it stays where it was", "node", n.Name, "folder", rel, "err", err)
		return
	}
	s.sweepNodeTrashLocked(n.ProjectID)
}

// bringBackNodeFolder moves the folder of n, a node just brought back,
// from its project's trash to its place, if the trash has it and n
// exists. A folder found at its place (none should be) is kept, and the
// trash's copy stays for the sweep.
func (s *Service) bringBackNodeFolder(n *Node) {
	rel := s.nodeFolderRel(n)
	if rel == "" {
		return
	}
	s.trashMu.Lock()
	defer s.trashMu.Unlock()
	if s.nodeExists(n) {
		s.bringBackLocked(n, rel)
	}
}

// bringBackLocked moves n's folder from the trash to rel, its place, if
// the trash has it; trashMu is held and n exists.
func (s *Service) bringBackLocked(n *Node, rel string) {
	root, err := os.OpenRoot(s.ProjectDir(n.ProjectID))
	if err != nil {
		return
	}
	defer root.Close()
	from := nodeTrash(n)
	if _, err := root.Lstat(from); err != nil {
		return
	}
	if _, err := root.Lstat(rel); err == nil {
		s.c.Logger.Warn("a node brought back already has a folder; its deleted files stay in the trash", "node", n.Name, "folder", rel)
		return
	}
	err = root.MkdirAll(filepath.ToSlash(filepath.Dir(filepath.FromSlash(rel))), 0o755)
	if err == nil {
		err = root.Rename(from, rel)
	}
	if err != nil {
		s.c.Logger.Warn("a node brought back could not get its files back", "node", n.Name, "folder", rel, "err", err)
	}
}

// sweepNodeTrash removes the folders of a project's trash whose node no
// entry of its history names, nor exists (so that nothing can bring it
// back), and the trash once empty; the folder of a node that exists (an
// undo whose move a killed nodedesk did not make) goes back to its place.
// A failure is left for the next sweep.
func (s *Service) sweepNodeTrash(projectID string) {
	s.trashMu.Lock()
	defer s.trashMu.Unlock()
	s.sweepNodeTrashLocked(projectID)
}

func (s *Service) sweepNodeTrashLocked(projectID string) {
	root, err := os.OpenRoot(filepath.Join(s.ProjectDir(projectID), trashDir))
	if err != nil {
		return // no trash: the common case, one failed open
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return
	}
	var candidates []string
	for _, e := range entries {
		if id, ok := canonicalID(e.Name()); ok && id == e.Name() {
			candidates = append(candidates, id)
		}
	}
	if len(candidates) == 0 {
		if len(entries) == 0 {
			_ = os.Remove(filepath.Join(s.ProjectDir(projectID), trashDir))
		}
		return
	}
	kept := map[string]bool{}
	var back []*Node
	err = s.view(func(tx Tx) error {
		for _, id := range candidates {
			if n, err := tx.Node(projectID, id); err != nil {
				return err
			} else if n != nil {
				back = append(back, n) // brought back, its move not done (nodedesk was killed)
				kept[id] = true
			}
		}
		for _, st := range []HistoryStack{UndoStack, RedoStack} {
			entries, err := tx.History(projectID, st)
			if err != nil {
				return err
			}
			for _, e := range entries {
				for _, c := range e.Nodes {
					kept[either(c).ID] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		return
	}
	for _, n := range back {
		if rel := s.nodeFolderRel(n); rel != "" {
			s.bringBackLocked(n, rel)
		}
	}
	for _, id := range candidates {
		if !kept[id] {
			_ = root.RemoveAll(id)
		}
	}
	if rest, err := fs.ReadDir(root.FS(), "."); err == nil && len(rest) == 0 {
		_ = os.Remove(filepath.Join(s.ProjectDir(projectID), trashDir))
	}
}

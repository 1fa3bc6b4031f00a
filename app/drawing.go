package app

import (
	"context"
)

// Drawing is a shape, a note or an image on a project's canvas: an SVG
// document placed at x, y, stacked by z, turned by rotation. It takes no
// part in the network. Its JSON tags are the store's record format and
// GNS3's wire form (plus seq).
//
// SVG is kept as given: an SVG document or, as GNS3 also accepts, the name
// of an image file of the project.
type Drawing struct {
	ID        string `json:"drawing_id"`
	ProjectID string `json:"project_id"`
	SVG       string `json:"svg"`
	X         int    `json:"x"`
	Y         int    `json:"y"`
	Z         int    `json:"z"`
	Locked    bool   `json:"locked"`
	Rotation  int    `json:"rotation"`
	// Seq orders a project's drawings by creation; the store assigns it.
	Seq uint64 `json:"seq"`
}

// DrawingUpdate is a request for a new drawing or a change to one; every
// field is optional. ID names a new drawing (GNS3 clients choose the id of
// the drawing they create); on a change it is ignored, and so is a
// project_id, so that a client may send back what it read.
type DrawingUpdate struct {
	ID       Field[string] `json:"drawing_id"`
	SVG      Field[string] `json:"svg"`
	X        Field[int]    `json:"x"`
	Y        Field[int]    `json:"y"`
	Z        Field[int]    `json:"z"`
	Locked   Field[bool]   `json:"locked"`
	Rotation Field[int]    `json:"rotation"`
}

// DrawingChanged is the payload of a drawing.updated event: the drawing
// after the change, and whether its svg changed. GNS3 leaves the svg out
// of the event when it did not, so that a move does not resend an image.
type DrawingChanged struct {
	Drawing    *Drawing
	SVGChanged bool
}

// The bounds of a drawing's rotation, in degrees (GNS3's).
const (
	MinDrawingRotation = -359
	MaxDrawingRotation = 360
)

// newDrawing is a drawing with GNS3's defaults: an empty SVG at 0, 0, above
// the nodes (z 2), unlocked and not turned.
func newDrawing(projectID, id string) *Drawing {
	return &Drawing{ID: id, ProjectID: projectID, SVG: "<svg></svg>", Z: 2}
}

// apply checks u and returns the changed drawing; d is not modified.
func (u DrawingUpdate) apply(d *Drawing) (*Drawing, error) {
	c := *d
	if u.Rotation.has() {
		if r := u.Rotation.Value; r < MinDrawingRotation || r > MaxDrawingRotation {
			return nil, Invalid("rotation", "A drawing's rotation is in degrees, from %d to %d; %d is out of range",
				MinDrawingRotation, MaxDrawingRotation, r)
		}
		c.Rotation = u.Rotation.Value
	}
	setIf(&c.SVG, u.SVG)
	setIf(&c.X, u.X)
	setIf(&c.Y, u.Y)
	setIf(&c.Z, u.Z)
	setIf(&c.Locked, u.Locked)
	return &c, nil
}

func drawingNotFound(id string) error {
	return Errorf(ENOTFOUND, "Drawing ID %s doesn't exist", id)
}

// CreateDrawing adds a drawing to a project, with GNS3's defaults for what
// u leaves out. A drawing_id the project already has returns that drawing
// unchanged, as GNS3 does. Codes: EINVALID, ENOTFOUND.
func (s *Service) CreateDrawing(ctx context.Context, projectID string, u DrawingUpdate) (*Drawing, error) {
	id := s.c.NewID()
	if u.ID.has() {
		var ok bool
		if id, ok = canonicalID(u.ID.Value); !ok {
			return nil, Invalid("drawing_id", "Drawing ID %s is not a valid UUID", u.ID.Value)
		}
	}
	var d *Drawing
	err := s.update(ctx, func(tx Tx, emit emitFunc) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		if existing, err := tx.Drawing(p.ID, id); err != nil || existing != nil {
			d = existing
			if err == nil {
				err = errUnchanged
			}
			return err
		}
		if d, err = newDrawingIn(tx, p.ID, id, u); err != nil {
			return err
		}
		emit(EventDrawingCreated, d.ProjectID, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// newDrawingIn makes and stores, inside tx, a new drawing of project
// projectID with id: GNS3's defaults changed by u. It is the one way a
// drawing is created, through the API or from a project file.
func newDrawingIn(tx Tx, projectID, id string, u DrawingUpdate) (*Drawing, error) {
	d, err := u.apply(newDrawing(projectID, id))
	if err != nil {
		return nil, err
	}
	return d, tx.PutDrawing(d)
}

// FindDrawings returns a project's drawings in creation order. Codes:
// ENOTFOUND.
func (s *Service) FindDrawings(ctx context.Context, projectID string) ([]*Drawing, error) {
	var ds []*Drawing
	err := s.view(func(tx Tx) error {
		p, err := findProject(tx, projectID)
		if err != nil {
			return err
		}
		ds, err = tx.Drawings(p.ID)
		return err
	})
	return ds, err
}

// FindDrawing returns one drawing. Codes: ENOTFOUND.
func (s *Service) FindDrawing(ctx context.Context, projectID, drawingID string) (*Drawing, error) {
	var d *Drawing
	err := s.view(func(tx Tx) (err error) {
		d, err = findDrawing(tx, projectID, drawingID)
		return err
	})
	return d, err
}

// UpdateDrawing changes a drawing. A change that changes nothing writes
// and publishes nothing. Codes: EINVALID, ENOTFOUND.
func (s *Service) UpdateDrawing(ctx context.Context, projectID, drawingID string, u DrawingUpdate) (*Drawing, error) {
	var after *Drawing
	err := s.update(ctx, func(tx Tx, emit emitFunc) error {
		before, err := findDrawing(tx, projectID, drawingID)
		if err != nil {
			return err
		}
		if after, err = u.apply(before); err != nil {
			return err
		}
		if unchanged(before, after) {
			return errUnchanged
		}
		emit(EventDrawingUpdated, after.ProjectID, &DrawingChanged{Drawing: after, SVGChanged: after.SVG != before.SVG})
		return tx.PutDrawing(after)
	})
	if err != nil {
		return nil, err
	}
	return after, nil
}

// DeleteDrawing removes a drawing; a locked one stays until it is
// unlocked, as in GNS3. Codes: ENOTFOUND, ECONFLICT (locked).
func (s *Service) DeleteDrawing(ctx context.Context, projectID, drawingID string) error {
	return s.update(ctx, func(tx Tx, emit emitFunc) error {
		d, err := findDrawing(tx, projectID, drawingID)
		if err != nil {
			return err
		}
		if d.Locked {
			return Conflict("locked", "Drawing ID %s cannot be deleted because it is locked; unlock it first", d.ID)
		}
		emit(EventDrawingDeleted, d.ProjectID, d)
		return tx.DeleteDrawing(d.ProjectID, d.ID)
	})
}

// findDrawing resolves a drawing of a project. Ids that are not UUIDs are
// simply not found, as in GNS3.
func findDrawing(tx Tx, projectID, drawingID string) (*Drawing, error) {
	p, err := findProject(tx, projectID)
	if err != nil {
		return nil, err
	}
	did, ok := canonicalID(drawingID)
	if !ok {
		return nil, drawingNotFound(drawingID)
	}
	d, err := tx.Drawing(p.ID, did)
	if err == nil && d == nil {
		err = drawingNotFound(drawingID)
	}
	return d, err
}

package app

import (
	"context"
	"encoding/json"
	"time"
)

// Idle-PC for an image: GNS3's IOS router wizard asks its server for an
// idle-PC value of an image before any router runs it. The server boots a
// router of that image in a project of its own, waits for IOS to settle,
// samples it (AutoIdlePC) and removes the project whatever happens.

// AutoIdlePCProject is the name of the project an image's idle PC is
// found in, as GNS3 names it; one left by an earlier search is removed.
const AutoIdlePCProject = "AUTOIDLEPC"

// DefaultIdlePCBoot is how long a router is given to boot before its idle
// PC is sampled, as GNS3 waits.
const DefaultIdlePCBoot = 20 * time.Second

// ImageIdlePC is an image's idle-PC search: the router to run.
type ImageIdlePC struct {
	Platform string `json:"platform"`
	Image    string `json:"image"`
	RAM      int    `json:"ram"`
}

// FindImageIdlePC finds an idle-PC value for an IOS image, as GNS3's
// controller does for its IOS router wizard. Codes: EINVALID (no such
// platform, no image, RAM not positive), ECONFLICT (the image is not in
// the images folders, Dynamips cannot run, or no value works), and those
// of AutoIdlePC.
func (s *Service) FindImageIdlePC(ctx context.Context, q ImageIdlePC) (string, error) {
	if _, ok := DynamipsPlatforms[q.Platform]; !ok {
		return "", Invalid("platform", "platform %q is not one Dynamips runs: choose one of %v", q.Platform, dynamipsPlatformNames)
	}
	if q.Image == "" {
		return "", Invalid("image", "name the IOS image to find an idle-PC value for")
	}
	if q.RAM <= 0 {
		return "", Invalid("ram", "ram must be the router's memory in MB, such as 256")
	}
	if _, err := s.ImagePath(IOSImages, q.Image); err != nil {
		return "", Errorf(ECONFLICT, "The image %s is missing: upload it or copy it into the IOS images folder, then try again", q.Image)
	}
	if err := s.removeAutoIdlePCProject(ctx); err != nil {
		return "", err
	}
	p, err := s.CreateProject(ctx, ProjectCreate{ProjectUpdate: ProjectUpdate{Name: Some(AutoIdlePCProject)}})
	if err != nil {
		return "", err
	}
	defer func() {
		if err := s.DeleteProject(context.WithoutCancel(ctx), p.ID); err != nil {
			s.c.Logger.Error("the idle-PC search's project could not be removed", "project", p.ID, "err", err)
		}
	}()
	props, _ := json.Marshal(map[string]any{"platform": q.Platform, "image": q.Image, "ram": q.RAM, "idlepc": ""})
	raw, err := DecodeProperties(Dynamips, props)
	if err != nil {
		return "", err
	}
	n, err := s.CreateNode(ctx, p.ID, NodeCreate{Type: Dynamips, NodeUpdate: NodeUpdate{Name: Some(AutoIdlePCProject), Properties: raw}})
	if err != nil {
		return "", err
	}
	ref := NodeRef{ProjectID: p.ID, NodeID: n.ID}
	if _, err := s.NodeAction(ctx, ref, Start); err != nil {
		return "", err
	}
	select {
	case <-time.After(s.idlePCBoot()):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return s.AutoIdlePC(ctx, ref)
}

// removeAutoIdlePCProject removes the project an earlier search left.
func (s *Service) removeAutoIdlePCProject(ctx context.Context) error {
	projects, err := s.FindProjects(ctx)
	if err != nil {
		return err
	}
	for _, p := range projects {
		if p.Name == AutoIdlePCProject {
			if err := s.DeleteProject(ctx, p.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Service) idlePCBoot() time.Duration {
	if s.c.IdlePCBoot > 0 {
		return s.c.IdlePCBoot
	}
	return DefaultIdlePCBoot
}

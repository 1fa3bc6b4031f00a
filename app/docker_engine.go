package app

import "context"

// DockerEngine is what nodedesk asks of the Docker Engine of this machine
// besides running containers (the Runner does that): which images it
// holds, for GNS3's image list and the template dialog. Docker's runner
// (package app/docker) has it; without it Docker is not available.
type DockerEngine interface {
	// Images lists the engine's local images by repository and tag
	// ("alpine:latest"), as GNS3 lists them; untagged images are left
	// out. An engine that cannot be reached is a conflict whose message
	// says what to do.
	Images(ctx context.Context) ([]DockerImage, error)
}

// DockerImage is one local Docker image, as GNS3 answers
// GET /v2/compute/docker/images.
type DockerImage struct {
	Image string `json:"image"`
}

// DockerImages lists the local images of this machine's Docker Engine,
// sorted; a conflict that says what to do when Docker is not available.
func (s *Service) DockerImages(ctx context.Context) ([]DockerImage, error) {
	engine, ok := capability[DockerEngine](s)
	if !ok {
		return nil, Errorf(ECONFLICT, "Docker is not available to nodedesk: install Docker (sudo apt-get install docker.io) and restart nodedesk")
	}
	imgs, err := engine.Images(ctx)
	if imgs == nil && err == nil {
		imgs = []DockerImage{}
	}
	return imgs, err
}

package app

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Node names are unique within a project. A new node's name is allocated
// the way GNS3 does it, so habits carry over: spaces are removed; a name
// with {0} takes the first free number ("PC{0}" -> PC1, PC2, ...); a taken
// name has its trailing digits replaced by {0} ("PC2" -> PC3 if PC1 is
// taken); any other taken name gets a number appended ("core" -> core1).
// A rename keeps the name exactly as given and is refused if it is taken.

var trailingDigits = regexp.MustCompile(`[0-9]+$`)

// maxNameTries bounds the search for a free name.
const maxNameTries = 1_000_000

// nameHints remembers, per project and name pattern, a number below
// which every name of the pattern is taken, so that creating the Nth
// "Hub{0}" does not probe Hub1 … HubN-1 again. A hint only says where to
// start looking; the index still decides what is free. Freeing a name
// (delete, rename) or a rolled-back batch forgets the project's hints, so
// that the first free number is found again.
type nameHints struct {
	mu    sync.Mutex
	start map[string]int // "<project>|<pattern>" -> first number to try
}

func (h *nameHints) get(projectID, pattern string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return max(1, h.start[projectID+"|"+pattern])
}

func (h *nameHints) set(projectID, pattern string, next int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.start == nil {
		h.start = map[string]int{}
	}
	h.start[projectID+"|"+pattern] = next
}

// forget drops the hints of a project ("" drops all).
func (h *nameHints) forget(projectID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k := range h.start {
		if projectID == "" || strings.HasPrefix(k, projectID+"|") {
			delete(h.start, k)
		}
	}
}

// allocateName returns the first free name for the wanted one. For a name
// with a number pattern it also returns the pattern and the number used;
// from gives the number to start at for a pattern.
func allocateName(want string, from func(pattern string) int, taken func(string) (bool, error)) (name, pattern string, number int, err error) {
	name = strings.ReplaceAll(want, " ", "")
	if name == "" {
		return "", "", 0, Invalid("name", "A node name cannot be empty or only spaces")
	}
	if !strings.Contains(name, "{0}") && !strings.Contains(name, "{id}") {
		t, err := taken(name)
		if err != nil || !t {
			return name, "", 0, err
		}
		if trailingDigits.MatchString(name) {
			name = trailingDigits.ReplaceAllString(name, "{0}")
		} else {
			name += "{0}"
		}
	}
	pattern = strings.ReplaceAll(name, "{id}", "{0}")
	for i := from(pattern); i < maxNameTries; i++ {
		candidate := strings.ReplaceAll(pattern, "{0}", strconv.Itoa(i))
		t, err := taken(candidate)
		if err != nil {
			return "", "", 0, err
		}
		if !t {
			return candidate, pattern, i, nil
		}
	}
	return "", "", 0, Errorf(ECONFLICT, "No free name could be found for %q; choose another name", want)
}

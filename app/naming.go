package app

import (
	"regexp"
	"strconv"
	"strings"
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

// allocateName returns the first free name for the wanted one.
func allocateName(want string, taken func(string) (bool, error)) (string, error) {
	name := strings.ReplaceAll(want, " ", "")
	if name == "" {
		return "", Errorf(EINVALID, "A node name cannot be empty or only spaces")
	}
	if !strings.Contains(name, "{0}") && !strings.Contains(name, "{id}") {
		t, err := taken(name)
		if err != nil || !t {
			return name, err
		}
		if trailingDigits.MatchString(name) {
			name = trailingDigits.ReplaceAllString(name, "{0}")
		} else {
			name += "{0}"
		}
	}
	for i := 1; i < maxNameTries; i++ {
		candidate := strings.NewReplacer("{0}", strconv.Itoa(i), "{id}", strconv.Itoa(i)).Replace(name)
		t, err := taken(candidate)
		if err != nil {
			return "", err
		}
		if !t {
			return candidate, nil
		}
	}
	return "", Errorf(ECONFLICT, "No free name could be found for %q; choose another name", want)
}

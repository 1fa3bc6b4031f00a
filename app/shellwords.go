package app

import (
	"fmt"
	"strings"
)

// SplitWords splits a command line into words as a POSIX shell would:
// blanks separate, quotes group, a backslash escapes (no expansions). A
// QEMU node's options and a Docker node's start command are read so.
func SplitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			if quote == '"' && !strings.ContainsRune("$`\"\\\n", r) {
				w.WriteRune('\\')
			}
			if r != '\n' {
				w.WriteRune(r)
			}
			escaped, inWord = false, true
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				w.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				w.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("a %c quote is not closed", quote)
	}
	if escaped {
		return nil, fmt.Errorf("it ends with a backslash")
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

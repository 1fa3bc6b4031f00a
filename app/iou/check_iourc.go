package iou

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// hostnameLimit is the longest machine hostname older IOU images boot with.
const hostnameLimit = 15

// CheckIOURC checks the IOU licence file (iourc) content the way GNS3 2.2
// does before a start when its licence check is on (_check_iou_license in
// iou_vm.py): an INI file, read as Python's configparser reads it (keys
// are matched without regard to case, values trimmed, "#" and ";" start
// comment lines, a key or section given twice is an error), with a
// [license] section holding "<hostname> = <key>;" for this machine's
// hostname, the key being 16 hexadecimal digits. Whether the key is the
// right one for this machine is left to the image. The error says what is
// wrong and what to do.
func CheckIOURC(content, hostname string) error {
	if hostname == "" {
		return fmt.Errorf("this machine has no hostname, and IOU licences are tied to it: set one (hostnamectl set-hostname NAME) and make the key for it")
	}
	if strings.TrimSpace(content) == "" {
		return fmt.Errorf("the IOU licence (iourc) is empty: paste yours into the IOU licence settings (it holds a [license] section with the line \"%s = <16 hexadecimal digits>;\"), or, for an image that needs no licence, turn the licence check off there", hostname)
	}
	if !utf8.ValidString(content) {
		line := 1 + strings.Count(content[:invalidUTF8At(content)], "\n")
		return fmt.Errorf("line %d of the IOU licence (iourc) has bytes that are not text (not UTF-8): retype that line with plain letters and digits", line)
	}
	ini, err := parseINI(content)
	if err != nil {
		return err
	}
	lic, ok := ini.sections["license"]
	if !ok {
		hint := ""
		for _, name := range ini.order {
			if strings.EqualFold(strings.TrimSpace(name), "license") {
				hint = fmt.Sprintf(" (it has [%s]: the name must be exactly [license], in lower case and without spaces)", name)
			}
		}
		return fmt.Errorf("the IOU licence (iourc) has no [license] section%s: put \"[license]\" on the line above \"%s = <key>;\"", hint, hostname)
	}
	e, ok := lic.entries[strings.ToLower(hostname)]
	if !ok {
		have := ""
		if len(lic.order) > 0 {
			have = " (it has keys for: " + strings.Join(lic.order, ", ") + ")"
		}
		return fmt.Errorf("the IOU licence (iourc) has no key for this machine's hostname %q%s: an IOU key is made for one hostname, "+
			"so add the line \"%s = <key>;\" with a key made for this machine, or give the machine back the hostname the key was made for", hostname, have, hostname)
	}
	key := e.value
	if !strings.HasSuffix(key, ";") {
		return fmt.Errorf("the IOU key for %q on line %d of the iourc must end with \";\" (it is %q): write it as \"%s = <16 hexadecimal digits>;\"", hostname, e.line, key, hostname)
	}
	digits := strings.TrimSuffix(key, ";")
	if n := utf8.RuneCountInString(digits); n != 16 {
		return fmt.Errorf("the IOU key for %q on line %d of the iourc has %d characters before its \";\", not 16 (it is %q): copy the whole key, 16 hexadecimal digits", hostname, e.line, n, key)
	}
	for _, c := range digits {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return fmt.Errorf("the IOU key for %q on line %d of the iourc has %q, which is not a hexadecimal digit (0-9, a-f): copy the key again", hostname, e.line, c)
		}
	}
	return nil
}

// HostnameWarning is a warning to show when this machine's hostname is
// longer than older IOU images accept (they may not boot); "" when it is
// fine.
func HostnameWarning(hostname string) string {
	n := utf8.RuneCountInString(hostname)
	if n <= hostnameLimit {
		return ""
	}
	return fmt.Sprintf("this machine's hostname %q is %d characters long, and older IOU images may not boot when it is longer than %d: "+
		"give the machine a shorter hostname (hostnamectl set-hostname NAME), then make a new IOU key for that name, as the key is tied to it",
		hostname, n, hostnameLimit)
}

// iniEntry is a key's value and the line it is on.
type iniEntry struct {
	value string
	line  int
}

type iniSection struct {
	line    int
	entries map[string]iniEntry // by lower-case key
	order   []string            // keys as written
}

type iniFile struct {
	sections map[string]*iniSection
	order    []string
}

// parseINI reads an INI file as Python's configparser does by default
// (GNS3 reads the iourc with it), with errors in nodedesk's words: section
// names are case-sensitive and taken as written between the first "[" and
// the last "]"; keys are trimmed and compared in lower case; a key runs to
// the first "=" or ":"; values are trimmed; lines starting with "#" or ";"
// are comments; an indented line continues the value above it.
func parseINI(s string) (*iniFile, error) {
	f := &iniFile{sections: map[string]*iniSection{}}
	var sec *iniSection
	var last string // the key an indented line continues
	lines := strings.Split(s, "\n")
	for i, raw := range lines {
		n := i + 1
		line := strings.TrimRight(raw, "\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			last = ""
			continue
		}
		if trimmed[0] == '#' || trimmed[0] == ';' {
			continue
		}
		indented := line[0] == ' ' || line[0] == '\t'
		if indented && sec != nil && last != "" {
			e := sec.entries[last]
			e.value = strings.TrimSpace(e.value + "\n" + trimmed)
			sec.entries[last] = e
			continue
		}
		if trimmed[0] == '[' && strings.LastIndexByte(trimmed, ']') > 1 {
			name := trimmed[1:strings.LastIndexByte(trimmed, ']')]
			if prev, ok := f.sections[name]; ok {
				return nil, fmt.Errorf("the IOU licence (iourc) has the section [%s] twice (lines %d and %d): keep one", name, prev.line, n)
			}
			sec = &iniSection{line: n, entries: map[string]iniEntry{}}
			f.sections[name] = sec
			f.order = append(f.order, name)
			last = ""
			continue
		}
		if sec == nil {
			return nil, fmt.Errorf("line %d of the IOU licence (iourc), %q, comes before any section: the file must start with \"[license]\"", n, trimmed)
		}
		at := strings.IndexAny(line, "=:")
		key := ""
		if at >= 0 {
			key = strings.TrimSpace(line[:at])
		}
		if key == "" {
			return nil, fmt.Errorf("line %d of the IOU licence (iourc), %q, is not of the form \"<hostname> = <key>;\": correct or remove it", n, trimmed)
		}
		lower := strings.ToLower(key)
		if prev, ok := sec.entries[lower]; ok {
			return nil, fmt.Errorf("the IOU licence (iourc) gives %q twice (lines %d and %d): keep one", key, prev.line, n)
		}
		sec.entries[lower] = iniEntry{value: strings.TrimSpace(line[at+1:]), line: n}
		sec.order = append(sec.order, key)
		last = lower
	}
	return f, nil
}

// invalidUTF8At is the byte offset of the first invalid UTF-8 in s.
func invalidUTF8At(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return len(s)
}

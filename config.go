package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The optional configuration file holds the settings a user does not want
// to type (or show in `ps`) each time: lines of `key = value`, # comments.
// Keys: listen, db, auth_user, auth_password, udp_ports. Flags override the file.

// configKeys are the keys a configuration file may set.
var configKeys = map[string]bool{"listen": true, "db": true, "auth_user": true, "auth_password": true, "udp_ports": true}

// defaultConfig is $XDG_CONFIG_HOME/nodedesk/nodedesk.conf, else
// ~/.config/nodedesk/nodedesk.conf.
func defaultConfig() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = "."
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "nodedesk", "nodedesk.conf")
}

// readConfig reads a configuration file. A missing file is no error
// unless it was named explicitly.
func readConfig(path string, explicit bool) (map[string]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read configuration %s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	conf := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || !configKeys[k] {
			return nil, fmt.Errorf("%s line %d: expected one of listen, db, auth_user, auth_password as `key = value`", path, n)
		}
		conf[k] = v
	}
	return conf, sc.Err()
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

package app

import (
	"context"
	"encoding/json"
	"maps"
)

// An emulator's own settings: what it keeps as a whole, not per node, as
// GNS3 keeps them (IOU's licence: the content of an iourc file and whether
// starts check it). Its row in the node-type table names them
// (nodeKind.settings); the store keeps them as one JSON object under the
// row's name, GNS3-keyed, defaults left out until set.

// emulatorSettings are the settings of one emulator.
type emulatorSettings struct {
	// name is what the store keeps them under.
	name  string
	table settingTable
	// inStart: every start of a node is given them (Process.StartBody),
	// as GNS3's controller sends them with each start.
	inStart bool
}

// HasSettings reports whether t's emulator keeps settings of its own
// (EmulatorSettings).
func (t NodeType) HasSettings() bool { return t.kind().settings != nil }

// emulatorSettingsOf returns t's settings, or ENOTFOUND if it has none.
func emulatorSettingsOf(t NodeType) (*emulatorSettings, error) {
	if es := t.kind().settings; es != nil {
		return es, nil
	}
	return nil, Errorf(ENOTFOUND, "%s nodes have no settings of their own", t.Title())
}

// EmulatorSettings returns the settings of the emulator of type t's nodes,
// under GNS3's keys, each with its default until it is set. Codes:
// ENOTFOUND (a type without such settings).
func (s *Service) EmulatorSettings(ctx context.Context, t NodeType) (map[string]any, error) {
	es, err := emulatorSettingsOf(t)
	if err != nil {
		return nil, err
	}
	var v map[string]any
	err = s.view(func(tx Tx) error {
		stored, err := tx.EmulatorSettings(es.name)
		v = es.table.view(stored, nil)
		return err
	})
	return v, err
}

// UpdateEmulatorSettings changes some settings of type t's emulator (a key
// set to null goes back to its default) and returns them all. Codes:
// ENOTFOUND, EINVALID (a value the setting does not take, or a key it
// does not have).
func (s *Service) UpdateEmulatorSettings(ctx context.Context, t NodeType, u map[string]json.RawMessage) (map[string]any, error) {
	es, err := emulatorSettingsOf(t)
	if err != nil {
		return nil, err
	}
	for k := range u {
		if !es.table.known(k) {
			return nil, Invalid(k, "%s is not a setting of %s nodes; they have %v", k, t.Title(), es.table.keys())
		}
	}
	var after map[string]json.RawMessage
	err = s.update(ctx, func(tx Tx, emit emitFunc) error {
		stored, err := tx.EmulatorSettings(es.name)
		if err != nil {
			return err
		}
		if after, err = es.table.apply(stored, u); err != nil {
			return err
		}
		if maps.EqualFunc(stored, after, func(a, b json.RawMessage) bool { return string(a) == string(b) }) && stored != nil {
			return errUnchanged
		}
		return tx.PutEmulatorSettings(es.name, after)
	})
	if err != nil {
		return nil, err
	}
	return es.table.view(after, nil), nil
}

// startBody is what a start of a node of type t is given of its
// emulator's settings (nil: none).
func (s *Service) startBody(ctx context.Context, t NodeType) (map[string]json.RawMessage, error) {
	es := t.kind().settings
	if es == nil || !es.inStart {
		return nil, nil
	}
	v, err := s.EmulatorSettings(ctx, t)
	if err != nil {
		return nil, err
	}
	return toExtra(v), nil
}

package app

import (
	"bytes"
	"encoding/json"
)

// Field is one field of an update or create request. It tells apart the
// three things a JSON client can say: nothing (Set is false: keep the current
// value), null (Null is true), or a value.
type Field[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// Some returns a Field holding v.
func Some[T any](v T) Field[T] { return Field[T]{Set: true, Value: v} }

// Null returns a Field set to null.
func Null[T any]() Field[T] { return Field[T]{Set: true, Null: true} }

// UnmarshalJSON records that the field was present, and whether it was null.
func (f *Field[T]) UnmarshalJSON(b []byte) error {
	f.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		f.Null = true
		return nil
	}
	return json.Unmarshal(b, &f.Value)
}

// has reports whether the field carries a value (present and not null).
func (f Field[T]) has() bool { return f.Set && !f.Null }

package app

import (
	"errors"
	"fmt"
	"strings"
)

// Code is the kind of a failure: a closed set that each door maps to its
// own form (an HTTP status in package api; the window reads it from the
// same error body).
type Code = string

// The error codes.
const (
	EINVALID  Code = "invalid"   // the request breaks a rule; fix the input
	ENOTFOUND Code = "not_found" // the project, node or link does not exist
	ECONFLICT Code = "conflict"  // the request collides with stored or running state
	EINTERNAL Code = "internal"  // a fault of nodedesk or its disk

	// The refusals of the door itself, before any use case runs.
	EUNAUTHORIZED Code = "unauthorized"       // credentials are missing or wrong
	EFORBIDDEN    Code = "forbidden"          // the request came from where it may not (another site, a foreign Host)
	EMETHOD       Code = "method_not_allowed" // the path exists, not with that method
)

// InternalMessage is what a person is told of an internal error, whose
// details only go to the log.
const InternalMessage = "Internal error; the details are in nodedesk's log"

// Error is a domain error: a code, a sentence a person can act on, and,
// when the fault is in one field of the request, that field's path in the
// controller node's form ("console", "properties.ports_mapping.3.vlan").
type Error struct {
	Code    Code
	Message string
	Field   string
}

// Error implements the error interface.
func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns an EINVALID *Error about one field of the request.
func Invalid(field, format string, args ...any) *Error {
	return &Error{Code: EINVALID, Message: fmt.Sprintf(format, args...), Field: field}
}

// Conflict returns an ECONFLICT *Error about one field of the request.
func Conflict(field, format string, args ...any) *Error {
	return &Error{Code: ECONFLICT, Message: fmt.Sprintf(format, args...), Field: field}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL for
// any other non-nil error, and "" for nil.
func ErrorCode(err error) Code {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	default:
		return EINTERNAL
	}
}

// ErrorMessage returns the message of the first *Error in err's chain, or
// InternalMessage for any other error, whose details must only be logged.
func ErrorMessage(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Message
	default:
		return InternalMessage
	}
}

// ErrorField returns the field path of the first *Error in err's chain, or "".
func ErrorField(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

// joinAnd joins the items of a message's list: "a", "a and b", "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

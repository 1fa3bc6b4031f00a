package app

import (
	"errors"
	"fmt"
)

// Error codes: the closed set of failure kinds a door maps to its own form
// (an HTTP status in package api, a JS error object in the desktop door).
const (
	EINVALID  = "invalid"   // the request breaks a rule; fix the input
	ENOTFOUND = "not_found" // the project or node does not exist
	ECONFLICT = "conflict"  // the request collides with stored state
	EINTERNAL = "internal"  // a fault of nodedesk or its disk
)

// Error is a domain error: a code from the set above and a sentence a person
// can act on.
type Error struct {
	Code    string
	Message string
}

// Error implements the error interface.
func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL for
// any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
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

// ErrorMessage returns the message of the first *Error in err's chain, or a
// generic sentence for internal errors, whose details must only be logged.
func ErrorMessage(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Message
	default:
		return "Internal error; the details are in nodedesk's log"
	}
}

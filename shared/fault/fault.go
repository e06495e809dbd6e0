// Package fault classifies errors once, at the adapter boundary, so the core
// can decide (retry, give up, tell the user) without knowing any SDK.
//
// An adapter wraps the SDK error it got: fault.Wrap(fault.Conflict, err,
// "put transcript part"). Callers test the class with fault.Is; users see
// Message, logs see Error (which keeps the cause).
package fault

import (
	"errors"
	"fmt"
)

// Code is an error class.
type Code string

const (
	Invalid      Code = "invalid"      // bad input; retrying will not help
	Unauthorized Code = "unauthorized" // missing or wrong credentials
	NotFound     Code = "not_found"    // the thing does not exist
	Conflict     Code = "conflict"     // a condition failed: already exists, version moved
	RateLimited  Code = "rate_limited" // slow down, then retry
	Unavailable  Code = "unavailable"  // transient: network, 5xx, throttling
	Internal     Code = "internal"     // a bug or an unclassified failure
)

// Error is a classified error. Message is safe to show a user.
type Error struct {
	Code    Code
	Message string
	Err     error // the cause, for logs; may be nil
}

func (e *Error) Error() string {
	switch {
	case e.Err == nil:
		return fmt.Sprintf("%s: %s", e.Code, e.Message)
	case e.Message == "":
		return fmt.Sprintf("%s: %v", e.Code, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// New returns a classified error without a cause.
func New(code Code, format string, args ...any) error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap classifies err. A nil err stays nil.
func Wrap(code Code, err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// CodeOf returns the class of the outermost classified error in err's chain,
// Internal when none is classified, and "" for nil.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// Is reports whether err is classified as code.
func Is(err error, code Code) bool { return err != nil && CodeOf(err) == code }

// Message returns the user-facing text of err.
func Message(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	if err == nil {
		return ""
	}
	return "internal error"
}

// Retryable reports whether trying the same call again may succeed.
func Retryable(err error) bool {
	switch CodeOf(err) {
	case RateLimited, Unavailable, Conflict, Internal:
		return true
	}
	return false
}

// OfDownload classifies the HTTP status of a failed file download (a
// channel's file or CDN URL): gone is NotFound, refused is Unauthorized,
// throttled or a server error is Unavailable (retry), anything else
// Invalid.
func OfDownload(status int) Code {
	switch {
	case status == 404:
		return NotFound
	case status == 401 || status == 403:
		return Unauthorized
	case status == 429 || status >= 500:
		return Unavailable
	}
	return Invalid
}

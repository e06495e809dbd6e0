package fault

import (
	"errors"
	"fmt"
	"testing"
)

func TestClassification(t *testing.T) {
	cause := errors.New("HTTP 401 with key sk-123")
	tests := []struct {
		name      string
		err       error
		code      Code
		message   string
		retryable bool
	}{
		{"nil", nil, "", "", false},
		{"unclassified is internal", errors.New("boom"), Internal, "internal error", true},
		{"new", New(Invalid, "field %s is required", "to"), Invalid, "field to is required", false},
		{"wrapped cause stays out of the message", Wrap(Unauthorized, cause, "the provider rejected the key"), Unauthorized, "the provider rejected the key", false},
		{"outer wrapping keeps the class", fmt.Errorf("turn x: %w", New(RateLimited, "slow down")), RateLimited, "slow down", true},
		{"unavailable is retryable", New(Unavailable, "503"), Unavailable, "503", true},
		{"conflict is retryable", New(Conflict, "version moved"), Conflict, "version moved", true},
		{"not found is final", New(NotFound, "gone"), NotFound, "gone", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := CodeOf(tc.err); got != tc.code {
				t.Errorf("CodeOf = %q; want %q", got, tc.code)
			}
			if got := Message(tc.err); got != tc.message {
				t.Errorf("Message = %q; want %q", got, tc.message)
			}
			if got := Retryable(tc.err); got != tc.retryable {
				t.Errorf("Retryable = %v; want %v", got, tc.retryable)
			}
		})
	}
	if Wrap(Internal, nil, "x") != nil {
		t.Fatal("Wrap(nil) != nil")
	}
	if err := Wrap(Unauthorized, cause, "m"); !errors.Is(err, cause) {
		t.Fatal("Wrap loses the cause for logs")
	}
}

func TestOfDownload(t *testing.T) {
	tests := []struct {
		name   string
		status int
		want   Code
	}{
		{"gone", 404, NotFound},
		{"unauthorized", 401, Unauthorized},
		{"forbidden", 403, Unauthorized},
		{"throttled", 429, Unavailable},
		{"server error", 502, Unavailable},
		{"bad request", 400, Invalid},
		{"redirect not followed", 302, Invalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := OfDownload(tc.status); got != tc.want {
				t.Errorf("OfDownload(%d) = %v; want %v", tc.status, got, tc.want)
			}
		})
	}
}

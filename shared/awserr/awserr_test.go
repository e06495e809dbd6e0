package awserr

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/aws/smithy-go"

	"github.com/zero-gateway/zero/shared/fault"
)

func TestCode(t *testing.T) {
	service := map[string]fault.Code{"NoSuchBucket": fault.Internal, "AccessDenied": fault.Invalid}
	api := func(code string) error {
		return fmt.Errorf("operation failed: %w", &smithy.GenericAPIError{Code: code, Message: "m"})
	}
	tests := []struct {
		name string
		err  error
		want fault.Code
	}{
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), fault.Unavailable},
		{"cancelled", context.Canceled, fault.Unavailable},
		{"common throttling", api("ThrottlingException"), fault.Unavailable},
		{"common credentials", api("ExpiredToken"), fault.Unauthorized},
		{"service code", api("NoSuchBucket"), fault.Internal},
		{"service code wins over common", api("AccessDenied"), fault.Invalid},
		{"network", &net.OpError{Op: "dial", Err: errors.New("refused")}, fault.Unavailable},
		{"unknown", errors.New("boom"), fault.Internal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Code(tc.err, service); got != tc.want {
				t.Fatalf("Code = %s; want %s", got, tc.want)
			}
			if err := Classify(tc.err, service, "doing %s", "x"); fault.CodeOf(err) != tc.want || !errors.Is(err, tc.err) {
				t.Fatalf("Classify = %v; want class %s wrapping the cause", err, tc.want)
			}
		})
	}
	if Classify(nil, service, "x") != nil {
		t.Fatal("Classify(nil) != nil")
	}
}

package ssmparam

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/smithy-go/middleware"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
)

// racingClient is testClient, except that just before its first
// PutParameter another writer puts value to name.
func racingClient(t *testing.T, name, value string) *ssm.Client {
	var once sync.Once
	race := middleware.InitializeMiddlewareFunc("race", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		if _, ok := in.Parameters.(*ssm.PutParameterInput); ok {
			once.Do(func() { putRaw(t, name, value) })
		}
		return next.HandleInitialize(ctx, in)
	})
	return ssm.New(testClient.Options(), func(o *ssm.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error { return s.Initialize.Add(race, middleware.Before) })
	})
}

func TestPutIfVersion(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		initial   string // "" : no parameter
		version   func(current string) string
		race      string // another writer's value just before our put
		wantCode  fault.Code
		wantValue string
	}{
		{name: "create when missing", version: func(string) string { return "" }, wantValue: "new"},
		{name: "create when it exists", initial: "old", version: func(string) string { return "" }, wantCode: fault.Conflict, wantValue: "old"},
		{name: "replace at the current version", initial: "old", version: func(v string) string { return v }, wantValue: "new"},
		{name: "stale version changes nothing", initial: "old", version: func(string) string { return "0" }, wantCode: fault.Conflict, wantValue: "old"},
		{name: "not a version", initial: "old", version: func(string) string { return "x" }, wantCode: fault.Invalid, wantValue: "old"},
		{name: "deleted since", version: func(string) string { return "3" }, wantCode: fault.Conflict},
		{name: "a write between check and put wins", initial: "old", version: func(v string) string { return v }, race: "theirs",
			wantCode: fault.Conflict, wantValue: "theirs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := freshName(t)
			var current string
			if tc.initial != "" {
				putRaw(t, name, tc.initial)
				_, v, err := New(testClient, name).Fetch(ctx)
				if err != nil {
					t.Fatal(err)
				}
				current = v
			}
			client := testClient
			if tc.race != "" {
				client = racingClient(t, name, tc.race)
			}
			_, err := New(client, name).PutIfVersion(ctx, []byte("new"), tc.version(current))
			if got := fault.CodeOf(err); err != nil && got != tc.wantCode || err == nil && tc.wantCode != "" {
				t.Fatalf("PutIfVersion error = %v (code %q), want code %q", err, got, tc.wantCode)
			}
			data, _, err := New(testClient, name).Fetch(ctx)
			if fault.Is(err, fault.NotFound) {
				data = nil
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantValue, string(data)); diff != "" {
				t.Errorf("stored value (-want +got):\n%s", diff)
			}
		})
	}
}

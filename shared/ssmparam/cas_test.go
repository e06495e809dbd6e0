package ssmparam

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/smithy-go/middleware"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config/configtest"
	"github.com/zero-gateway/zero/shared/fault"
)

// hookedClient is testClient, except that just before its next
// PutParameter it runs the hook armed by the returned function (once).
func hookedClient() (*ssm.Client, func(hook func())) {
	var mu sync.Mutex
	var armed func()
	hook := middleware.InitializeMiddlewareFunc("beforeWrite", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		if _, ok := in.Parameters.(*ssm.PutParameterInput); ok {
			mu.Lock()
			h := armed
			armed = nil
			mu.Unlock()
			if h != nil {
				h()
			}
		}
		return next.HandleInitialize(ctx, in)
	})
	client := ssm.New(testClient.Options(), func(o *ssm.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error { return s.Initialize.Add(hook, middleware.Before) })
	})
	return client, func(h func()) { mu.Lock(); armed = h; mu.Unlock() }
}

// TestDocumentStore runs the config.DocumentStore conformance suite on the
// emulator (moto): a fresh parameter per case, the other writer through
// a client of its own.
func TestDocumentStore(t *testing.T) {
	configtest.TestDocumentStore(t, func(t *testing.T) configtest.Doc {
		name := freshName(t)
		client, beforeWrite := hookedClient()
		return configtest.Doc{Store: New(client, name), Other: New(testClient, name), BeforeWrite: beforeWrite}
	})
}

// TestPutIfVersionRefusals: what only this adapter's versions can get
// wrong (the suite covers the rest).
func TestPutIfVersionRefusals(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		initial   string // "": no parameter
		version   string
		wantCode  fault.Code
		wantCalls string // the AWS calls PutIfVersion makes
		wantValue string
	}{
		{name: "not a version number", initial: "old", version: "x", wantCode: fault.Invalid, wantValue: "old"},
		{name: "deleted since the read", version: "3", wantCode: fault.Conflict, wantCalls: "SSM.GetParameter=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := freshName(t)
			if tc.initial != "" {
				putRaw(t, name, tc.initial)
			}
			counter.Reset()
			_, err := New(testClient, name).PutIfVersion(ctx, []byte("new"), tc.version)
			if got := fault.CodeOf(err); got != tc.wantCode {
				t.Fatalf("PutIfVersion error = %v (code %q), want code %q", err, got, tc.wantCode)
			}
			if diff := cmp.Diff(tc.wantCalls, counter.String()); diff != "" {
				t.Errorf("AWS calls (-want +got):\n%s", diff)
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

// sequencedClient is testClient, except that just before its i-th
// PutParameter (0-based) it runs hooks[i], when there is one.
func sequencedClient(hooks ...func()) *ssm.Client {
	var mu sync.Mutex
	n := 0
	hook := middleware.InitializeMiddlewareFunc("beforeWrites", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		if _, ok := in.Parameters.(*ssm.PutParameterInput); ok {
			mu.Lock()
			i := n
			n++
			mu.Unlock()
			if i < len(hooks) && hooks[i] != nil {
				hooks[i]()
			}
		}
		return next.HandleInitialize(ctx, in)
	})
	return ssm.New(testClient.Options(), func(o *ssm.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error { return s.Initialize.Add(hook, middleware.Before) })
	})
}

// TestPutIfVersionUndoKeepsEveryWrite: a compare-and-set that lost its
// race puts the other writer's value back, and a write landing inside
// that undo (between its check and its put) is put back in turn, so the
// last write another writer made is the one that stands.
func TestPutIfVersionUndoKeepsEveryWrite(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		others []string // the other writer's writes: before our put, then before each put of the undo
		want   string
	}{
		{name: "a write inside the compare-and-set", others: []string{"b"}, want: "b"},
		{name: "another write inside the undo", others: []string{"b", "c"}, want: "c"},
		{name: "a write inside each of two undo puts", others: []string{"b", "c", "d"}, want: "d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := freshName(t)
			other := New(testClient, name)
			v0, err := other.Put(ctx, []byte("a"))
			if err != nil {
				t.Fatal(err)
			}
			hooks := make([]func(), len(tc.others))
			for i, v := range tc.others {
				hooks[i] = func() {
					if _, err := other.Put(ctx, []byte(v)); err != nil {
						t.Errorf("the other writer's Put %q: %v", v, err)
					}
				}
			}
			_, err = New(sequencedClient(hooks...), name).PutIfVersion(ctx, []byte("ours"), v0)
			if !fault.Is(err, fault.Conflict) {
				t.Fatalf("PutIfVersion error = %v; want fault.Conflict", err)
			}
			data, _, err := other.Fetch(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(data); got != tc.want {
				t.Errorf("stored value = %q; want %q, the other writer's last write", got, tc.want)
			}
		})
	}
}

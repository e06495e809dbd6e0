// Package rotatingtest checks a model adapter's rotating.Model against a
// fake server of its API, for the adapters' tests.
package rotatingtest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/rotating"
	"github.com/zero-gateway/zero/shared/secret"
)

// Provider is the adapter under test.
type Provider[C model.Client] struct {
	// Name is the provider's, in the test names ("OpenAI").
	Name string
	// New is the adapter's rotating client on baseURL.
	New func(keys secret.Getter, baseURL string) *rotating.Model[C]
	// Reply is the body of a successful completion in the API's shape.
	Reply string
	// DefaultBaseURL is the provider's own server, which wants a key.
	DefaultBaseURL string
	// KeyVar is what Current's error names without a key on
	// DefaultBaseURL ("OPENAI_API_KEY").
	KeyVar string
}

// keyGetter gives one key ("": not set).
type keyGetter string

func (k keyGetter) Get(_ context.Context, s secret.Spec) (string, error) {
	if k == "" {
		return "", fault.New(fault.NotFound, "secret %s is not set", s.Name)
	}
	return string(k), nil
}

// FollowsKey: the key in force is sent as a bearer token; without a key
// only a server other than the provider's is reachable, and Current's
// error names p.KeyVar.
func FollowsKey[C model.Client](t *testing.T, p Provider[C]) {
	t.Helper()
	auth := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth <- r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, p.Reply)
	}))
	defer srv.Close()
	tests := []struct {
		name     string
		key      keyGetter
		base     string
		wantAuth string
		wantErr  string // of Current; "": none
	}{
		{name: "key sent", key: "sk-1", base: srv.URL, wantAuth: "Bearer sk-1"},
		{name: "no key, local server", key: "", base: srv.URL, wantAuth: ""},
		{name: "no key, " + p.Name, key: "", base: p.DefaultBaseURL, wantErr: p.KeyVar},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := p.New(tt.key, tt.base)
			_, err := c.Current(context.Background())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Current = %v; want an error with %q", err, tt.wantErr)
				}
				return
			}
			if _, err := c.Complete(context.Background(), model.Request{Model: "m", Messages: []model.Message{{Role: model.User, Content: "hi"}}}); err != nil {
				t.Fatal(err)
			}
			if got := <-auth; got != tt.wantAuth {
				t.Errorf("Authorization %q; want %q", got, tt.wantAuth)
			}
		})
	}
}

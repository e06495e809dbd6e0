package anthropic

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/secret"
)

// keyGetter gives one key ("": not set).
type keyGetter string

func (k keyGetter) Get(_ context.Context, s secret.Spec) (string, error) {
	if k == "" {
		return "", fault.New(fault.NotFound, "secret %s is not set", s.Name)
	}
	return string(k), nil
}

// TestRotatingClient: the key in force is sent; without a key only a
// server other than api.openai.com is reachable.
func TestRotatingClient(t *testing.T) {
	auth := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth <- r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`)
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
		{name: "no key, Anthropic", key: "", base: DefaultBaseURL, wantErr: "ANTHROPIC_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewRotatingClient(tt.key, Config{BaseURL: tt.base})
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

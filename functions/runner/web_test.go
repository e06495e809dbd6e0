package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/functions/internal/settings"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/tools/web"
)

// mapSecrets is a secret.Getter over a map; a missing name is NotFound.
type mapSecrets map[string]string

func (m mapSecrets) Get(_ context.Context, s secret.Spec) (string, error) {
	if v, ok := m[s.Name]; ok {
		return v, nil
	}
	return "", fault.New(fault.NotFound, "secret %s is not set", s.Name)
}

func TestBraveSearcher(t *testing.T) {
	var hits int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		if r.URL.Path != "/res/v1/web/search" || r.Header.Get("X-Subscription-Token") != "bsa-key" ||
			r.URL.Query().Get("q") != "zero gateway" || r.URL.Query().Get("count") != "4" {
			t.Errorf("got %s token %q; want the search path, the key, q and count", r.URL, r.Header.Get("X-Subscription-Token"))
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"web":{"results":[{"title":"ZERO","url":"https://zero.example/","description":"a gateway","extra_snippets":["x"]}]}}`))
	}))
	defer srv.Close()
	tests := []struct {
		name      string
		param     string
		secrets   mapSecrets
		want      []web.Result
		wantErr   string
		wantCalls int
	}{
		{name: "key set", param: "/zero/s/secrets/brave-api-key", secrets: mapSecrets{"brave-api-key": "bsa-key"},
			want: []web.Result{{Title: "ZERO", URL: "https://zero.example/", Description: "a gateway"}}, wantCalls: 1},
		{name: "secret not set", param: "/zero/s/secrets/brave-api-key", secrets: mapSecrets{}, wantErr: "not configured"},
		{name: "parameter not named", param: "", secrets: mapSecrets{"brave-api-key": "bsa-key"}, wantErr: "not configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits = 0
			b := settings.Brave{KeyParameter: tt.param, BaseURL: srv.URL}
			got, err := newWebSearcher(tt.secrets, b).Search(context.Background(), "zero gateway", 4)
			if tt.wantErr != "" {
				if !fault.Is(err, fault.Unauthorized) || !strings.Contains(fault.Message(err), tt.wantErr) {
					t.Fatalf("Search = %v; want an Unauthorized error with %q", err, tt.wantErr)
				}
			} else if err != nil || len(got) != 1 || got[0] != tt.want[0] {
				t.Fatalf("Search = %+v, %v; want %+v", got, err, tt.want)
			}
			if hits != tt.wantCalls {
				t.Errorf("%d calls to Brave; want %d", hits, tt.wantCalls)
			}
		})
	}
}

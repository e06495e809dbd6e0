package httpapi

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/secret"
)

// secretSource serves one secret value, or an error.
type secretSource struct {
	value string
	err   error
}

func (s *secretSource) Get(context.Context, secret.Spec) (string, error) { return s.value, s.err }

func TestRotating(t *testing.T) {
	src := &secretSource{value: "v1"}
	h := secret.Derive(src, secret.GatewayToken, func(v string) (http.Handler, error) {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(v)) }), nil
	})
	var logs bytes.Buffer
	srv := Rotating(h, slog.New(slog.NewJSONHandler(&logs, nil)), "test: secret unreadable", `{"ok":false}`)
	serve := func() (int, string) {
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", nil))
		return w.Code, strings.TrimSpace(w.Body.String())
	}
	tests := []struct {
		name     string
		value    string
		err      error
		wantCode int
		wantBody string
	}{
		{"the secret in force", "v1", nil, http.StatusOK, "v1"},
		{"a rotated secret rebuilds the handler", "v2", nil, http.StatusOK, "v2"},
		{"an unreadable secret is 503", "", errors.New("parameter deleted"), http.StatusServiceUnavailable, `{"ok":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src.value, src.err = tt.value, tt.err
			if code, body := serve(); code != tt.wantCode || body != tt.wantBody {
				t.Fatalf("got %d %q; want %d %q", code, body, tt.wantCode, tt.wantBody)
			}
		})
	}
	if !strings.Contains(logs.String(), "test: secret unreadable") {
		t.Errorf("the failure is not logged: %s", logs.String())
	}
}

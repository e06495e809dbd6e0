package httpapi

import (
	"log/slog"
	"net/http"

	"github.com/zero-gateway/zero/shared/secret"
)

// Rotating serves each request with the handler built from the secret in
// force (h is rebuilt when a re-read finds the secret rotated). When it
// cannot be built (the secret was deleted since the cold start) the
// request gets 503 with body, and the error is logged as msg, never the
// secret.
func Rotating(h *secret.Derived[http.Handler], log *slog.Logger, msg, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		current, err := h.Get(r.Context())
		if err != nil {
			log.ErrorContext(r.Context(), msg, "error", err.Error())
			http.Error(w, body, http.StatusServiceUnavailable)
			return
		}
		current.ServeHTTP(w, r)
	})
}

// Command hooks is the Lambda behind POST /hooks/wake and POST
// /hooks/agent: it checks the bearer token and hands the hook's message,
// wrapped as untrusted external content, to the ingest door, which queues
// it on the session's FIFO group (shared/hooks has the contract).
//
// Its environment is settings.Hooks (functions/internal/settings): the
// SSM parameter holding the bearer token (read at cold start and again
// every ZERO_SECRETS_TTL; not set: every hook is refused with 401), the
// work queue and its sub-agent lane, and zero.json's parameter (the
// default agent, the main key, the send policy). No table: a hook's
// message is never a /stop, so it writes no stop mark.
package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"

	"github.com/zero-gateway/zero/functions/internal/ingress"
	"github.com/zero-gateway/zero/functions/internal/settings"
	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/hooks"
	"github.com/zero-gateway/zero/shared/httpapi"
	"github.com/zero-gateway/zero/shared/lambdalog"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/ssmparam"
)

func main() {
	logger := lambdalog.Install(os.Stderr) // JSON lines with the request id; slog's default too
	calls := awsconfig.NewCounter()
	h, err := setup(context.Background(), logger, calls)
	if err != nil {
		logger.Error("hooks init failed", "err", err)
		os.Exit(1)
	}
	httpapi.Start(logger, calls, h)
}

// setup reads the settings once, the token (one GetParameters) and builds
// the handler; the error names what is missing, never a secret's value.
func setup(ctx context.Context, logger *slog.Logger, calls *awsconfig.Counter) (http.Handler, error) {
	var s settings.Hooks
	if err := settings.Load(&s); err != nil {
		return nil, err
	}
	in, err := ingress.New(ctx, ingress.Settings{Config: s.Config, Queue: s.Queue, SubagentQueue: s.SubagentQueue}, calls, logger)
	if err != nil {
		return nil, err
	}
	secrets := ssmparam.NewSecrets(in.SSM, settings.SecretParameters(s), s.Secrets.TTL, logger)
	// The cold start's one read; a token under 32 characters stops here.
	if err := secrets.Load(ctx); err != nil {
		return nil, err
	}
	// The handler holds the token; it is built again when a re-read finds
	// it rotated. No token: every hook is refused.
	handler := secret.Derive(secret.OrEmpty(secrets), secret.HooksToken, func(token string) (http.Handler, error) {
		return hooks.New(hooks.Config{Token: token, Door: in.Door, Settings: in.Settings, Log: logger}), nil
	})
	if _, err := handler.Get(ctx); err != nil {
		return nil, err
	}
	if !secrets.Has(ctx, secret.HooksToken) {
		logger.Error("hooks: no token; every hook is refused", "secret", secret.HooksToken.Name,
			"parameter", secrets.Parameter(secret.HooksToken.Name))
	}
	return httpapi.Rotating(handler, logger, "hooks: token unreadable", `{"ok":false,"error":{"code":"unavailable","message":"try again"}}`), nil
}

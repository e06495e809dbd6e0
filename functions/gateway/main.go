// Command gateway is the Lambda behind POST /rpc and the control page
// (GET / and /assets/..., shared/webui): the gateway API
// (shared/gateway) over the session table, the transcript bucket, the work
// queue and the config parameter. Clients (the zero CLI, a web page) ask it
// instead of reading storage themselves.
//
// Its environment is settings.Gateway (functions/internal/settings): the
// SSM parameter holding the bearer token (at least 32 characters: read at
// cold start and again every ZERO_SECRETS_TTL; not set: every call is
// refused), the table, the bucket, the work queue and its sub-agent lane,
// zero.json's parameter, the cron schedules' group, target and role
// (without them cron jobs are stored but get no schedule) and the
// dead-letter queues whose depth status reports.
package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/zero-gateway/zero/functions/internal/settings"
	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/gateway"
	"github.com/zero-gateway/zero/shared/httpapi"
	"github.com/zero-gateway/zero/shared/lambdalog"
	"github.com/zero-gateway/zero/shared/secret"
	"github.com/zero-gateway/zero/shared/ssmparam"
	"github.com/zero-gateway/zero/shared/webui"
)

func main() {
	logger := lambdalog.Install(os.Stderr) // JSON lines with the request id; slog's default too
	calls := awsconfig.NewCounter()
	api, err := setup(context.Background(), logger, calls)
	if err != nil {
		logger.Error("gateway init failed", "err", err)
		os.Exit(1)
	}
	httpapi.Start(logger, calls, api)
}

// setup reads the settings once, the token (one GetParameters) and builds
// the handler; the error names what is missing, never the token.
func setup(ctx context.Context, logger *slog.Logger, calls *awsconfig.Counter) (http.Handler, error) {
	var s settings.Gateway
	if err := settings.Load(&s); err != nil {
		return nil, err
	}
	awsCfg, err := awsconfig.Load(ctx, calls)
	if err != nil {
		return nil, err
	}
	ssmClient := ssm.NewFromConfig(awsCfg)
	secrets := ssmparam.NewSecrets(ssmClient, settings.SecretParameters(s), s.Secrets.TTL, logger)
	// The cold start's one read; a token under 32 characters stops here.
	if err := secrets.Load(ctx); err != nil {
		return nil, err
	}
	deps := newDeps(awsCfg, ssmClient, s, logger)
	// The gateway holds the token; it is built again when a re-read finds
	// the token rotated. No token: the gateway refuses every call.
	api := secret.Derive(secret.OrEmpty(secrets), secret.GatewayToken, func(token string) (http.Handler, error) {
		d := deps
		d.Token = token
		return gateway.New(d), nil
	})
	if _, err := api.Get(ctx); err != nil {
		return nil, err
	}
	if !secrets.Has(ctx, secret.GatewayToken) {
		logger.Error("gateway: no token; every call is refused", "secret", secret.GatewayToken.Name,
			"parameter", secrets.Parameter(secret.GatewayToken.Name))
	}
	ui, err := webui.New() // the control page at GET / and /assets/...
	if err != nil {
		return nil, err
	}
	return webui.Mount(ui, httpapi.Rotating(api, logger, "gateway: token unreadable", `{"ok":false,"error":{"code":"unavailable","message":"try again"}}`)), nil
}

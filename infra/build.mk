# Lambda build targets for `sam build` (Metadata BuildMethod: makefile).
# Included by the root Makefile. SAM runs `make build-<LogicalId>` with
# ARTIFACTS_DIR set; each target writes the function's `bootstrap` there.
# `zero dev` builds the same packages with the same flags for the host arch.

GO ?= go
LAMBDA_GOFLAGS := -tags lambda.norpc -trimpath -ldflags='-s -w'
LAMBDA_GOENV := GOOS=linux GOARCH=arm64 CGO_ENABLED=0

.PHONY: build-TelegramWebhook build-Runner build-Gateway build-Hooks build-DiscordInteractions build-Cron lambda-artifacts-dir

lambda-artifacts-dir:
	@test -n "$(ARTIFACTS_DIR)" || { echo "ARTIFACTS_DIR is not set (sam build sets it)" >&2; exit 1; }

build-TelegramWebhook: lambda-artifacts-dir
	$(LAMBDA_GOENV) $(GO) build $(LAMBDA_GOFLAGS) -o $(ARTIFACTS_DIR)/bootstrap ./functions/telegram-webhook

build-Runner: lambda-artifacts-dir
	$(LAMBDA_GOENV) $(GO) build $(LAMBDA_GOFLAGS) -o $(ARTIFACTS_DIR)/bootstrap ./functions/runner

build-Gateway: lambda-artifacts-dir
	$(LAMBDA_GOENV) $(GO) build $(LAMBDA_GOFLAGS) -o $(ARTIFACTS_DIR)/bootstrap ./functions/gateway

build-Hooks: lambda-artifacts-dir
	$(LAMBDA_GOENV) $(GO) build $(LAMBDA_GOFLAGS) -o $(ARTIFACTS_DIR)/bootstrap ./functions/hooks

build-DiscordInteractions: lambda-artifacts-dir
	$(LAMBDA_GOENV) $(GO) build $(LAMBDA_GOFLAGS) -o $(ARTIFACTS_DIR)/bootstrap ./functions/discord-interactions

build-Cron: lambda-artifacts-dir
	$(LAMBDA_GOENV) $(GO) build $(LAMBDA_GOFLAGS) -o $(ARTIFACTS_DIR)/bootstrap ./functions/cron

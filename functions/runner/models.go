package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/zero-gateway/zero/functions/internal/settings"
	"github.com/zero-gateway/zero/shared/anthropic"
	"github.com/zero-gateway/zero/shared/bedrock"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/openai"
	"github.com/zero-gateway/zero/shared/secret"
)

// newModels builds a client for every provider this deployment can reach:
// the built-in echo model always, Bedrock when ZERO_BEDROCK_MODELS names
// models (any other Bedrock model gets a clean notice), OpenAI-compatible
// and Anthropic when their key (or a local base URL) is set at cold
// start. ZERO_MODEL, the default, must be among them; a session or agent
// naming a missing provider gets a clean notice. A key rotated later
// reaches its client within the secrets' TTL; a provider whose key is
// first set later is on from the next cold start.
func newModels(ctx context.Context, s settings.Runner, keys secret.Getter, br *bedrockruntime.Client, logger *slog.Logger) (map[string]model.Client, error) {
	def, err := s.DefaultModel()
	if err != nil {
		return nil, err
	}
	models := map[string]model.Client{model.EchoProvider: model.Echo{}}
	// Bedrock needs no key: the role allows the models ZERO_BEDROCK_MODELS
	// names, and the runner refuses any other with a clean notice.
	if err := addBedrock(models, def, s.BedrockModels, br, logger); err != nil {
		return nil, err
	}
	oa := openai.NewRotatingClient(keys, openai.Config{BaseURL: s.OpenAI.BaseURL, HTTPClient: &http.Client{Timeout: 90 * time.Second}})
	an := anthropic.NewRotatingClient(keys, anthropic.Config{BaseURL: s.Anthropic.BaseURL, HTTPClient: &http.Client{Timeout: 300 * time.Second}, MaxRetries: 2})
	for _, p := range []struct {
		name string
		c    model.Client
		err  error // building the client from the key in force
	}{{"openai", oa, errOf(oa.Current(ctx))}, {"anthropic", an, errOf(an.Current(ctx))}} {
		switch {
		case p.err == nil:
			models[p.name] = p.c
		case def.Provider == p.name:
			return nil, p.err
		default:
			logger.Info(p.name+" provider not configured", "reason", p.err.Error())
		}
	}
	if _, ok := models[def.Provider]; !ok {
		return nil, fmt.Errorf("ZERO_MODEL: unknown provider %q in %s (known: zero, openai, anthropic, bedrock)", def.Provider, def)
	}
	if def.Provider == model.EchoProvider && def.Name != "echo" {
		return nil, fmt.Errorf("ZERO_MODEL: the built-in provider has only zero/echo, not %s", def)
	}
	return models, nil
}

// errOf is the error of a two-valued call.
func errOf[T any](_ T, err error) error { return err }

// addBedrock adds the "bedrock" provider to models when ids (the stack's
// BedrockModels, ZERO_BEDROCK_MODELS) names a model: the Bedrock client
// limited to them (bedrock.Allowlisted). The default model def, when it
// is a Bedrock one, must be in the list.
func addBedrock(models map[string]model.Client, def model.Ref, ids []string, br *bedrockruntime.Client, logger *slog.Logger) error {
	switch {
	case len(ids) > 0:
		b := bedrock.NewAllowlisted(bedrock.New(br), ids)
		models["bedrock"] = b
		if def.Provider == "bedrock" && !b.Allows(def.Name) {
			return fmt.Errorf("ZERO_MODEL: %s is not among ZERO_BEDROCK_MODELS (the stack's BedrockModels: %s)", def, strings.Join(ids, ","))
		}
	case def.Provider == "bedrock":
		return fmt.Errorf("ZERO_MODEL: %s needs its model in ZERO_BEDROCK_MODELS (the stack's BedrockModels), which is empty", def)
	default:
		logger.Info("bedrock provider not configured", "reason", "ZERO_BEDROCK_MODELS (the stack's BedrockModels) names no model")
	}
	return nil
}

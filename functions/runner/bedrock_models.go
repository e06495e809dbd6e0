package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/zero-gateway/zero/shared/bedrock"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// bedrockModels is the Bedrock client limited to the models the runner's
// role may invoke: the template grants bedrock:InvokeModel on exactly the
// foundation models its BedrockModels parameter names (and on this
// account's inference profiles, which reach only those), and passes the
// same list as ZERO_BEDROCK_MODELS. A model outside it is refused with a
// clean notice instead of being called and denied.
type bedrockModels struct {
	model.Client
	// ids are foundation model ids ("anthropic.claude-sonnet-4-20250514-v1:0");
	// "*" allows any model (a local run with the developer's own
	// credentials; the template does not accept it).
	ids []string
}

// addBedrock adds the "bedrock" provider to models when ZERO_BEDROCK_MODELS
// (a comma list; empty or unset: none) names a model. The default model
// def, when it is a Bedrock one, must be in the list.
func addBedrock(models map[string]model.Client, def model.Ref, br *bedrockruntime.Client, logger *slog.Logger) error {
	b := bedrockModelsFromEnv()
	switch {
	case len(b.ids) > 0:
		b.Client = bedrock.New(br)
		models["bedrock"] = b
		if def.Provider == "bedrock" && !b.allows(def.Name) {
			return fmt.Errorf("ZERO_MODEL: %s is not among ZERO_BEDROCK_MODELS (the stack's BedrockModels: %s)", def, strings.Join(b.ids, ","))
		}
	case def.Provider == "bedrock":
		return fmt.Errorf("ZERO_MODEL: %s needs its model in ZERO_BEDROCK_MODELS (the stack's BedrockModels), which is empty", def)
	default:
		logger.Info("bedrock provider not configured", "reason", "ZERO_BEDROCK_MODELS (the stack's BedrockModels) names no model")
	}
	return nil
}

func bedrockModelsFromEnv() bedrockModels {
	var b bedrockModels
	for _, id := range strings.Split(os.Getenv("ZERO_BEDROCK_MODELS"), ",") {
		if id = strings.TrimSpace(id); id != "" {
			b.ids = append(b.ids, id)
		}
	}
	return b
}

// allows reports whether the role may invoke name: a listed foundation
// model id, the same through a cross-region inference profile
// ("us.<id>", "global.<id>", ...), or the ARN of either. Application
// inference profiles and provisioned throughput are not in the role.
func (b bedrockModels) allows(name string) bool {
	name = strings.TrimSpace(name)
	profile := true
	if strings.HasPrefix(name, "arn:") {
		typ, id, ok := strings.Cut(name, "/")
		if !ok {
			return false
		}
		switch typ[strings.LastIndexByte(typ, ':')+1:] {
		case "foundation-model":
			profile = false
		case "inference-profile":
		default:
			return false
		}
		name = id
	}
	for _, id := range b.ids {
		if id == "*" || name == id {
			return true
		}
		// A cross-region inference profile: one geography segment before
		// the model id.
		if geo, ok := strings.CutSuffix(name, "."+id); ok && profile && geo != "" && !strings.Contains(geo, ".") {
			return true
		}
	}
	return false
}

// Complete refuses a model outside the list (fault.Unauthorized: a clean
// notice to the user, never retried) and calls Bedrock for the others.
func (b bedrockModels) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	if !b.allows(req.Model) {
		return model.Response{}, fault.New(fault.Unauthorized,
			"the Bedrock model %s is not enabled in this deployment (the stack's BedrockModels parameter lists %s)", req.Model, strings.Join(b.ids, ", "))
	}
	return b.Client.Complete(ctx, req)
}

package bedrock

import (
	"context"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

// Allowlisted is a model.Client limited to the models a role may invoke:
// the template grants the runner bedrock:InvokeModel on exactly the
// foundation models its BedrockModels parameter names (and on this
// account's inference profiles, which reach only those). A model outside
// the list is refused with a clean notice instead of being called and
// denied.
type Allowlisted struct {
	client model.Client
	// ids are foundation model ids ("anthropic.claude-sonnet-4-20250514-v1:0");
	// "*" allows any model (a local run with the developer's own
	// credentials; the template does not accept it).
	ids []string
}

// NewAllowlisted returns client limited to ids (none: every model is
// refused).
func NewAllowlisted(client model.Client, ids []string) *Allowlisted {
	return &Allowlisted{client: client, ids: ids}
}

// Allows reports whether the role may invoke name: a listed foundation
// model id, the same through a cross-region inference profile
// ("us.<id>", "global.<id>", ...), or the ARN of either. Application
// inference profiles and provisioned throughput are not in the role.
func (a *Allowlisted) Allows(name string) bool {
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
	for _, id := range a.ids {
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
// notice to the user, never retried) and calls the client for the others.
func (a *Allowlisted) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	if err := a.check(req.Model); err != nil {
		return model.Response{}, err
	}
	return a.client.Complete(ctx, req)
}

// Stream refuses a model outside the list as Complete does, and streams
// the others (model.CompleteStreaming).
func (a *Allowlisted) Stream(ctx context.Context, req model.Request, sink model.TextSink) (model.Response, error) {
	if err := a.check(req.Model); err != nil {
		return model.Response{}, err
	}
	return model.CompleteStreaming(ctx, a.client, req, sink)
}

func (a *Allowlisted) check(name string) error {
	if a.Allows(name) {
		return nil
	}
	return fault.New(fault.Unauthorized,
		"the Bedrock model %s is not enabled in this deployment (the stack's BedrockModels parameter lists %s)", name, strings.Join(a.ids, ", "))
}

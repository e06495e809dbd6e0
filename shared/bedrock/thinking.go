package bedrock

import (
	"math"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/zero-gateway/zero/shared/model"
)

// defaultThinkingMaxTokens is the answer's own output limit of a call
// with thinking and no MaxTokens: Converse has no max_tokens default for
// Anthropic models that is known to exceed a budget, so ZERO sets one.
const defaultThinkingMaxTokens = 4096

// applyThinking adds req's thinking level to in for the models that take
// one through additionalModelRequestFields: Anthropic's models on Bedrock
// (a model id or inference profile naming "anthropic.claude") get
// {"thinking": {"type": "enabled", "budget_tokens": N}} with the level's
// budget (model.ThinkingBudget) and inferenceConfig.maxTokens raised by
// it, since the budget must stay below maxTokens. Other models, off, and
// a call that continues a tool round (Bedrock, like Anthropic's API,
// refuses thinking there without the signed thinking block ZERO does not
// keep: model.EndsInToolRound) get nothing.
func applyThinking(in *bedrockruntime.ConverseInput, req model.Request) {
	budget := model.ThinkingBudget(req.Thinking)
	if budget == 0 || !strings.Contains(strings.ToLower(req.Model), "anthropic.claude") || model.EndsInToolRound(req.Messages) {
		return
	}
	in.AdditionalModelRequestFields = document.NewLazyDocument(map[string]any{
		"thinking": map[string]any{"type": "enabled", "budget_tokens": budget},
	})
	limit := defaultThinkingMaxTokens
	if req.MaxTokens > 0 {
		limit = req.MaxTokens
	}
	if in.InferenceConfig == nil {
		in.InferenceConfig = &types.InferenceConfiguration{}
	}
	in.InferenceConfig.MaxTokens = aws.Int32(int32(min(limit+budget, math.MaxInt32)))
}

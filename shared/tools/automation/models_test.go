package automation_test

import (
	"encoding/json"
	"testing"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/automation"
)

// TestCronModelReach: a job's payload.model outside the allowlist (an
// alias or a listed model, as /new <model> takes) reaches models too:
// every run of the job uses it.
func TestCronModelReach(t *testing.T) {
	cfg, err := config.Parse([]byte(`{agents: {defaults: {model: "openai/gpt-5.2", models: {"openai/gpt-5-mini": {alias: "mini"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	job := func(model string) string {
		return `{"action":"add","job":{"name":"n","schedule":{"kind":"every","everyMs":3600000},"payload":{"kind":"agentTurn","message":"m","model":"` + model + `"}}}`
	}
	tests := []struct {
		name string
		args string
		want tools.Reach
	}{
		{"add with a listed model", job("openai/gpt-5.2"), tools.ReachSchedules},
		{"add with a listed model in other case", job("OpenAI/GPT-5-Mini"), tools.ReachSchedules},
		{"add with an unlisted model", job("openai/gpt-5-pro"), tools.ReachSchedules | tools.ReachModels},
		{"add with an unknown provider", job("acme/x"), tools.ReachSchedules | tools.ReachModels},
		{"add without a model", `{"action":"add","job":{"name":"n","payload":{"kind":"agentTurn","message":"m"}}}`, tools.ReachSchedules},
		{"update to an unlisted model", `{"action":"update","id":"j","patch":{"payload":{"kind":"agentTurn","message":"m","model":"anthropic/claude-opus-4"}}}`, tools.ReachSchedules | tools.ReachModels},
		{"update of the name only", `{"action":"update","id":"j","patch":{"name":"x"}}`, tools.ReachSchedules},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := automation.CronReach(tools.Run{Config: cfg}, json.RawMessage(tt.args)); got != tt.want {
				t.Errorf("CronReach = %v; want %v", got, tt.want)
			}
		})
	}
}

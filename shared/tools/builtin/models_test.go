package builtin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/files/filestest"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/builtin"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
)

// queued records what a tool queues.
type queued struct{ msgs []inbound.Message }

func (q *queued) Queue(_ context.Context, m inbound.Message) (string, error) {
	q.msgs = append(q.msgs, m)
	return "run-1", nil
}

// allowlisted names the models anyone may choose: the default, an alias
// and the image model.
const allowlisted = `{
  channels: {telegram: {allowFrom: ["*"], owners: ["42"]}},
  agents: {defaults: {model: "openai/gpt-5.2", imageModel: "openai/gpt-4o",
    models: {"openai/gpt-5-mini": {alias: "mini"}}}},
}`

// TestModelChoicesNeedTheOwner: sessions_spawn's model, the image tool's
// and a cron job's payload.model follow the rule of /new <model>: anyone
// may name an alias or a listed model, only the owner any other
// provider/model; the gate refuses the others' calls before they run.
func TestModelChoicesNeedTheOwner(t *testing.T) {
	cfg, err := config.Parse([]byte(allowlisted))
	if err != nil {
		t.Fatal(err)
	}
	const refusal = "models outside the allowlist, which only the owner may ask for"
	tests := []struct {
		name    string
		tool    string
		args    string
		who     inbound.Provenance
		refused bool
	}{
		{name: "spawn: an alias", tool: "sessions_spawn", args: `{"task":"t","model":"mini"}`, who: inbound.Sender},
		{name: "spawn: a listed model", tool: "sessions_spawn", args: `{"task":"t","model":"openai/gpt-5.2"}`, who: inbound.Sender},
		{name: "spawn: an unlisted model, a sender", tool: "sessions_spawn", args: `{"task":"t","model":"openai/gpt-5-pro"}`, who: inbound.Sender, refused: true},
		{name: "spawn: an unlisted model, untrusted text", tool: "sessions_spawn", args: `{"task":"t","model":"openai/o3-pro"}`, who: inbound.Untrusted, refused: true},
		{name: "spawn: an unlisted model, the owner", tool: "sessions_spawn", args: `{"task":"t","model":"openai/gpt-5-pro"}`, who: inbound.Owner},
		{name: "image: the image model", tool: "image", args: `{"image":"pics/cat.png","model":"openai/gpt-4o"}`, who: inbound.Sender},
		{name: "image: an unlisted model, a sender", tool: "image", args: `{"image":"pics/cat.png","model":"openai/gpt-4.5-preview"}`, who: inbound.Sender, refused: true},
		{name: "image: an unlisted model, the owner", tool: "image", args: `{"image":"pics/cat.png","model":"openai/gpt-4.5-preview"}`, who: inbound.Owner},
		{name: "cron: an unlisted payload model, the owner", tool: "cron", who: inbound.Owner,
			args: `{"action":"add","job":{"name":"n","schedule":{"kind":"every","everyMs":3600000},"payload":{"kind":"agentTurn","message":"m","model":"openai/gpt-5-pro"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &queued{}
			files := filestest.NewMemStore(nil)
			files.Seed("agents/main/workspace/pics/cat.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR fake image")
			d := builtin.Deps{Files: files, Cron: &cron.Service{Store: &cron.Memory{}}}
			run := tools.Run{Config: cfg, AgentID: "main", Model: gpt52, Models: vision, Now: time.Now, Ingress: q,
				Provenance: tt.who, Message: inbound.Message{ID: "m1", Channel: "telegram", From: "telegram:7", SessionKey: "agent:main:main"}}
			var tl tools.Tool
			for _, b := range builtin.Registry(d).Build(run, func(string) bool { return true }) {
				if b.Spec().Name == tt.tool {
					tl = b
				}
			}
			if tl == nil {
				t.Fatalf("%s is not offered", tt.tool)
			}
			res := tooltest.Call(t, tl, tt.args)
			if got := res.IsError && strings.Contains(res.Content, refusal); got != tt.refused {
				t.Fatalf("refused = %v; want %v (result %q)", got, tt.refused, res.Content)
			}
			if !tt.refused && res.IsError {
				t.Fatalf("the allowed call failed: %s", res.Content)
			}
		})
	}
}

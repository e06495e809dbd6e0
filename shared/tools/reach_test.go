package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
)

func cfgOf(t *testing.T, src string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestProvenanceOf(t *testing.T) {
	cfg := cfgOf(t, `{channels: {telegram: {allowFrom: ["*"], owners: ["42"]}}}`)
	tests := []struct {
		name string
		m    inbound.Message
		want inbound.Provenance
	}{
		{"a channel owner", inbound.Message{Channel: "telegram", From: "telegram:42"}, inbound.Owner},
		{"an admitted sender", inbound.Message{Channel: "telegram", From: "telegram:7"}, inbound.Sender},
		{"the gateway's operator", inbound.Message{Channel: inbound.Internal, Provenance: inbound.Owner}, inbound.Owner},
		{"a hook", inbound.Message{Channel: inbound.Internal, From: "hook", Provenance: inbound.Untrusted}, inbound.Untrusted},
		{"agent-to-agent text, even from an owner's channel", inbound.Message{Channel: "telegram", From: "telegram:42", Flow: &inbound.Flow{Kind: inbound.FlowReply}}, inbound.Untrusted},
		{"an unvouched internal message is no owner", inbound.Message{Channel: inbound.Internal, From: "cron"}, inbound.Sender},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ProvenanceOf(cfg, tt.m); got != tt.want {
				t.Errorf("ProvenanceOf = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestAllowed(t *testing.T) {
	def := config.Default()
	wide := cfgOf(t, `{tools: {sessions: {visibility: "agent"}, agentToAgent: {enabled: true}, message: {crossContext: true}}}`)
	tests := []struct {
		name    string
		cfg     *config.Config
		who     inbound.Provenance
		reach   Reach
		allowed bool
	}{
		{"the owner reaches everything", def, inbound.Owner, ReachConfig | ReachSchedules | ReachBootstrap | ReachModels, true},
		{"a sender reads no other session by default", def, inbound.Sender, ReachSessions, false},
		{"a sender messages no other chat by default", def, inbound.Sender, ReachChats, false},
		{"a sender touches no cron job", def, inbound.Sender, ReachSchedules, false},
		{"a sender writes no config", def, inbound.Sender, ReachConfig, false},
		{"visibility widens a sender's session reach", wide, inbound.Sender, ReachSessions, true},
		{"crossContext widens a sender's chats", wide, inbound.Sender, ReachChats, true},
		{"agentToAgent widens a sender's agents", wide, inbound.Sender, ReachAgents, true},
		{"nothing widens a sender to cron jobs", wide, inbound.Sender, ReachSchedules, false},
		{"nothing widens a sender to the bootstrap files", wide, inbound.Sender, ReachBootstrap, false},
		{"untrusted text reaches nothing, whatever the config", wide, inbound.Untrusted, ReachSessions, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.reach&^Allowed(tt.cfg, tt.who) == 0
			if got != tt.allowed {
				t.Errorf("allowed = %v; want %v", got, tt.allowed)
			}
		})
	}
}

// fakeTool answers "ran <name>" and counts its calls.
type fakeTool struct {
	name  string
	calls *int
}

func (f fakeTool) Spec() model.ToolSpec { return model.ToolSpec{Name: f.name} }
func (f fakeTool) Run(context.Context, json.RawMessage) (string, error) {
	*f.calls++
	return "ran " + f.name, nil
}

// TestGate: a reaching call is refused before it runs, with why; after a
// tool that brings outside content, even the owner's run is judged
// untrusted; a call that reaches nothing always runs.
func TestGate(t *testing.T) {
	calls := map[string]*int{}
	entry := func(name string, e Entry) Entry {
		n := 0
		calls[name] = &n
		e.Name = name
		e.New = func(Run) Tool { return fakeTool{name: name, calls: &n} }
		return e
	}
	reg := NewRegistry(
		entry("fetch", Entry{Untrusted: true}),
		entry("cron", Entry{Reach: ReachSchedules}),
		entry("message", Entry{ReachOf: func(run Run, args json.RawMessage) Reach {
			if strings.Contains(string(args), run.Message.To) {
				return 0
			}
			return ReachChats
		}}),
		entry("read", Entry{}),
	)
	run := func(who inbound.Provenance) map[string]Tool {
		out := map[string]Tool{}
		for _, tl := range reg.Build(Run{Config: config.Default(), Provenance: who, Message: inbound.Message{To: "42"}}, func(string) bool { return true }) {
			out[tl.Spec().Name] = tl
		}
		return out
	}
	type step struct{ tool, args, want string }
	tests := []struct {
		name  string
		who   inbound.Provenance
		steps []step
	}{
		{"the owner schedules", inbound.Owner, []step{{"cron", `{}`, "ran"}}},
		{"a sender is refused cron", inbound.Sender, []step{{"cron", `{}`, "admitted sender"}}},
		{"a sender messages its own chat", inbound.Sender, []step{{"message", `{"to":"42"}`, "ran"}}},
		{"a sender is refused another chat", inbound.Sender, []step{{"message", `{"to":"99"}`, "other chats"}}},
		{"a hook is refused cron", inbound.Untrusted, []step{{"cron", `{}`, "untrusted text"}}},
		{"a fetched page taints the owner's run", inbound.Owner, []step{{"cron", `{}`, "ran"}, {"fetch", `{}`, "ran"}, {"cron", `{}`, "outside content (fetch)"}, {"read", `{}`, "ran"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools := run(tt.who)
			var got, want []string
			for _, s := range tt.steps {
				before := *calls[s.tool]
				out, err := tools[s.tool].Run(context.Background(), json.RawMessage(s.args))
				ran := *calls[s.tool] > before
				switch {
				case err != nil && ran:
					t.Fatalf("%s ran and was refused", s.tool)
				case err != nil:
					if !fault.Is(err, fault.Unauthorized) {
						t.Errorf("refusal of %s is %v; want fault.Unauthorized", s.tool, err)
					}
					out = err.Error()
				}
				ok := strings.Contains(out, s.want)
				got, want = append(got, s.tool+":"+boolWord(ok)), append(want, s.tool+":yes")
				if !ok {
					t.Logf("%s answered %q; want it to contain %q", s.tool, out, s.want)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
		})
	}
}

func boolWord(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

package tool

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/model"
)

// except is the inventory without names.
func except(names ...string) []string {
	return slices.DeleteFunc(Names(), func(n string) bool { return slices.Contains(names, n) })
}

// sorted returns names sorted, for a want list written by meaning.
func sorted(names ...string) []string {
	s := slices.Clone(names)
	slices.Sort(s)
	return s
}

var (
	openai52  = model.Ref{Provider: "openai", Name: "gpt-5.2"}
	openai4o  = model.Ref{Provider: "openai", Name: "gpt-4o"}
	google    = model.Ref{Provider: "google-cloud-auth", Name: "gemini"}
	anthropic = model.Ref{Provider: "anthropic", Name: "claude"}
)

func TestDecide(t *testing.T) {
	sessionTools := []string{"sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "sessions_yield", "subagents"}
	tests := []struct {
		name   string
		config string // zero.json (JSON5)
		req    Request
		want   []string // the allowed tools
		// reasons are exact Reason values of some tools.
		reasons map[string]string
		// warnings are the exact Warnings.
		warnings []string
	}{
		// --- profiles ---
		{
			name:    "no policy: every tool",
			want:    Names(),
			reasons: map[string]string{"exec": "no profile or allow list restricts it"},
		},
		{
			name:    "profile minimal",
			config:  `{tools: {profile: "minimal"}}`,
			want:    []string{"session_status"},
			reasons: map[string]string{"exec": `tools.profile "minimal" does not include it`, "session_status": `tools.profile "minimal" includes it`},
		},
		{
			name:   "profile coding",
			config: `{tools: {profile: "coding"}}`,
			want: sorted("read", "write", "edit", "apply_patch", "exec", "bash", "process", "sessions_list", "sessions_history",
				"sessions_send", "sessions_spawn", "sessions_yield", "subagents", "session_status", "memory_search", "memory_get", "image"),
			reasons: map[string]string{"browser": `tools.profile "coding" does not include it`},
		},
		{
			name:   "profile messaging",
			config: `{tools: {profile: "messaging"}}`,
			want:   sorted("message", "sessions_list", "sessions_history", "sessions_send", "session_status"),
		},
		{
			name:    "profile full is no restriction",
			config:  `{tools: {profile: "full"}}`,
			want:    Names(),
			reasons: map[string]string{"exec": `tools.profile "full" restricts nothing`},
		},
		{
			name:    "profile full adds nothing to an allow list, like no profile",
			config:  `{tools: {profile: "full", allow: ["exec"]}}`,
			want:    []string{"exec"},
			reasons: map[string]string{"read": "tools.allow does not include it"},
		},
		// --- allow and deny ---
		{
			name:    "allow adds to the profile",
			config:  `{tools: {profile: "messaging", allow: ["browser"]}}`,
			want:    sorted("message", "sessions_list", "sessions_history", "sessions_send", "session_status", "browser"),
			reasons: map[string]string{"browser": `tools.allow "browser"`, "exec": `neither tools.profile "messaging" nor tools.allow includes it`},
		},
		{
			name:    "allow without a profile is the whole list",
			config:  `{tools: {allow: ["group:fs", "browser"]}}`,
			want:    sorted("read", "write", "edit", "apply_patch", "browser"),
			reasons: map[string]string{"read": `tools.allow "group:fs"`, "exec": "tools.allow does not include it"},
		},
		{
			name:     "an allow list of only unknown tools is ignored",
			config:   `{tools: {profile: "messaging", allow: ["slack", "discord"]}}`,
			want:     sorted("message", "sessions_list", "sessions_history", "sessions_send", "session_status"),
			warnings: []string{`tools.allow names only unknown tools ("slack", "discord"): ignored, so it does not deny every tool`},
		},
		{
			name:     "an allow list of only unknown tools does not deny everything",
			config:   `{tools: {allow: ["slack"]}}`,
			want:     Names(),
			warnings: []string{`tools.allow names only unknown tools ("slack"): ignored, so it does not deny every tool`},
		},
		{
			name:     "unknown names in allow and deny are reported",
			config:   `{tools: {allow: ["exec", "slack", "group:plugins"], deny: ["nope", "bash"]}}`,
			want:     []string{"exec"},
			warnings: []string{`tools.deny: unknown tool names "nope"`, `tools.allow: unknown tool names "slack", "group:plugins"`},
		},
		{
			name:    "an empty allow list restricts nothing",
			config:  `{tools: {allow: []}}`,
			want:    Names(),
			reasons: map[string]string{"exec": "no profile or allow list restricts it"},
		},
		{
			name:    "deny a group from a profile",
			config:  `{tools: {profile: "coding", deny: ["group:runtime"]}}`,
			want:    sorted("read", "write", "edit", "apply_patch", "sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "sessions_yield", "subagents", "session_status", "memory_search", "memory_get", "image"),
			reasons: map[string]string{"exec": `denied by tools.deny "group:runtime"`, "bash": `denied by tools.deny "group:runtime"`},
		},
		{
			name:    "deny wins over allow in the same block",
			config:  `{tools: {allow: ["exec", "read"], deny: ["exec"]}}`,
			want:    []string{"read"},
			reasons: map[string]string{"exec": `denied by tools.deny "exec"`},
		},
		{
			name:    "deny wins over the profile",
			config:  `{tools: {profile: "minimal", deny: ["session_status"]}}`,
			want:    nil,
			reasons: map[string]string{"session_status": `denied by tools.deny "session_status"`},
		},
		{
			name:    "wildcard allow",
			config:  `{tools: {allow: ["sessions_*"]}}`,
			want:    sorted("sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "sessions_yield"),
			reasons: map[string]string{"sessions_send": `tools.allow "sessions_*"`, "session_status": "tools.allow does not include it"},
		},
		{
			name:    "wildcard deny of everything wins over allow",
			config:  `{tools: {allow: ["*"], deny: ["*"]}}`,
			want:    nil,
			reasons: map[string]string{"exec": `denied by tools.deny "*"`},
		},
		{
			name:    "star allows everything",
			config:  `{tools: {profile: "minimal", allow: ["*"]}}`,
			want:    Names(),
			reasons: map[string]string{"exec": `tools.allow "*"`},
		},
		{
			name:    "names are case-insensitive",
			config:  `{tools: {allow: ["EXEC", "Group:FS"], deny: ["Write"]}}`,
			want:    sorted("exec", "read", "edit", "apply_patch"),
			reasons: map[string]string{"write": `denied by tools.deny "write"`},
		},
		// --- agents ---
		{
			name: "an agent's profile overrides the global one",
			config: `{tools: {profile: "coding"}, agents: {list: [{id: "main"},
				{id: "support", tools: {profile: "messaging", allow: ["slack", "browser"]}}]}}`,
			req:      Request{AgentID: "support"},
			want:     sorted("message", "sessions_list", "sessions_history", "sessions_send", "session_status", "browser"),
			reasons:  map[string]string{"exec": `neither agents.list[support].tools.profile "messaging" nor agents.list[support].tools.allow includes it`},
			warnings: []string{`agents.list[support].tools.allow: unknown tool names "slack"`},
		},
		{
			name: "another agent keeps the global profile",
			config: `{tools: {profile: "coding"}, agents: {list: [{id: "main"},
				{id: "support", tools: {profile: "messaging"}}]}}`,
			req:     Request{AgentID: "main"},
			want:    mustProfile("coding"),
			reasons: map[string]string{"exec": `tools.profile "coding" includes it`},
		},
		{
			name:    "the default agent when none is named",
			config:  `{agents: {list: [{id: "work", default: true, tools: {profile: "minimal"}}, {id: "main"}]}}`,
			want:    []string{"session_status"},
			reasons: map[string]string{"exec": `agents.list[work].tools.profile "minimal" does not include it`},
		},
		{
			name:    "an agent's allow list replaces the global one",
			config:  `{tools: {allow: ["group:fs"]}, agents: {list: [{id: "work", tools: {allow: ["exec"]}}]}}`,
			req:     Request{AgentID: "work"},
			want:    []string{"exec"},
			reasons: map[string]string{"exec": `agents.list[work].tools.allow "exec"`, "read": "agents.list[work].tools.allow does not include it"},
		},
		{
			name:    "an agent's allow list adds to the global profile",
			config:  `{tools: {profile: "minimal"}, agents: {list: [{id: "work", tools: {allow: ["exec"]}}]}}`,
			req:     Request{AgentID: "work"},
			want:    sorted("exec", "session_status"),
			reasons: map[string]string{"session_status": `tools.profile "minimal" includes it`},
		},
		{
			name:    "an agent's empty allow list clears the global one",
			config:  `{tools: {allow: ["exec"]}, agents: {list: [{id: "work", tools: {allow: []}}]}}`,
			req:     Request{AgentID: "work"},
			want:    Names(),
			reasons: map[string]string{"read": "no profile or allow list restricts it"},
		},
		{
			name:     "an agent's allow list of only unknown tools falls back to the global one",
			config:   `{tools: {allow: ["group:fs"]}, agents: {list: [{id: "work", tools: {allow: ["slack"]}}]}}`,
			req:      Request{AgentID: "work"},
			want:     sorted("read", "write", "edit", "apply_patch"),
			reasons:  map[string]string{"read": `tools.allow "group:fs"`},
			warnings: []string{`agents.list[work].tools.allow names only unknown tools ("slack"): ignored, so it does not deny every tool`},
		},
		{
			name:    "global deny wins over an agent's allow",
			config:  `{tools: {deny: ["exec"]}, agents: {list: [{id: "work", tools: {allow: ["exec", "read"]}}]}}`,
			req:     Request{AgentID: "work"},
			want:    []string{"read"},
			reasons: map[string]string{"exec": `denied by tools.deny "exec"`},
		},
		{
			name:    "an agent's deny wins over the global allow",
			config:  `{tools: {allow: ["exec", "read"]}, agents: {list: [{id: "work", tools: {deny: ["exec"]}}]}}`,
			req:     Request{AgentID: "work"},
			want:    []string{"read"},
			reasons: map[string]string{"exec": `denied by agents.list[work].tools.deny "exec"`},
		},
		{
			name:    "an agent's profile full overrides a global profile",
			config:  `{tools: {profile: "minimal"}, agents: {list: [{id: "work", tools: {profile: "full"}}]}}`,
			req:     Request{AgentID: "work"},
			want:    Names(),
			reasons: map[string]string{"exec": `agents.list[work].tools.profile "full" restricts nothing`},
		},
		{
			name:    "agents.defaults.tools applies to every agent",
			config:  `{agents: {defaults: {tools: {profile: "messaging", deny: ["sessions_send"]}}, list: [{id: "work"}]}}`,
			req:     Request{AgentID: "work"},
			want:    sorted("message", "sessions_list", "sessions_history", "session_status"),
			reasons: map[string]string{"sessions_send": `denied by agents.defaults.tools.deny "sessions_send"`, "exec": `agents.defaults.tools.profile "messaging" does not include it`},
		},
		{
			name:    "an agent overrides agents.defaults.tools",
			config:  `{tools: {profile: "minimal"}, agents: {defaults: {tools: {profile: "messaging"}}, list: [{id: "work", tools: {profile: "coding"}}]}}`,
			req:     Request{AgentID: "work"},
			want:    mustProfile("coding"),
			reasons: map[string]string{"exec": `agents.list[work].tools.profile "coding" includes it`},
		},
		{
			name:    "an agent not in agents.list gets the global policy",
			config:  `{tools: {profile: "minimal"}, agents: {list: [{id: "work", tools: {profile: "full"}}]}}`,
			req:     Request{AgentID: "ghost"},
			want:    []string{"session_status"},
			reasons: map[string]string{"exec": `tools.profile "minimal" does not include it`},
		},
		// --- byProvider ---
		{
			name:    "byProvider by provider narrows the profile",
			config:  `{tools: {profile: "coding", byProvider: {"google-cloud-auth": {profile: "minimal"}}}}`,
			req:     Request{Model: google},
			want:    []string{"session_status"},
			reasons: map[string]string{"exec": `tools.byProvider.google-cloud-auth.profile "minimal" does not include it`, "session_status": `tools.profile "coding" includes it; tools.byProvider.google-cloud-auth.profile "minimal" includes it`},
		},
		{
			name:   "byProvider of another provider does not apply",
			config: `{tools: {profile: "coding", byProvider: {"google-cloud-auth": {profile: "minimal"}}}}`,
			req:    Request{Model: openai52},
			want:   mustProfile("coding"),
		},
		{
			name:    "byProvider by provider/model",
			config:  `{tools: {allow: ["group:fs", "group:runtime", "sessions_list"], byProvider: {"openai/gpt-5.2": {allow: ["group:fs", "sessions_list"]}}}}`,
			req:     Request{Model: openai52},
			want:    sorted("read", "write", "edit", "apply_patch", "sessions_list"),
			reasons: map[string]string{"exec": `tools.byProvider["openai/gpt-5.2"].allow does not include it`, "read": `tools.allow "group:fs"; tools.byProvider["openai/gpt-5.2"].allow "group:fs"`},
		},
		{
			name:   "byProvider of another model does not apply",
			config: `{tools: {allow: ["group:fs", "group:runtime", "sessions_list"], byProvider: {"openai/gpt-5.2": {allow: ["group:fs", "sessions_list"]}}}}`,
			req:    Request{Model: openai4o},
			want:   sorted("read", "write", "edit", "apply_patch", "exec", "bash", "process", "sessions_list"),
		},
		{
			name:    "provider/model is more specific than provider",
			config:  `{tools: {byProvider: {openai: {allow: ["group:fs"], deny: ["write"]}, "openai/gpt-5.2": {allow: ["exec", "write"]}}}}`,
			req:     Request{Model: openai52},
			want:    []string{"exec"},
			reasons: map[string]string{"read": `tools.byProvider["openai/gpt-5.2"].allow does not include it`, "write": `denied by tools.byProvider.openai.deny "write"`},
		},
		{
			name:   "the provider entry applies to the provider's other models",
			config: `{tools: {byProvider: {openai: {allow: ["group:fs"], deny: ["write"]}, "openai/gpt-5.2": {allow: ["exec", "write"]}}}}`,
			req:    Request{Model: openai4o},
			want:   sorted("read", "edit", "apply_patch"),
		},
		{
			name:    "byProvider keys match case-insensitively",
			config:  `{tools: {byProvider: {"OpenAI/GPT-5.2": {allow: ["exec"]}}}}`,
			req:     Request{Model: model.Ref{Provider: "OPENAI", Name: "gpt-5.2"}},
			want:    []string{"exec"},
			reasons: map[string]string{"read": `tools.byProvider["openai/gpt-5.2"].allow does not include it`},
		},
		{
			name:    "byProvider cannot widen the base",
			config:  `{tools: {profile: "minimal", byProvider: {openai: {allow: ["exec", "session_status"]}}}}`,
			req:     Request{Model: openai4o},
			want:    []string{"session_status"},
			reasons: map[string]string{"exec": `tools.profile "minimal" does not include it`},
		},
		{
			name:    "byProvider deny wins over the global allow",
			config:  `{tools: {allow: ["exec", "read"], byProvider: {anthropic: {deny: ["exec"]}}}}`,
			req:     Request{Model: anthropic},
			want:    []string{"read"},
			reasons: map[string]string{"exec": `denied by tools.byProvider.anthropic.deny "exec"`},
		},
		{
			name:    "byProvider deny wins over its own allow",
			config:  `{tools: {byProvider: {anthropic: {allow: ["exec", "read"], deny: ["exec"]}}}}`,
			req:     Request{Model: anthropic},
			want:    []string{"read"},
			reasons: map[string]string{"exec": `denied by tools.byProvider.anthropic.deny "exec"`},
		},
		{
			name:     "a byProvider allow list of only unknown tools is ignored",
			config:   `{tools: {profile: "minimal", byProvider: {anthropic: {allow: ["slack"]}}}}`,
			req:      Request{Model: anthropic},
			want:     []string{"session_status"},
			warnings: []string{`tools.byProvider.anthropic.allow names only unknown tools ("slack"): ignored, so it does not deny every tool`},
		},
		{
			name: "an agent's byProvider",
			config: `{agents: {list: [{id: "support", tools: {
				byProvider: {"google-cloud-auth": {allow: ["message", "sessions_list"]}}}}]}}`,
			req:     Request{AgentID: "support", Model: google},
			want:    sorted("message", "sessions_list"),
			reasons: map[string]string{"exec": `agents.list[support].tools.byProvider.google-cloud-auth.allow does not include it`},
		},
		{
			name: "an agent's byProvider allow overrides the global byProvider allow",
			config: `{tools: {byProvider: {"google-cloud-auth": {allow: ["exec"]}}},
				agents: {list: [{id: "support", tools: {byProvider: {"google-cloud-auth": {allow: ["message"]}}}}]}}`,
			req:  Request{AgentID: "support", Model: google},
			want: []string{"message"},
		},
		{
			name: "an agent's byProvider allow adds to a global byProvider profile",
			config: `{tools: {byProvider: {"google-cloud-auth": {profile: "minimal"}}},
				agents: {list: [{id: "support", tools: {byProvider: {"google-cloud-auth": {allow: ["message"]}}}}]}}`,
			req:  Request{AgentID: "support", Model: google},
			want: sorted("message", "session_status"),
		},
		{
			name: "a global byProvider deny wins over an agent's byProvider allow",
			config: `{tools: {byProvider: {"google-cloud-auth": {deny: ["message"]}}},
				agents: {list: [{id: "support", tools: {byProvider: {"google-cloud-auth": {allow: ["message", "read"]}}}}]}}`,
			req:     Request{AgentID: "support", Model: google},
			want:    []string{"read"},
			reasons: map[string]string{"message": `denied by tools.byProvider.google-cloud-auth.deny "message"`},
		},
		{
			name:    "an agent's byProvider deny",
			config:  `{agents: {list: [{id: "work", tools: {byProvider: {"openai/gpt-5.2": {deny: ["group:ui"]}}}}]}}`,
			req:     Request{AgentID: "work", Model: openai52},
			want:    except("browser", "canvas"),
			reasons: map[string]string{"canvas": `denied by agents.list[work].tools.byProvider["openai/gpt-5.2"].deny "group:ui"`},
		},
		{
			name:   "no model: no byProvider entry applies",
			config: `{tools: {byProvider: {openai: {deny: ["*"]}}}}`,
			want:   Names(),
		},
		// --- sub-agents ---
		{
			name: "a sub-agent gets everything but the session tools",
			req:  Request{Subagent: true},
			want: except(sessionTools...),
			reasons: map[string]string{
				"sessions_spawn": "sub-agents never get sessions_spawn",
				"sessions_list":  "sub-agents get no session tools unless tools.subagents.tools.allow names them",
				"session_status": "no profile or allow list restricts it",
			},
		},
		{
			name:    "tools.subagents.tools.allow gives a sub-agent session tools, never sessions_spawn",
			config:  `{tools: {subagents: {tools: {allow: ["group:sessions", "read"]}}}}`,
			req:     Request{Subagent: true},
			want:    sorted("sessions_list", "sessions_history", "sessions_send", "sessions_yield", "subagents", "session_status", "read"),
			reasons: map[string]string{"sessions_spawn": "sub-agents never get sessions_spawn", "sessions_list": `no profile or allow list restricts it; tools.subagents.tools.allow "group:sessions"`, "exec": "tools.subagents.tools.allow does not include it"},
		},
		{
			name:    "tools.subagents.tools.allow star: everything but sessions_spawn",
			config:  `{tools: {subagents: {tools: {allow: ["*"]}}}}`,
			req:     Request{Subagent: true},
			want:    except("sessions_spawn"),
			reasons: map[string]string{"sessions_spawn": "sub-agents never get sessions_spawn"},
		},
		{
			name:    "an empty tools.subagents.tools.allow: everything but sessions_spawn",
			config:  `{tools: {subagents: {tools: {allow: []}}}}`,
			req:     Request{Subagent: true},
			want:    except("sessions_spawn"),
			reasons: map[string]string{"sessions_list": "no profile or allow list restricts it"},
		},
		{
			name:    "an explicit allow of sessions_spawn does not give it to a sub-agent",
			config:  `{tools: {allow: ["sessions_spawn", "read"], subagents: {tools: {allow: ["sessions_spawn", "read"]}}}}`,
			req:     Request{Subagent: true},
			want:    []string{"read"},
			reasons: map[string]string{"sessions_spawn": "sub-agents never get sessions_spawn"},
		},
		{
			name:    "tools.subagents.tools.deny adds to the default",
			config:  `{tools: {subagents: {tools: {deny: ["browser"]}}}}`,
			req:     Request{Subagent: true},
			want:    except(append([]string{"browser"}, sessionTools...)...),
			reasons: map[string]string{"browser": `denied by tools.subagents.tools.deny "browser"`},
		},
		{
			name:    "tools.subagents.tools.deny wins over its allow",
			config:  `{tools: {subagents: {tools: {allow: ["read", "write"], deny: ["write"]}}}}`,
			req:     Request{Subagent: true},
			want:    []string{"read"},
			reasons: map[string]string{"write": `denied by tools.subagents.tools.deny "write"`},
		},
		{
			name:    "a sub-agent cannot widen its agent's policy",
			config:  `{tools: {profile: "messaging", deny: ["message"], subagents: {tools: {allow: ["exec", "message", "sessions_list"]}}}}`,
			req:     Request{Subagent: true},
			want:    []string{"sessions_list"},
			reasons: map[string]string{"exec": `tools.profile "messaging" does not include it`, "message": `denied by tools.deny "message"`},
		},
		{
			name:    "a sub-agent under the messaging profile",
			config:  `{tools: {profile: "messaging"}}`,
			req:     Request{Subagent: true},
			want:    sorted("message", "session_status"),
			reasons: map[string]string{"sessions_send": "sub-agents get no session tools unless tools.subagents.tools.allow names them"},
		},
		{
			name:     "a tools.subagents.tools.allow of only unknown tools is ignored",
			config:   `{tools: {subagents: {tools: {allow: ["slack"]}}}}`,
			req:      Request{Subagent: true},
			want:     except(sessionTools...),
			warnings: []string{`tools.subagents.tools.allow names only unknown tools ("slack"): ignored, so it does not deny every tool`},
		},
		{
			name:   "tools.subagents.tools applies to sub-agents only",
			config: `{tools: {subagents: {tools: {allow: ["read"], deny: ["nope"]}}}}`,
			want:   Names(),
		},
		// --- sandbox ---
		{
			name: "a sandbox does not change what is allowed; session tools see only spawned sessions",
			req:  Request{Sandbox: true},
			want: Names(),
			reasons: map[string]string{
				"sessions_list":  `no profile or allow list restricts it; sandboxed: sees only the sessions it spawned (sessionToolsVisibility "spawned")`,
				"sessions_send":  `no profile or allow list restricts it; sandboxed: sees only the sessions it spawned (sessionToolsVisibility "spawned")`,
				"sessions_spawn": "no profile or allow list restricts it",
				"exec":           "no profile or allow list restricts it",
			},
		},
		{
			name:    "a sandboxed agent whose sessionToolsVisibility is all",
			config:  `{agents: {list: [{id: "work", sandbox: {sessionToolsVisibility: "all"}}]}}`,
			req:     Request{AgentID: "work", Sandbox: true},
			want:    Names(),
			reasons: map[string]string{"sessions_history": `no profile or allow list restricts it; sandboxed: sees every session (sessionToolsVisibility "all")`},
		},
		{
			name:    "a sandbox's denied session tool says why it is denied, not what it would see",
			config:  `{tools: {deny: ["sessions_list"]}}`,
			req:     Request{Sandbox: true},
			want:    except("sessions_list"),
			reasons: map[string]string{"sessions_list": `denied by tools.deny "sessions_list"`},
		},
		{
			name:    "a sandboxed sub-agent",
			config:  `{agents: {defaults: {sandbox: {sessionToolsVisibility: "spawned"}}}, tools: {subagents: {tools: {allow: ["sessions_list", "read"]}}}}`,
			req:     Request{Sandbox: true, Subagent: true},
			want:    sorted("sessions_list", "read"),
			reasons: map[string]string{"sessions_list": `no profile or allow list restricts it; tools.subagents.tools.allow "sessions_list"; sandboxed: sees only the sessions it spawned (sessionToolsVisibility "spawned")`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(tt.config))
			if err != nil {
				t.Fatal(err)
			}
			d := Decide(cfg, tt.req)
			if len(d.Tools) != len(Names()) {
				t.Fatalf("%d verdicts; want one per tool (%d)", len(d.Tools), len(Names()))
			}
			for i, v := range d.Tools {
				if v.Name != Names()[i] {
					t.Fatalf("Tools[%d] = %q; want %q (inventory order)", i, v.Name, Names()[i])
				}
				if v.Reason == "" {
					t.Errorf("%s: no reason", v.Name)
				}
			}
			if got := d.AllowedNames(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("allowed = %v\nwant      %v", got, tt.want)
				for _, v := range d.Tools {
					t.Logf("%s %v: %s", v.Name, v.Allowed, v.Reason)
				}
			}
			for name, want := range tt.reasons {
				if v, ok := d.Tool(name); !ok || v.Reason != want {
					t.Errorf("%s: reason %q; want %q", name, v.Reason, want)
				}
			}
			if !reflect.DeepEqual(d.Warnings, tt.warnings) {
				t.Errorf("warnings = %q; want %q", d.Warnings, tt.warnings)
			}
			wantVisibility := ""
			if tt.req.Sandbox {
				wantVisibility = config.VisibilitySpawned
				if strings.Contains(tt.config, `"all"`) {
					wantVisibility = config.VisibilityAll
				}
			}
			if d.SessionVisibility != wantVisibility {
				t.Errorf("SessionVisibility = %q; want %q", d.SessionVisibility, wantVisibility)
			}
		})
	}
}

// mustProfile is the tools of a profile that must exist.
func mustProfile(name string) []string {
	tools, ok := Profile(name)
	if !ok {
		panic("no profile " + name)
	}
	return tools
}

func TestDecisionLookups(t *testing.T) {
	cfg, err := config.Parse([]byte(`{tools: {allow: ["exec", "read"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	d := Decide(cfg, Request{})
	for name, want := range map[string]bool{"exec": true, "EXEC": true, " read ": true, "write": false, "slack": false, "": false} {
		if got := d.Allowed(name); got != want {
			t.Errorf("Allowed(%q) = %v; want %v", name, got, want)
		}
	}
	if _, ok := d.Tool("slack"); ok {
		t.Error(`Tool("slack") found; want only inventory names`)
	}
	if got := d.AllowedNames(); !reflect.DeepEqual(got, []string{"exec", "read"}) {
		t.Errorf("AllowedNames() = %v", got)
	}
}

func TestDecideNilConfig(t *testing.T) {
	d := Decide(nil, Request{AgentID: "main", Model: openai4o, Subagent: true})
	if got := d.AllowedNames(); !reflect.DeepEqual(got, except("sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "sessions_yield", "subagents")) {
		t.Errorf("AllowedNames() = %v", got)
	}
}

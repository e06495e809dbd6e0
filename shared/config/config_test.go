package config

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

func parseFile(t *testing.T, name string) *Config {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return c
}

func mustParse(t *testing.T, doc string) *Config {
	t.Helper()
	c, err := Parse([]byte(doc))
	if err != nil {
		t.Fatalf("Parse(%s): %v", doc, err)
	}
	return c
}

func TestParseEmptyIsDefault(t *testing.T) {
	for _, doc := range []string{"", "{}", "  // nothing yet\n", "/* */ { } ", "{session: {}, agents: {defaults: null}}"} {
		t.Run(doc, func(t *testing.T) {
			c := mustParse(t, doc)
			if !reflect.DeepEqual(c, Default()) {
				t.Fatalf("Parse(%q) = %+v; want Default() %+v", doc, c, Default())
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	c := Default()
	if got, want := c.Keys(), (session.KeyConfig{MainKey: "main", DMScope: "main", Scope: "per-sender"}); !reflect.DeepEqual(got, want) {
		t.Errorf("Keys = %+v; want %+v", got, want)
	}
	if got, want := c.Routing(), (session.Agents{Default: "main"}); !reflect.DeepEqual(got, want) {
		t.Errorf("Routing = %+v; want %+v", got, want)
	}
	l := c.Lifecycle()
	if l.Reset != (session.ResetPolicy{Mode: "daily", AtHour: 4}) || l.Location != time0UTC() || l.ByType != nil || l.ByChannel != nil {
		t.Errorf("Lifecycle = %+v", l)
	}
	if got := c.SendPolicy(); got.Default != "allow" || len(got.Rules) != 0 {
		t.Errorf("SendPolicy = %+v", got)
	}
	if got := c.ResetTriggers(); !reflect.DeepEqual(got, []string{"/new", "/reset"}) {
		t.Errorf("ResetTriggers = %q", got)
	}
	if c.Session.AgentToAgent.MaxPingPongTurns != 5 || c.Agents.Defaults.Subagents.ArchiveAfterMinutes != 60 ||
		c.Agents.Defaults.Sandbox.SessionToolsVisibility != "spawned" || c.Session.TimeZone != "UTC" {
		t.Errorf("defaults = %+v", c)
	}
	if c.Admits("telegram", "1") || c.IsOwner("telegram", "1") {
		t.Error("the default config admits someone")
	}
	if _, ok := c.DefaultModel("main"); ok {
		t.Error("the default config has a model")
	}
	if len(c.Warnings()) != 0 {
		t.Errorf("Warnings = %q", c.Warnings())
	}
}

func TestDevJSON(t *testing.T) {
	c := mustParse(t, DevJSON)
	for _, channel := range []string{"telegram", "discord"} {
		if !c.Admits(channel, "12345") || !c.IsOwner(channel, channel+":12345") {
			t.Fatalf("DevJSON must admit everyone on %s as an owner", channel)
		}
	}
	// The one warning is the truth about a config that admits everyone
	// with dmScope main: every local tester shares one conversation.
	if w := c.Warnings(); len(w) != 1 || !strings.HasPrefix(w[0], `session.dmScope: "main" while channels.discord.allowFrom and channels.telegram.allowFrom admits anyone`) {
		t.Fatalf("DevJSON warnings: %q", w)
	}
}

func TestSessionExample(t *testing.T) {
	c := parseFile(t, "session-example.json5")
	if got, want := c.Keys(), (session.KeyConfig{
		MainKey: "main", DMScope: "main", Scope: "per-sender",
		IdentityLinks: []session.IdentityLink{{Canonical: "alice", Peers: []string{"telegram:123456789", "discord:987654321012345678"}}},
	}); !reflect.DeepEqual(got, want) {
		t.Errorf("Keys = %+v; want %+v", got, want)
	}
	l := c.Lifecycle()
	want := session.Lifecycle{
		Reset: session.ResetPolicy{Mode: "daily", AtHour: 4, IdleMinutes: 120},
		ByType: map[string]session.ResetPolicy{
			"thread": {Mode: "daily", AtHour: 4},
			"dm":     {Mode: "idle", AtHour: 4, IdleMinutes: 240},
			"group":  {Mode: "idle", AtHour: 4, IdleMinutes: 120},
		},
		ByChannel: map[string]session.ResetPolicy{"discord": {Mode: "idle", AtHour: 4, IdleMinutes: 10080}},
		Location:  time0UTC(),
	}
	if !reflect.DeepEqual(l, want) {
		t.Errorf("Lifecycle = %+v; want %+v", l, want)
	}
	if got := c.ResetTriggers(); !reflect.DeepEqual(got, []string{"/new", "/reset"}) {
		t.Errorf("ResetTriggers = %q", got)
	}
	if got, want := c.Warnings(), []string{"session.store: ignored: ZERO keeps sessions in DynamoDB"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Warnings = %q; want %q", got, want)
	}
}

func TestFullConfig(t *testing.T) {
	c := parseFile(t, "full.json5")
	if w := c.Warnings(); len(w) != 0 {
		t.Errorf("Warnings = %q", w)
	}
	if got, want := c.Keys(), (session.KeyConfig{
		MainKey: "home", DMScope: "per-account-channel-peer", Scope: "global",
		IdentityLinks: []session.IdentityLink{
			{Canonical: "zoe", Peers: []string{"telegram:1", "discord:2"}},
			{Canonical: "alice", Peers: []string{"telegram:3"}},
			{Canonical: "bob", Peers: []string{"slack:u4"}},
		},
	}); !reflect.DeepEqual(got, want) {
		t.Errorf("Keys = %+v; want %+v", got, want)
	}
	l := c.Lifecycle()
	if l.Reset != (session.ResetPolicy{Mode: "daily", AtHour: 3, IdleMinutes: 90}) {
		t.Errorf("Reset = %+v", l.Reset)
	}
	// An override is a complete policy: what it omits takes the default,
	// not session.reset's value.
	if got := l.ByType["group"]; got != (session.ResetPolicy{Mode: "daily", AtHour: 4, IdleMinutes: 30}) {
		t.Errorf("ByType[group] = %+v", got)
	}
	if got := l.ByChannel["discord"]; got != (session.ResetPolicy{Mode: "off", AtHour: 4}) {
		t.Errorf("ByChannel[discord] = %+v", got)
	}
	if l.Location.String() != "Europe/Lisbon" || c.Session.TimeZone != "Europe/Lisbon" {
		t.Errorf("Location = %v", l.Location)
	}
	if got, want := c.ResetTriggers(), []string{"/new", "/reset", "/wipe"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ResetTriggers = %q; want %q", got, want)
	}
	if got, want := c.SendPolicy(), (session.SendPolicy{
		Rules: []session.SendRule{
			{Action: "deny", Match: session.SendMatch{Channel: "discord", ChatType: "group"}},
			{Action: "deny", Match: session.SendMatch{KeyPrefix: "cron:"}},
			{Action: "allow", Match: session.SendMatch{ChatType: "direct"}},
		},
		Default: "deny",
	}); !reflect.DeepEqual(got, want) {
		t.Errorf("SendPolicy = %+v; want %+v", got, want)
	}
	if c.Session.AgentToAgent.MaxPingPongTurns != 2 {
		t.Errorf("MaxPingPongTurns = %d", c.Session.AgentToAgent.MaxPingPongTurns)
	}

	if got, want := c.Routing(), (session.Agents{
		Default: "work",
		IDs:     []string{"main", "work", "support"},
		Bindings: []session.Binding{
			{AgentID: "work", Match: session.BindingMatch{Channel: "telegram", PeerKind: "direct", PeerID: "42"}},
			{AgentID: "support", Match: session.BindingMatch{Channel: "discord", GuildID: "123", AccountID: "*"}},
			{AgentID: "main", Match: session.BindingMatch{Channel: "telegram", PeerID: "-1001234567890"}},
		},
	}); !reflect.DeepEqual(got, want) {
		t.Errorf("Routing = %+v; want %+v", got, want)
	}
	d := c.Agents.Defaults
	if d.Sandbox.SessionToolsVisibility != "all" || d.Subagents.ArchiveAfterMinutes != 15 || d.Tools.Profile != "coding" || d.UserTimezone != "America/Sao_Paulo" {
		t.Errorf("Defaults = %+v", d)
	}
	wantCatalog := []CatalogModel{
		{Ref: model.Ref{Provider: "openai", Name: "gpt-5.2"}, Alias: "GPT"},
		{Ref: model.Ref{Provider: "anthropic", Name: "claude-sonnet-4-5"}, Alias: "sonnet"},
		{Ref: model.Ref{Provider: "openrouter", Name: "meta/llama-3"}},
		{Ref: model.Ref{Provider: "openai", Name: "gpt-5-mini"}, Alias: "mini"},
	}
	if !reflect.DeepEqual(d.Models, wantCatalog) {
		t.Errorf("Models = %+v; want %+v", d.Models, wantCatalog)
	}
	work, ok := c.Agent("WORK")
	wantWork := Agent{
		ID: "work", Default: true, Name: "Work bot",
		Model: ModelChoice{Primary: model.Ref{Provider: "openai", Name: "gpt-5.2"}},
		Tools: ToolPolicy{
			Profile: "messaging", Allow: []string{"slack"}, Deny: []string{"group:runtime"},
			ByProvider: map[string]ToolPolicy{"google-cloud-auth": {Allow: []string{"message", "sessions_list"}}},
		},
		Subagents: Subagents{AllowAgents: []string{"main", "support"}},
		Sandbox:   Sandbox{SessionToolsVisibility: "spawned"},
		Sandboxed: true,
	}
	if !ok || !reflect.DeepEqual(work, wantWork) {
		t.Errorf("Agent(work) = %+v, %v; want %+v", work, ok, wantWork)
	}
	if main, _ := c.Agent("main"); main.Sandbox.SessionToolsVisibility != "all" || main.Sandboxed {
		t.Errorf("main inherits the default sandbox's visibility and is not sandboxed: got %+v, sandboxed %v", main.Sandbox, main.Sandboxed)
	}
	if support, _ := c.Agent("support"); !reflect.DeepEqual(support.Subagents.AllowAgents, []string{"*"}) {
		t.Errorf("support allowAgents = %q", support.Subagents.AllowAgents)
	}
	wantTools := Tools{
		ToolPolicy: ToolPolicy{
			Profile: "full", Allow: []string{"group:fs", "browser"}, Deny: []string{"exec"},
			ByProvider: map[string]ToolPolicy{
				"google-cloud-auth": {Profile: "minimal"},
				"openai/gpt-5.2":    {Allow: []string{"group:fs", "sessions_list"}, Deny: []string{}},
			},
		},
		Subagents: ToolPolicy{Allow: []string{"read"}, Deny: []string{"sessions_send"}},
		Web:       ToolsWeb{Search: ToolsWebSearch{MaxResults: DefaultWebSearchResults}, Fetch: ToolsWebFetch{Enabled: true, MaxChars: DefaultWebFetchMaxChars}},
		Sessions:  ToolsSessions{Visibility: SessionsVisibilitySelf},
	}
	if !reflect.DeepEqual(c.Tools, wantTools) {
		t.Errorf("Tools = %+v; want %+v", c.Tools, wantTools)
	}
	wantChannels := map[string]Channel{
		"telegram": {AllowFrom: []string{"123", "456", "tg-user"}, Owners: []string{"123"}},
		"discord":  {AllowFrom: []string{"*"}},
	}
	if !reflect.DeepEqual(c.Channels, wantChannels) {
		t.Errorf("Channels = %+v; want %+v", c.Channels, wantChannels)
	}
}

func TestUpstreamConfigWarnings(t *testing.T) {
	c := parseFile(t, "upstream.json5")
	want := []string{
		"gateway: unknown key, ignored",
		"session.store: ignored: ZERO keeps sessions in DynamoDB",
		"session.typingIntervalSeconds: unknown key, ignored",
		"agents.defaults.workspace: unknown key, ignored",
		"agents.defaults.heartbeat: unknown key, ignored",
		"agents.list[0].workspace: unknown key, ignored",
		"agents.list[0].identity: unknown key, ignored",
		"bindings[0].comment: unknown key, ignored",
		"channels.telegram.botToken: ignored: secrets belong in the function environment or SSM, never in the config",
		"channels.telegram.enabled: unknown key, ignored",
		"channels.telegram.dmPolicy: unknown key, ignored",
		"models.providers.ollama.baseUrl: unknown key, ignored",
	}
	if got := c.Warnings(); !reflect.DeepEqual(got, want) {
		t.Errorf("Warnings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Legacy idle-only: session.idleMinutes with no reset block.
	if got := c.Lifecycle().Reset; got != (session.ResetPolicy{Mode: "idle", AtHour: 4, IdleMinutes: 60}) {
		t.Errorf("Reset = %+v", got)
	}
	if got := c.Session.TimeZone; got != "Europe/Lisbon" {
		t.Errorf("TimeZone = %q; want agents.defaults.userTimezone", got)
	}
	if !c.Admits("telegram", "1001") || c.Admits("telegram", "1002") {
		t.Error("allowFrom telegram:1001 must admit exactly 1001")
	}
	if ref, ok := c.DefaultModel("main"); !ok || ref.String() != "openai/gpt-5.2" {
		t.Errorf("DefaultModel = %v, %v", ref, ok)
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{"nested unknown key", `{session: {reset: {mode: "daily", hour: 3}}}`, []string{"session.reset.hour: unknown key, ignored"}},
		{"odd key quoted in path", `{tools: {byProvider: {"openai/gpt-5.2": {allow: [], "x y": 1}}}}`, []string{`tools.byProvider["openai/gpt-5.2"]["x y"]: unknown key, ignored`}},
		{"duplicate key", `{session: {mainKey: "a", mainKey: "b"}}`, []string{"session.mainKey: duplicate key, the last one wins"}},
		{"legacy idleMinutes next to reset", `{session: {idleMinutes: 30, reset: {atHour: 5}}}`, []string{"session.idleMinutes: ignored because session.reset or session.resetByType is set (put idleMinutes there)"}},
		{"legacy idleMinutes next to resetByType", `{session: {idleMinutes: 30, resetByType: {dm: {mode: "off"}}}}`, []string{"session.idleMinutes: ignored because session.reset or session.resetByType is set (put idleMinutes there)"}},
		{"peer linked twice", `{session: {identityLinks: {a: ["telegram:1"], b: ["Telegram:1", "discord:2"]}}}`, []string{`session.identityLinks.b[0]: "telegram:1" is already linked to "a"; the first link wins`}},
		{"agent id rewritten", `{agents: {list: [{id: "My Bot"}]}}`, []string{`agents.list[0].id: "my bot" is used as "my-bot" (agent ids are [a-z0-9_-])`}},
		{"binding that matches nothing", `{bindings: [{agentId: "main"}]}`, []string{"bindings[0]: match sets no field, so this binding matches nothing"}},
		{"channel secrets", `{channels: {slack: {appToken: "x", signingSecret: "y", allowFrom: []}}}`, []string{
			"channels.slack.appToken: ignored: secrets belong in the function environment or SSM, never in the config",
			"channels.slack.signingSecret: ignored: secrets belong in the function environment or SSM, never in the config",
		}},
		{"nested byProvider", `{tools: {byProvider: {openai: {byProvider: {}}}}}`, []string{"tools.byProvider.openai.byProvider: unknown key, ignored"}},
		{"subagents profile", `{tools: {subagents: {tools: {profile: "full"}, model: "x"}}}`, []string{"tools.subagents.tools.profile: unknown key, ignored", "tools.subagents.model: unknown key, ignored"}},
		{"schema key is silent", `{"$schema": "x"}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := mustParse(t, tc.doc)
			if got := c.Warnings(); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Warnings = %q; want %q", got, tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want string // the whole message
	}{
		{"syntax", "{\n  session: {scope: per-sender}}", `JSON5 syntax error at 2:20: unexpected word "per" (strings need quotes)`},
		{"NaN", `{session: {reset: {atHour: NaN}}}`, `JSON5 syntax error at 1:28: NaN has no JSON equivalent; use a finite number or a string`},
		{"document not an object", `[1]`, `zero.json: the document must be an object, got a list`},
		{"section not an object", `{session: "x"}`, `session: must be an object, got "x"`},

		{"scope", `{session: {scope: "per-user"}}`, `session.scope: must be one of per-sender, global, got "per-user"`},
		{"dmScope", `{session: {dmScope: "per-user"}}`, `session.dmScope: must be one of main, per-peer, per-channel-peer, per-account-channel-peer, got "per-user"`},
		{"dmScope type", `{session: {dmScope: 1}}`, `session.dmScope: must be one of main, per-peer, per-channel-peer, per-account-channel-peer, got 1`},
		{"mainKey type", `{session: {mainKey: 1}}`, `session.mainKey: must be a string, got 1`},
		{"mainKey empty", `{session: {mainKey: " "}}`, `session.mainKey: must not be empty`},
		{"mainKey colon", `{session: {mainKey: "a:b"}}`, `session.mainKey: must not contain ':' or spaces, got "a:b"`},
		{"identityLinks type", `{session: {identityLinks: ["a"]}}`, `session.identityLinks: must be an object, got a list`},
		{"identityLinks peers type", `{session: {identityLinks: {alice: "telegram:1"}}}`, `session.identityLinks.alice: must be a list, got "telegram:1"`},
		{"identityLinks peer without provider", `{session: {identityLinks: {alice: ["telegram:1", "123"]}}}`, `session.identityLinks.alice[1]: must be "<provider>:<id>" (e.g. "telegram:123"), got "123"`},
		{"identityLinks peer without id", `{session: {identityLinks: {alice: ["telegram:"]}}}`, `session.identityLinks.alice[0]: must be "<provider>:<id>" (e.g. "telegram:123"), got "telegram:"`},
		{"identityLinks peer number", `{session: {identityLinks: {alice: [123]}}}`, `session.identityLinks.alice[0]: must be a string, got 123`},
		{"identityLinks empty canonical", `{session: {identityLinks: {" ": ["telegram:1"]}}}`, `session.identityLinks[" "]: empty canonical name`},

		{"atHour range", `{session: {reset: {atHour: 25}}}`, `session.reset.atHour: must be an integer 0-23, got 25`},
		{"atHour negative", `{session: {reset: {atHour: -1}}}`, `session.reset.atHour: must be an integer 0-23, got -1`},
		{"atHour fraction", `{session: {reset: {atHour: 4.5}}}`, `session.reset.atHour: must be an integer 0-23, got 4.5`},
		{"atHour type", `{session: {reset: {atHour: "4"}}}`, `session.reset.atHour: must be a number, got "4"`},
		{"idleMinutes type", `{session: {reset: {idleMinutes: "120"}}}`, `session.reset.idleMinutes: must be a number, got "120"`},
		{"idleMinutes negative", `{session: {reset: {idleMinutes: -5}}}`, `session.reset.idleMinutes: must be a whole number of minutes >= 0, got -5`},
		{"reset mode", `{session: {reset: {mode: "weekly"}}}`, `session.reset.mode: must be one of daily, idle, off, got "weekly"`},
		{"idle without idleMinutes", `{session: {reset: {mode: "idle"}}}`, `session.reset.idleMinutes: required (a positive number of minutes) when mode is idle`},
		{"idle with zero idleMinutes", `{session: {reset: {mode: "idle", idleMinutes: 0}}}`, `session.reset.idleMinutes: required (a positive number of minutes) when mode is idle`},
		{"reset type", `{session: {reset: "daily"}}`, `session.reset: must be an object, got "daily"`},
		{"resetByType idle without minutes", `{session: {resetByType: {dm: {mode: "idle"}}}}`, `session.resetByType.dm.idleMinutes: required (a positive number of minutes) when mode is idle`},
		{"resetByType atHour", `{session: {resetByType: {thread: {atHour: 24}}}}`, `session.resetByType.thread.atHour: must be an integer 0-23, got 24`},
		{"resetByChannel idle without minutes", `{session: {resetByChannel: {discord: {mode: "idle"}}}}`, `session.resetByChannel.discord.idleMinutes: required (a positive number of minutes) when mode is idle`},
		{"resetByChannel type", `{session: {resetByChannel: {discord: 5}}}`, `session.resetByChannel.discord: must be an object, got 5`},
		{"resetByChannel twice", `{session: {resetByChannel: {discord: {}, Discord: {}}}}`, `session.resetByChannel.Discord: channel "discord" is listed twice`},
		{"legacy idleMinutes type", `{session: {idleMinutes: true}}`, `session.idleMinutes: must be a number, got true`},
		{"resetTriggers type", `{session: {resetTriggers: "/new"}}`, `session.resetTriggers: must be a list, got "/new"`},
		{"resetTriggers empty item", `{session: {resetTriggers: ["/new", ""]}}`, `session.resetTriggers[1]: must not be empty`},

		{"sendPolicy default", `{session: {sendPolicy: {default: "block"}}}`, `session.sendPolicy.default: must be one of allow, deny, got "block"`},
		{"sendPolicy action", `{session: {sendPolicy: {rules: [{action: "drop"}]}}}`, `session.sendPolicy.rules[0].action: must be one of allow, deny, got "drop"`},
		{"sendPolicy action missing", `{session: {sendPolicy: {rules: [{match: {channel: "x"}}]}}}`, `session.sendPolicy.rules[0].action: required (allow or deny)`},
		{"sendPolicy chatType", `{session: {sendPolicy: {rules: [{action: "deny", match: {chatType: "room"}}]}}}`, `session.sendPolicy.rules[0].match.chatType: must be one of direct, dm, group, channel, got "room"`},
		{"sendPolicy rules type", `{session: {sendPolicy: {rules: {}}}}`, `session.sendPolicy.rules: must be a list, got an object`},
		{"maxPingPongTurns", `{session: {agentToAgent: {maxPingPongTurns: 6}}}`, `session.agentToAgent.maxPingPongTurns: must be an integer 0-5, got 6`},
		{"timeZone unknown", `{session: {timeZone: "Mars/Olympus"}}`, `session.timeZone: unknown time zone "Mars/Olympus" (use an IANA name such as "Europe/Lisbon")`},
		{"timeZone Local", `{session: {timeZone: "Local"}}`, `session.timeZone: must be an IANA time zone name such as "Europe/Lisbon", got "Local"`},
		{"timeZone type", `{session: {timeZone: 1}}`, `session.timeZone: must be a string, got 1`},
		{"userTimezone unknown", `{agents: {defaults: {userTimezone: "Nowhere"}}}`, `agents.defaults.userTimezone: unknown time zone "Nowhere" (use an IANA name such as "Europe/Lisbon")`},
		{"contextTokens zero", `{agents: {defaults: {contextTokens: 0}}}`, `agents.defaults.contextTokens: must be a whole number of tokens >= 1, got 0`},
		{"timeoutSeconds zero", `{agents: {defaults: {timeoutSeconds: 0}}}`, `agents.defaults.timeoutSeconds: must be a whole number of seconds 1-86400, got 0`},
		{"queue mode", `{messages: {queue: {mode: "later"}}}`, `messages.queue.mode: must be one of collect, followup, steer, interrupt, got "later"`},
		{"queue mode by channel", `{messages: {queue: {byChannel: {telegram: "soon"}}}}`, `messages.queue.byChannel.telegram: must be one of collect, followup, steer, interrupt, got "soon"`},
		{"queue cap", `{messages: {queue: {cap: 0}}}`, `messages.queue.cap: must be a whole number 1-90, got 0`},
		{"compaction reserve negative", `{agents: {defaults: {compaction: {reserveTokens: -1}}}}`, `agents.defaults.compaction.reserveTokens: must be a whole number of tokens >= 0, got -1`},
		{"contextTokens fraction", `{agents: {defaults: {contextTokens: 1.5}}}`, `agents.defaults.contextTokens: must be a whole number of tokens >= 1, got 1.5`},

		{"agents type", `{agents: []}`, `agents: must be an object, got a list`},
		{"agents.list type", `{agents: {list: {}}}`, `agents.list: must be a list, got an object`},
		{"agent not an object", `{agents: {list: ["main"]}}`, `agents.list[0]: must be an object, got "main"`},
		{"agent id missing", `{agents: {list: [{id: "a"}, {name: "b"}]}}`, `agents.list[1].id: required`},
		{"agent id empty", `{agents: {list: [{id: ""}]}}`, `agents.list[0].id: must not be empty`},
		{"agent id type", `{agents: {list: [{id: 7}]}}`, `agents.list[0].id: must be a string, got 7`},
		{"duplicate agent id", `{agents: {list: [{id: "main"}, {id: "home"}, {id: "Work"}, {id: "work"}]}}`, `agents.list[3].id: duplicate agent id "work" (also agents.list[2])`},
		{"two defaults", `{agents: {list: [{id: "a", default: true}, {id: "b"}, {id: "c", default: true}]}}`, `agents.list[2].default: only one agent may be the default; agents.list[0] already is`},
		{"default type", `{agents: {list: [{id: "a", default: "yes"}]}}`, `agents.list[0].default: must be true or false, got "yes"`},
		{"agent model", `{agents: {list: [{id: "a", model: "gpt"}]}}`, `agents.list[0].model: must be of the form "provider/model", got "gpt"`},
		{"agent model type", `{agents: {list: [{id: "a", model: 5}]}}`, `agents.list[0].model: must be "provider/model" or {primary, fallbacks}, got 5`},
		{"defaults model primary", `{agents: {defaults: {model: {primary: "x"}}}}`, `agents.defaults.model.primary: must be of the form "provider/model", got "x"`},
		{"defaults model fallback", `{agents: {defaults: {model: {primary: "a/b", fallbacks: ["c/d", "e"]}}}}`, `agents.defaults.model.fallbacks[1]: must be of the form "provider/model", got "e"`},
		{"image model", `{agents: {defaults: {imageModel: "x"}}}`, `agents.defaults.imageModel: must be of the form "provider/model", got "x"`},
		{"catalog key", `{agents: {defaults: {models: {"gpt-5": {}}}}}`, `agents.defaults.models.gpt-5: must be of the form "provider/model", got "gpt-5"`},
		{"catalog alias type", `{agents: {defaults: {models: {"a/b": {alias: 1}}}}}`, `agents.defaults.models["a/b"].alias: must be a string, got 1`},
		{"catalog duplicate alias", `{agents: {defaults: {models: {"a/b": {alias: "Fast"}, "c/d": {alias: "fast"}}}}}`, `agents.defaults.models["c/d"].alias: alias "fast" is already used by a/b`},
		{"catalog duplicate model", `{agents: {defaults: {models: {"a/b": {}, "A/b": {}}}}}`, `agents.defaults.models["A/b"]: model a/b is listed twice`},
		{"sandbox visibility", `{agents: {defaults: {sandbox: {sessionToolsVisibility: "none"}}}}`, `agents.defaults.sandbox.sessionToolsVisibility: must be one of spawned, all, got "none"`},
		{"agent sandbox visibility", `{agents: {list: [{id: "a", sandbox: {sessionToolsVisibility: "own"}}]}}`, `agents.list[0].sandbox.sessionToolsVisibility: must be one of spawned, all, got "own"`},
		{"archiveAfterMinutes", `{agents: {defaults: {subagents: {archiveAfterMinutes: -1}}}}`, `agents.defaults.subagents.archiveAfterMinutes: must be a whole number of minutes >= 0, got -1`},
		{"allowAgents unknown", `{agents: {list: [{id: "a", subagents: {allowAgents: ["a", "ghost"]}}]}}`, `agents.list[0].subagents.allowAgents[1]: no agent "ghost" in agents.list`},
		{"allowAgents type", `{agents: {list: [{id: "a", subagents: {allowAgents: "*"}}]}}`, `agents.list[0].subagents.allowAgents: must be a list, got "*"`},
		{"agent tools profile", `{agents: {list: [{id: "a", tools: {profile: "admin"}}]}}`, `agents.list[0].tools.profile: must be one of minimal, coding, messaging, full, got "admin"`},
		{"defaults tools deny", `{agents: {defaults: {tools: {deny: [1]}}}}`, `agents.defaults.tools.deny[0]: must be a string, got 1`},

		{"bindings type", `{bindings: {}}`, `bindings: must be a list, got an object`},
		{"binding agent unknown", `{agents: {list: [{id: "a"}]}, bindings: [{agentId: "x", match: {channel: "telegram"}}]}`, `bindings[0].agentId: no agent "x" in agents.list`},
		{"binding agent without list", `{bindings: [{agentId: "main"}, {agentId: "x"}]}`, `bindings[1].agentId: no agent "x" in agents.list (with no agents.list the only agent is "main")`},
		{"binding agent missing", `{bindings: [{match: {channel: "telegram"}}]}`, `bindings[0].agentId: required`},
		{"binding peer kind", `{bindings: [{agentId: "main", match: {peer: {kind: "user", id: "1"}}}]}`, `bindings[0].match.peer.kind: must be one of dm, direct, group, channel, got "user"`},
		{"binding peer id missing", `{bindings: [{agentId: "main", match: {peer: {kind: "dm"}}}]}`, `bindings[0].match.peer.id: required`},
		{"binding peer id fraction", `{bindings: [{agentId: "main", match: {peer: 1.5}}]}`, `bindings[0].match.peer: must be a string or an integer id, got 1.5`},
		{"binding channel type", `{bindings: [{agentId: "main", match: {channel: ["telegram"]}}]}`, `bindings[0].match.channel: must be a string, got a list`},

		{"tools profile", `{tools: {profile: "everything"}}`, `tools.profile: must be one of minimal, coding, messaging, full, got "everything"`},
		{"tools allow type", `{tools: {allow: "browser"}}`, `tools.allow: must be a list, got "browser"`},
		{"tools deny item", `{tools: {deny: ["browser", " "]}}`, `tools.deny[1]: must not be empty`},
		{"tools byProvider type", `{tools: {byProvider: {openai: ["x"]}}}`, `tools.byProvider.openai: must be an object, got a list`},
		{"tools byProvider profile", `{tools: {byProvider: {"openai/gpt-5.2": {profile: "max"}}}}`, `tools.byProvider["openai/gpt-5.2"].profile: must be one of minimal, coding, messaging, full, got "max"`},
		{"tools byProvider bad ref", `{tools: {byProvider: {"openai/": {}}}}`, `tools.byProvider["openai/"]: must be of the form "provider/model", got "openai/"`},
		{"tools byProvider twice", `{tools: {byProvider: {openai: {}, OpenAI: {}}}}`, `tools.byProvider.OpenAI: "openai" is listed twice`},
		{"tools subagents allow", `{tools: {subagents: {tools: {allow: [true]}}}}`, `tools.subagents.tools.allow[0]: must be a string, got true`},

		{"channels type", `{channels: ["telegram"]}`, `channels: must be an object, got a list`},
		{"channel type", `{channels: {telegram: true}}`, `channels.telegram: must be an object, got true`},
		{"allowFrom type", `{channels: {telegram: {allowFrom: "*"}}}`, `channels.telegram.allowFrom: must be a list, got "*"`},
		{"allowFrom item type", `{channels: {telegram: {allowFrom: [{id: 1}]}}}`, `channels.telegram.allowFrom[0]: must be a string or an integer id, got an object`},
		{"allowFrom empty after prefix", `{channels: {telegram: {allowFrom: ["telegram:"]}}}`, `channels.telegram.allowFrom[0]: empty id`},
		{"owners fraction", `{channels: {telegram: {owners: [1.5]}}}`, `channels.telegram.owners[0]: must be a string or an integer id, got 1.5`},
		{"channel twice", `{channels: {telegram: {}, Telegram: {}}}`, `channels.Telegram: channel "telegram" is listed twice`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(tc.doc))
			if err == nil {
				t.Fatalf("Parse(%s) = %+v; want error %q", tc.doc, c, tc.want)
			}
			if !fault.Is(err, fault.Invalid) {
				t.Fatalf("error %v is %s; want invalid", err, fault.CodeOf(err))
			}
			if got := fault.Message(err); got != tc.want {
				t.Fatalf("error message\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestResetPolicies(t *testing.T) {
	daily4 := session.ResetPolicy{Mode: "daily", AtHour: 4}
	tests := []struct {
		name   string
		doc    string
		reset  session.ResetPolicy
		byType map[string]session.ResetPolicy
	}{
		{"default", `{}`, daily4, nil},
		{"legacy idle-only", `{session: {idleMinutes: 45}}`, session.ResetPolicy{Mode: "idle", AtHour: 4, IdleMinutes: 45}, nil},
		{"legacy zero is no idle window", `{session: {idleMinutes: 0}}`, daily4, nil},
		{"legacy ignored with reset", `{session: {idleMinutes: 45, reset: {atHour: 6}}}`, session.ResetPolicy{Mode: "daily", AtHour: 6}, nil},
		{"legacy ignored with resetByType", `{session: {idleMinutes: 45, resetByType: {group: {mode: "off"}}}}`, daily4, map[string]session.ResetPolicy{"group": {Mode: "off", AtHour: 4}}},
		{"legacy applies with resetByChannel", `{session: {idleMinutes: 45, resetByChannel: {x: {}}}}`, session.ResetPolicy{Mode: "idle", AtHour: 4, IdleMinutes: 45}, nil},
		{"idleMinutes without mode is daily plus idle", `{session: {reset: {idleMinutes: 120}}}`, session.ResetPolicy{Mode: "daily", AtHour: 4, IdleMinutes: 120}, nil},
		{"idle mode", `{session: {reset: {mode: "IDLE", idleMinutes: 10}}}`, session.ResetPolicy{Mode: "idle", AtHour: 4, IdleMinutes: 10}, nil},
		{"off", `{session: {reset: {mode: "off"}}}`, session.ResetPolicy{Mode: "off", AtHour: 4}, nil},
		{"atHour zero", `{session: {reset: {atHour: 0}}}`, session.ResetPolicy{Mode: "daily", AtHour: 0}, nil},
		{"atHour as 23.0", `{session: {reset: {atHour: 23.0}}}`, session.ResetPolicy{Mode: "daily", AtHour: 23}, nil},
		{"atHour in hex", `{session: {reset: {atHour: 0x10}}}`, session.ResetPolicy{Mode: "daily", AtHour: 16}, nil},
		{"null means unset", `{session: {reset: {mode: null, atHour: null}}}`, daily4, nil},
		{"override does not inherit from reset", `{session: {reset: {atHour: 2, idleMinutes: 5}, resetByType: {dm: {mode: "daily"}}}}`,
			session.ResetPolicy{Mode: "daily", AtHour: 2, IdleMinutes: 5}, map[string]session.ResetPolicy{"dm": daily4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustParse(t, tc.doc).Lifecycle()
			if l.Reset != tc.reset {
				t.Errorf("Reset = %+v; want %+v", l.Reset, tc.reset)
			}
			if !reflect.DeepEqual(l.ByType, tc.byType) {
				t.Errorf("ByType = %+v; want %+v", l.ByType, tc.byType)
			}
		})
	}
}

func TestTimeZone(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"default", `{}`, "UTC"},
		{"session.timeZone", `{session: {timeZone: "Asia/Tokyo"}}`, "Asia/Tokyo"},
		{"userTimezone fallback", `{agents: {defaults: {userTimezone: "America/New_York"}}}`, "America/New_York"},
		{"session.timeZone wins", `{session: {timeZone: "Europe/Lisbon"}, agents: {defaults: {userTimezone: "America/New_York"}}}`, "Europe/Lisbon"},
		{"explicit UTC", `{session: {timeZone: "UTC"}}`, "UTC"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := mustParse(t, tc.doc)
			if c.Session.TimeZone != tc.want || c.Lifecycle().Location.String() != tc.want {
				t.Fatalf("TimeZone = %q, Location = %v; want %s", c.Session.TimeZone, c.Lifecycle().Location, tc.want)
			}
		})
	}
}

func TestRoutingDefaultAgent(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"no list", `{}`, "main"},
		{"first listed", `{agents: {list: [{id: "Home"}, {id: "work"}]}}`, "home"},
		{"marked default", `{agents: {list: [{id: "home"}, {id: "work", default: true}]}}`, "work"},
		{"default false", `{agents: {list: [{id: "home", default: false}, {id: "work"}]}}`, "home"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustParse(t, tc.doc).Routing().Default; got != tc.want {
				t.Fatalf("Default = %q; want %q", got, tc.want)
			}
		})
	}
}

func TestAdmitsAndOwners(t *testing.T) {
	c := mustParse(t, `{channels: {
		telegram: {allowFrom: [123, "telegram:456", "Alice"], owners: ["123"]},
		discord: {allowFrom: ["*"]},
		slack: {allowFrom: []},
	}}`)
	tests := []struct {
		name          string
		channel       string
		sender        string
		admits, owner bool
	}{
		{"listed number", "telegram", "123", true, true},
		{"listed with prefix", "telegram", "telegram:123", true, true},
		{"prefix written in the config", "telegram", "456", true, false},
		{"prefix on both sides", "Telegram", "TELEGRAM:456", true, false},
		{"case and blanks", "telegram", " alice ", true, false},
		{"not listed", "telegram", "789", false, false},
		{"other channel's prefix is part of the id", "telegram", "discord:123", false, false},
		{"empty sender", "telegram", "", false, false},
		{"wildcard", "discord", "anyone", true, false},
		{"wildcard with empty sender", "discord", " ", false, false},
		{"empty allowFrom", "slack", "u1", false, false},
		{"unconfigured channel", "whatsapp", "123", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.Admits(tc.channel, tc.sender); got != tc.admits {
				t.Errorf("Admits(%q, %q) = %v; want %v", tc.channel, tc.sender, got, tc.admits)
			}
			if got := c.IsOwner(tc.channel, tc.sender); got != tc.owner {
				t.Errorf("IsOwner(%q, %q) = %v; want %v", tc.channel, tc.sender, got, tc.owner)
			}
		})
	}
	if !c.OwnersConfigured("Telegram") || c.OwnersConfigured("discord") {
		t.Error("OwnersConfigured: want telegram only")
	}
	if got := c.Owners("telegram"); !reflect.DeepEqual(got, []string{"123"}) {
		t.Errorf("Owners = %q", got)
	}
	if got := OwnersKey("Telegram"); got != "channels.telegram.owners" {
		t.Errorf("OwnersKey = %q", got)
	}
	if got := AllowFromKey("telegram"); got != "channels.telegram.allowFrom" {
		t.Errorf("AllowFromKey = %q", got)
	}
}

func TestViewsAreCopies(t *testing.T) {
	c := parseFile(t, "full.json5")
	k := c.Keys()
	k.IdentityLinks[0].Peers[0] = "x"
	r := c.Routing()
	r.Bindings[0].AgentID = "x"
	l := c.Lifecycle()
	l.ByType["group"] = session.ResetPolicy{}
	p := c.SendPolicy()
	p.Rules[0].Action = "x"
	c.Owners("telegram")[0] = "x"
	if c.Session.IdentityLinks[0].Peers[0] != "telegram:1" || c.Bindings[0].AgentID != "work" ||
		c.Session.ResetByType["group"].IdleMinutes != 30 || c.Session.SendPolicy.Rules[0].Action != "deny" ||
		c.Channels["telegram"].Owners[0] != "123" {
		t.Fatal("a view shares memory with the Config")
	}
}

func time0UTC() *time.Location { return time.UTC }

func TestQueueMode(t *testing.T) {
	cfg, err := Parse([]byte(`{messages: {queue: {mode: "followup", byChannel: {Telegram: "interrupt"}, cap: 5, drop: "old"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, channel, session, want string }{
		{"channel override", "telegram", "", QueueInterrupt},
		{"global mode", "discord", "", QueueFollowup},
		{"the session's choice wins", "telegram", QueueCollect, QueueCollect},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cfg.QueueMode(tt.channel, tt.session); got != tt.want {
				t.Fatalf("QueueMode = %q; want %q", got, tt.want)
			}
		})
	}
	if cfg.Messages.Queue.Cap != 5 || cfg.Messages.Queue.Drop != DropOld {
		t.Fatalf("queue = %+v", cfg.Messages.Queue)
	}
	if d := Default(); d.QueueMode("telegram", "") != QueueCollect || d.Messages.Queue.Cap != 20 {
		t.Fatalf("defaults: %+v", d.Messages.Queue)
	}
}

func TestToolsWeb(t *testing.T) {
	cases := []struct {
		name    string
		doc     string
		want    ToolsWeb
		wantErr string
	}{
		{name: "defaults: fetch on, search off", doc: `{}`,
			want: ToolsWeb{Search: ToolsWebSearch{MaxResults: 5}, Fetch: ToolsWebFetch{Enabled: true, MaxChars: 50000}}},
		{name: "search on with maxResults", doc: `{tools: {web: {search: {enabled: true, maxResults: 10}}}}`,
			want: ToolsWeb{Search: ToolsWebSearch{Enabled: true, MaxResults: 10}, Fetch: ToolsWebFetch{Enabled: true, MaxChars: 50000}}},
		{name: "fetch off with maxChars", doc: `{tools: {web: {fetch: {enabled: false, maxChars: 1000}}}}`,
			want: ToolsWeb{Search: ToolsWebSearch{MaxResults: 5}, Fetch: ToolsWebFetch{MaxChars: 1000}}},
		{name: "maxResults 0", doc: `{tools: {web: {search: {maxResults: 0}}}}`, wantErr: "tools.web.search.maxResults"},
		{name: "maxResults 11", doc: `{tools: {web: {search: {maxResults: 11}}}}`, wantErr: "tools.web.search.maxResults"},
		{name: "maxChars too small", doc: `{tools: {web: {fetch: {maxChars: 10}}}}`, wantErr: "tools.web.fetch.maxChars"},
		{name: "enabled not a boolean", doc: `{tools: {web: {fetch: {enabled: "yes"}}}}`, wantErr: "tools.web.fetch.enabled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse([]byte(c.doc))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("Parse = %v, want an error naming %s", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Tools.Web != c.want {
				t.Errorf("Tools.Web = %+v, want %+v", cfg.Tools.Web, c.want)
			}
		})
	}
}

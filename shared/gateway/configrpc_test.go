package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
)

func TestConfigGet(t *testing.T) {
	tests := []struct {
		name     string
		stored   string
		raw      string
		version  string
		warnings []string
	}{
		{"nothing stored", "", "{}", "", []string{}},
		{"JSON5 kept as written", "// mine\n{session: {dmScope: 'per-peer'}}", "// mine\n{session: {dmScope: 'per-peer'}}", "1", []string{}},
		{"warnings", `{session: {store: "x"}}`, `{session: {store: "x"}}`, "1", []string{"session.store: ignored: ZERO keeps sessions in DynamoDB"}},
		{"invalid stored document", `{session: {reset: {atHour: 25}}}`, `{session: {reset: {atHour: 25}}}`, "1", []string{"invalid: session.reset.atHour: must be an integer 0-23, got 25"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "", func(d *Deps) { d.Settings = nil })
			if tc.stored != "" {
				f.config.Put(context.Background(), []byte(tc.stored))
			}
			var got struct {
				Raw, Version string
				Warnings     []string
			}
			f.call("config.get", map[string]any{}).decode(t, &got)
			if got.Raw != tc.raw || got.Version != tc.version || !reflect.DeepEqual(got.Warnings, tc.warnings) {
				t.Fatalf("got %+v; want raw %q version %q warnings %q", got, tc.raw, tc.version, tc.warnings)
			}
		})
	}
}

func TestConfigSchema(t *testing.T) {
	f := newFixture(t, "")
	var got struct {
		Keys []SchemaKey
	}
	f.call("config.schema", nil).decode(t, &got)
	paths := map[string]SchemaKey{}
	var gotPaths []string
	for _, k := range got.Keys {
		paths[k.Path] = k
		gotPaths = append(gotPaths, k.Path)
	}

	t.Run("the config table, row for row", func(t *testing.T) {
		var want []string
		for _, k := range config.Schema() {
			want = append(want, k.Path)
		}
		if diff := cmp.Diff(want, gotPaths); diff != "" {
			t.Errorf("paths (-config.Schema +config.schema):\n%s", diff)
		}
	})
	t.Run("every key described", func(t *testing.T) {
		for _, k := range got.Keys {
			if k.Path == "" || k.Type == "" || k.Description == "" {
				t.Errorf("incomplete key %+v", k)
			}
		}
	})
	// Keys a hand-kept table once lacked (messages.queue.*) or that
	// callers rely on.
	for _, want := range []string{
		"session.dmScope", "session.sendPolicy.default", "agents.defaults.timeoutSeconds", "channels.<channel>.allowFrom", "bindings[]",
		"messages.queue.mode", "messages.queue.byChannel.<channel>", "messages.queue.cap", "messages.queue.drop", "messages.queue.debounceMs",
		"agents.defaults.maxConcurrent", "agents.list[].subagents.allowAgents", "session.sendPolicy.rules[].match.chatType",
	} {
		t.Run("lists "+want, func(t *testing.T) {
			if _, ok := paths[want]; !ok {
				t.Errorf("schema lacks %s", want)
			}
		})
	}
	// The defaults it states are the ones config.Default applies.
	d := config.Default()
	for path, want := range map[string]any{
		"session.dmScope": d.Session.DMScope, "session.scope": d.Session.Scope, "session.mainKey": d.Session.MainKey,
		"session.reset.atHour": float64(d.Session.Reset.AtHour), "session.reset.mode": d.Session.Reset.Mode,
		"session.sendPolicy.default": d.Session.SendPolicy.Default, "session.timeZone": d.Session.TimeZone,
		"agents.defaults.timeoutSeconds":                 float64(d.Agents.Defaults.TimeoutSeconds),
		"agents.defaults.compaction.reserveTokens":       float64(d.Agents.Defaults.Compaction.ReserveTokens),
		"agents.defaults.subagents.archiveAfterMinutes":  float64(d.Agents.Defaults.Subagents.ArchiveAfterMinutes),
		"agents.defaults.sandbox.sessionToolsVisibility": d.Agents.Defaults.Sandbox.SessionToolsVisibility,
		"session.agentToAgent.maxPingPongTurns":          float64(d.Session.AgentToAgent.MaxPingPongTurns),
		"messages.queue.mode":                            d.Messages.Queue.Mode,
		"messages.queue.cap":                             float64(d.Messages.Queue.Cap),
		"messages.queue.drop":                            d.Messages.Queue.Drop,
	} {
		t.Run("default of "+path, func(t *testing.T) {
			if diff := cmp.Diff(want, paths[path].Default); diff != "" {
				t.Errorf("default (-config.Default +config.schema):\n%s", diff)
			}
		})
	}
}

func TestConfigPatch(t *testing.T) {
	const json5Doc = "// my config\n{\n  session: {dmScope: 'per-peer', mainKey: 'home',},\n  channels: {telegram: {allowFrom: ['1']}},\n}"
	tests := []struct {
		name    string
		stored  string // "" stores nothing
		params  map[string]any
		want    map[string]any // the stored document after, as JSON; nil: raw below
		wantRaw string
		status  int
		message string
	}{
		{
			name: "raw replaces, kept as written", stored: `{}`,
			params:  map[string]any{"raw": "{session: {dmScope: 'per-peer'}} // new"},
			wantRaw: "{session: {dmScope: 'per-peer'}} // new",
		},
		{
			name: "patch merges into JSON5", stored: json5Doc,
			params: map[string]any{"patch": map[string]any{"session": map[string]any{"mainKey": nil, "reset": map[string]any{"atHour": 5}}}},
			want: map[string]any{
				"session":  map[string]any{"dmScope": "per-peer", "reset": map[string]any{"atHour": float64(5)}},
				"channels": map[string]any{"telegram": map[string]any{"allowFrom": []any{"1"}}},
			},
		},
		{
			name: "patch with nothing stored", stored: "",
			params: map[string]any{"patch": map[string]any{"channels": map[string]any{"telegram": map[string]any{"owners": []string{"*"}}}}},
			want:   map[string]any{"channels": map[string]any{"telegram": map[string]any{"owners": []any{"*"}}}},
		},
		{
			name: "patch on a comments-only document", stored: "// nothing yet\n",
			params: map[string]any{"patch": map[string]any{"session": map[string]any{"scope": "global"}}},
			want:   map[string]any{"session": map[string]any{"scope": "global"}},
		},
		{
			name: "invalid raw", stored: json5Doc, params: map[string]any{"raw": "{session: {reset: {atHour: 25}}}"},
			status: http.StatusBadRequest, message: "invalid configuration: session.reset.atHour: must be an integer 0-23, got 25",
		},
		{
			name: "invalid patch", stored: json5Doc, params: map[string]any{"patch": map[string]any{"session": map[string]any{"dmScope": "everyone"}}},
			status: http.StatusBadRequest, message: `invalid configuration: session.dmScope: must be one of main, per-peer, per-channel-peer, per-account-channel-peer, got "everyone"`,
		},
		{
			name: "raw syntax error", stored: json5Doc, params: map[string]any{"raw": "{session: "},
			status: http.StatusBadRequest,
		},
		{name: "neither", stored: json5Doc, params: map[string]any{}, status: http.StatusBadRequest, message: "params.raw: required (or params.patch)"},
		{name: "both", stored: json5Doc, params: map[string]any{"raw": "{}", "patch": map[string]any{}}, status: http.StatusBadRequest, message: "params.patch: give raw or patch, not both"},
		{name: "patch not an object", stored: json5Doc, params: map[string]any{"patch": []int{1}}, status: http.StatusBadRequest, message: "params.patch: must be a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.stored)
			r := f.call("config.patch", tc.params)
			if tc.status != 0 {
				if r.status != tc.status || r.Error == nil || r.Error.Code != fault.Invalid {
					t.Fatalf("got %d %+v; want %d invalid", r.status, r.Error, tc.status)
				}
				if tc.message != "" && r.Error.Message != tc.message {
					t.Fatalf("message %q; want %q", r.Error.Message, tc.message)
				}
				if raw, _, _ := f.config.Fetch(context.Background()); f.config.puts != 0 || string(raw) != tc.stored {
					t.Fatalf("stored %q after %d puts; want %q unchanged", raw, f.config.puts, tc.stored)
				}
				return
			}
			var got struct {
				Version  string
				Warnings []string
			}
			r.decode(t, &got)
			raw, version, err := f.config.Fetch(context.Background())
			if err != nil || got.Version != version || f.config.puts != 1 {
				t.Fatalf("answer %+v; stored version %s (%v) after %d puts", got, version, err, f.config.puts)
			}
			if got.Warnings == nil {
				t.Fatal("warnings is null; want a list")
			}
			if tc.want == nil {
				if string(raw) != tc.wantRaw {
					t.Fatalf("stored %q; want %q", raw, tc.wantRaw)
				}
				return
			}
			var doc map[string]any
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatalf("stored document is not JSON: %v: %s", err, raw)
			}
			if !reflect.DeepEqual(doc, tc.want) {
				t.Fatalf("stored %s; want %v", raw, tc.want)
			}
			if _, err := config.Parse(raw); err != nil {
				t.Fatalf("stored document does not parse: %v", err)
			}
		})
	}
}

// TestConfigPatchApplies: a patched config is what the next call sees.
func TestConfigPatchApplies(t *testing.T) {
	f := newFixture(t, "")
	var res struct{ Version string }
	f.call("config.patch", map[string]any{"patch": map[string]any{"session": map[string]any{"sendPolicy": map[string]any{"default": "deny"}}}}).decode(t, &res)
	r := f.call("agent", map[string]any{"message": "hi", "deliver": true, "channel": "telegram", "to": "1"})
	r.wantError(t, http.StatusBadRequest, fault.Invalid, "sending is denied for this session by session.sendPolicy")
	if !strings.HasPrefix(res.Version, "1") {
		t.Fatalf("version %q", res.Version)
	}
}

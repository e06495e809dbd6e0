package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/tool"
)

// toolsConfig exercises the profile, an agent override, byProvider on the
// default model, sub-agents and an unknown tool name.
const toolsConfig = `{
  tools: {
    profile: "messaging",
    deny: ["browser", "nope"],
    byProvider: {"openai/gpt-5.2": {deny: ["message"]}},
  },
  agents: {
    defaults: {model: "openai/gpt-5.2"},
    list: [
      {id: "main"},
      {id: "work", model: "anthropic/claude", tools: {profile: "coding"}, sandbox: {sessionToolsVisibility: "all"}},
    ],
  },
}`

// runToolsJSON runs `zero tools --json args...` and decodes its output.
func runToolsJSON(t *testing.T, args ...string) toolsReport {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), append([]string{"tools", "--json"}, args...), &stdout, &stderr); err != nil {
		t.Fatalf("err = %v (stderr %q)", err, stderr.String())
	}
	var report toolsReport
	dec := json.NewDecoder(&stdout)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&report); err != nil {
		t.Fatalf("decode %q: %v", stdout.String(), err)
	}
	return report
}

func findTool(t *testing.T, r toolsReport, name string) toolLine {
	t.Helper()
	for _, l := range r.Tools {
		if l.Name == name {
			return l
		}
	}
	t.Fatalf("no %q in %+v", name, r.Tools)
	return toolLine{}
}

func TestToolsJSONShape(t *testing.T) {
	isolateConfig(t)
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"tools", "--json"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%s", err, stdout.String())
	}
	if keys := slices.Sorted(maps.Keys(doc)); !reflect.DeepEqual(keys, []string{"tools"}) {
		t.Errorf("top-level keys = %v; want [tools] (no warnings here)", keys)
	}
	var tools []map[string]any
	if err := json.Unmarshal(doc["tools"], &tools); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		name, _ := tl["name"].(string)
		wantKeys := []string{"allowed", "available", "name", "reason"}
		if why, ok := tool.Unavailable(name); ok {
			wantKeys = append(wantKeys, "unavailable")
			if tl["unavailable"] != why {
				t.Errorf("%s: unavailable = %#v; want %q", name, tl["unavailable"], why)
			}
		}
		if keys := slices.Sorted(maps.Keys(tl)); !reflect.DeepEqual(keys, wantKeys) {
			t.Fatalf("%s: tool keys = %v; want %v", name, keys, wantKeys)
		}
		names = append(names, name)
		if _, ok := tl["allowed"].(bool); !ok {
			t.Errorf("%s: allowed = %#v; want a bool", name, tl["allowed"])
		}
		// image also needs a model to ask; zero/echo, the run's here, is none.
		wantAvailable := tool.Available(nil, name) && (name != "image" || tool.ImageAvailable(nil, echoModel))
		if available, ok := tl["available"].(bool); !ok || available != wantAvailable {
			t.Errorf("%s: available = %#v; want %v", name, tl["available"], wantAvailable)
		}
		if reason, _ := tl["reason"].(string); reason == "" {
			t.Errorf("%s: no reason", name)
		}
	}
	if !reflect.DeepEqual(names, tool.Names()) {
		t.Errorf("names = %v; want the inventory %v", names, tool.Names())
	}
	if !strings.Contains(stderr.String(), devConfigNotice) {
		t.Errorf("stderr = %q; want the local-config notice", stderr.String())
	}
}

func TestTools(t *testing.T) {
	tests := []struct {
		name string
		args []string
		// want are some tools' expected lines.
		want         []toolLine
		wantWarnings []string
	}{
		{
			name: "the default agent on its default model",
			want: []toolLine{
				{Name: "session_status", Allowed: true, Available: true, Reason: `tools.profile "messaging" includes it`},
				{Name: "exec", Reason: `tools.profile "messaging" does not include it`, Unavailable: serverless("exec")},
				{Name: "browser", Reason: `denied by tools.deny "browser"`, Unavailable: serverless("browser")},
				{Name: "message", Available: true, Reason: `denied by tools.byProvider["openai/gpt-5.2"].deny "message"`},
			},
			wantWarnings: []string{`tools.deny: unknown tool names "nope"`},
		},
		{
			name: "--model picks the byProvider entries",
			args: []string{"--model", "openai/gpt-4o"},
			want: []toolLine{{Name: "message", Allowed: true, Available: true, Reason: `tools.profile "messaging" includes it`}},
		},
		{
			name: "--agent overrides the profile and has its own model",
			args: []string{"--agent", "work"},
			want: []toolLine{
				{Name: "exec", Allowed: true, Reason: `agents.list[work].tools.profile "coding" includes it`, Unavailable: serverless("exec")},
				{Name: "message", Available: true, Reason: `agents.list[work].tools.profile "coding" does not include it`},
			},
		},
		{
			name: "agent ids are case-insensitive",
			args: []string{"--agent", "WORK"},
			want: []toolLine{{Name: "exec", Allowed: true, Reason: `agents.list[work].tools.profile "coding" includes it`, Unavailable: serverless("exec")}},
		},
		{
			name: "--subagent",
			args: []string{"--subagent"},
			want: []toolLine{
				{Name: "sessions_spawn", Available: true, Reason: "sub-agents never get sessions_spawn"},
				{Name: "sessions_list", Available: true, Reason: "sub-agents get no session tools unless tools.subagents.tools.allow names them"},
				{Name: "session_status", Allowed: true, Available: true, Reason: `tools.profile "messaging" includes it`},
			},
		},
		{
			name: "--sandbox with the agent's visibility",
			args: []string{"--agent", "work", "--sandbox"},
			want: []toolLine{{Name: "sessions_list", Allowed: true, Available: true, Reason: `agents.list[work].tools.profile "coding" includes it; sandboxed: sees every session (sessionToolsVisibility "all")`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolateConfig(t)
			t.Setenv(configEnv, writeFile(t, "zero.json", toolsConfig))
			r := runToolsJSON(t, tt.args...)
			if len(r.Tools) != len(tool.Names()) {
				t.Errorf("%d tools; want %d", len(r.Tools), len(tool.Names()))
			}
			for _, want := range tt.want {
				if got := findTool(t, r, want.Name); got != want {
					t.Errorf("%s = %+v; want %+v", want.Name, got, want)
				}
			}
			if tt.wantWarnings == nil {
				tt.wantWarnings = []string{`tools.deny: unknown tool names "nope"`}
			}
			if !reflect.DeepEqual(r.Warnings, tt.wantWarnings) {
				t.Errorf("warnings = %q; want %q", r.Warnings, tt.wantWarnings)
			}
		})
	}
}

func TestToolsTable(t *testing.T) {
	isolateConfig(t)
	t.Setenv(configEnv, writeFile(t, "zero.json", toolsConfig))
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"tools", "--sandbox", "--subagent"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	for _, want := range []string{
		"agent main, model openai/gpt-5.2, sandboxed, sub-agent\n",
		"TOOL ",
		"ALLOWED",
		"AVAILABLE",
		"REASON",
		"sessions_spawn    no       yes        sub-agents never get sessions_spawn\n",
		"session_status    yes      yes        tools.profile \"messaging\" includes it\n",
		"offered to the model: session_status\n",
		"not in this serverless deployment (a call answers why; see docs/serverless.md): bash, browser, canvas, exec, nodes, process\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, name := range tool.Names() {
		if !strings.Contains(out, "\n"+name+" ") {
			t.Errorf("stdout has no line for %s", name)
		}
	}
	if want := "warning: tools.deny: unknown tool names \"nope\"\n"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr = %q; want %q", stderr.String(), want)
	}
}

func TestToolsNothingOffered(t *testing.T) {
	isolateConfig(t)
	t.Setenv(configEnv, writeFile(t, "zero.json", `{tools: {deny: ["*"]}}`))
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"tools"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "offered to the model: none\n") {
		t.Errorf("stdout = %q", stdout.String())
	}
}

func TestToolsErrors(t *testing.T) {
	tests := []struct {
		name     string
		config   string // "" : no zero.json
		args     []string
		wantErr  string
		wantHelp bool
	}{
		{name: "-h", args: []string{"-h"}, wantHelp: true},
		{name: "bad flag", args: []string{"--nope"}, wantErr: "flag provided but not defined"},
		{name: "arguments", args: []string{"main"}, wantErr: "takes no arguments"},
		{name: "unknown agent", config: toolsConfig, args: []string{"--agent", "ghost"}, wantErr: `unknown agent "ghost": agents.list has main, work`},
		{name: "unknown agent without agents.list", args: []string{"--agent", "ghost"}, wantErr: `unknown agent "ghost": zero.json has no agents.list, so the only agent is "main"`},
		{name: "bad model", args: []string{"--model", "gpt-4o"}, wantErr: `--model "gpt-4o": want provider/model`},
		{name: "invalid config", config: invalidConfig, wantErr: "session.dmScope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolateConfig(t)
			if tt.config != "" {
				t.Setenv(configEnv, writeFile(t, "zero.json", tt.config))
			}
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), append([]string{"tools"}, tt.args...), &stdout, &stderr)
			if tt.wantHelp {
				if !errors.Is(err, flag.ErrHelp) || !strings.Contains(stderr.String(), "usage: zero tools") {
					t.Errorf("err = %v, stderr %q; want flag.ErrHelp and the usage", err, stderr.String())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v; want %q", err, tt.wantErr)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout = %q; want nothing on an error", stdout.String())
			}
		})
	}
}

func TestToolsListedInHelp(t *testing.T) {
	var stdout bytes.Buffer
	if err := run(context.Background(), []string{"help"}, &stdout, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "\n  tools ") {
		t.Errorf("help = %q; want the tools command", stdout.String())
	}
}

// serverless is the answer a call to a tool this deployment does not
// provide gets, as `zero tools --json` reports it.
func serverless(name string) string {
	why, _ := tool.Unavailable(name)
	return why
}

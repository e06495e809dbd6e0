package automation_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/tools/automation"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
)

func TestGatewayTool(t *testing.T) {
	tests := []struct {
		name      string
		stored    string // "": none
		race      string // another writer's document just before the write
		args      string
		wantErr   string // substring of the tool error; "": success
		wantIn    string // substring of the result
		wantDoc   map[string]any
		wantStore string // the stored document verbatim, when checked
	}{
		{name: "get with nothing stored", args: `{"action":"config.get"}`, wantIn: `"raw":"{}"`},
		{name: "get", stored: `{commands: {restart: true}}`, args: `{"action":"config.get"}`, wantIn: `"version":"1"`},
		{name: "schema under a prefix", args: `{"action":"config.schema","prefix":"commands"}`, wantIn: "commands.restart (boolean, default false)"},
		{name: "schema of an unknown prefix", args: `{"action":"config.schema","prefix":"nope"}`, wantIn: "No configuration key"},
		{name: "apply", stored: `{}`, args: `{"action":"config.apply","raw":"{tools: {web: {search: {enabled: true}}}}"}`,
			wantIn: `"version":"2"`, wantStore: `{tools: {web: {search: {enabled: true}}}}`},
		{name: "apply an invalid document changes nothing", stored: `{}`, args: `{"action":"config.apply","raw":"{session: {scope: 'nope'}}"}`,
			wantErr: "invalid configuration: session.scope", wantStore: `{}`},
		{name: "apply at a stale base version", stored: `{}`, args: `{"action":"config.apply","raw":"{}","baseVersion":"7"}`, wantErr: "version"},
		{name: "patch", stored: `{commands: {restart: true}}`, args: `{"action":"config.patch","patch":{"tools":{"web":{"fetch":{"maxChars":5000}}}}}`,
			wantDoc: map[string]any{"commands": map[string]any{"restart": true}, "tools": map[string]any{"web": map[string]any{"fetch": map[string]any{"maxChars": 5000.0}}}}},
		{name: "an invalid patch changes nothing", stored: `{a: 1}`, args: `{"action":"config.patch","patch":{"session":{"scope":"nope"}}}`,
			wantErr: "invalid configuration", wantStore: `{a: 1}`},
		{name: "patch is merged again onto a racing write", stored: `{}`, race: `{"commands":{"restart":true}}`,
			args:    `{"action":"config.patch","patch":{"tools":{"profile":"coding"}}}`,
			wantDoc: map[string]any{"commands": map[string]any{"restart": true}, "tools": map[string]any{"profile": "coding"}}},
		{name: "patch at a base version that lost the race", stored: `{}`, race: `{"commands":{"restart":true}}`,
			args: `{"action":"config.patch","baseVersion":"1","patch":{"tools":{"profile":"coding"}}}`, wantErr: "version",
			wantDoc: map[string]any{"commands": map[string]any{"restart": true}}},
		{name: "patch that is not an object", stored: `{}`, args: `{"action":"config.patch","patch":"x"}`, wantErr: "patch: must be a JSON object"},
		{name: "restart", args: `{"action":"restart","delayMs":2000}`, wantIn: "Nothing to restart"},
		{name: "update.run", args: `{"action":"update.run"}`, wantIn: "Nothing to restart"},
		{name: "unknown action", args: `{"action":"reboot"}`, wantErr: "unknown action"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := &tooltest.MemDoc{}
			if tt.stored != "" {
				doc.Put(context.Background(), []byte(tt.stored))
			}
			if tt.race != "" {
				doc.Race = []byte(tt.race)
			}
			res := tooltest.Call(t, automation.NewGatewayTool(doc), tt.args)
			if got := res.IsError; got != (tt.wantErr != "") || tt.wantErr != "" && !strings.Contains(res.Content, tt.wantErr) {
				t.Fatalf("result %+v; want error %q", res, tt.wantErr)
			}
			if !strings.Contains(res.Content, tt.wantIn) {
				t.Errorf("result %s lacks %q", res.Content, tt.wantIn)
			}
			if tt.wantStore != "" {
				if diff := cmp.Diff(tt.wantStore, string(doc.Data)); diff != "" {
					t.Errorf("stored (-want +got):\n%s", diff)
				}
			}
			if tt.wantDoc != nil {
				var got map[string]any
				if err := json.Unmarshal(doc.Data, &got); err != nil {
					t.Fatalf("stored %s: %v", doc.Data, err)
				}
				if diff := cmp.Diff(tt.wantDoc, got); diff != "" {
					t.Errorf("stored document (-want +got):\n%s", diff)
				}
			}
		})
	}
}

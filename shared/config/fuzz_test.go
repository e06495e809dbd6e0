package config

import "testing"

// FuzzParse: no zero.json, however malformed, crashes the config parser;
// an accepted one has the defaults' shape (agents listed, a send policy).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{channels: {telegram: {allowFrom: ["*"], owners: ["42"]}}}`,
		`{agents: {defaults: {model: "openai/gpt-4o", contextTokens: 120000, compaction: {reserveTokens: 20000}}, list: [{id: "main"}, {id: "work", sandboxed: true}]}}`,
		`{session: {dmScope: "per-channel-peer", sendPolicy: {default: "deny", rules: [{match: {channel: "telegram"}, action: "allow"}]}}}`,
		`{tools: {profile: "coding", deny: ["group:runtime"], web: {search: {enabled: true}}}}`,
		`{messages: {queue: {mode: "collect", debounceMs: 500}}, commands: {restart: true}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data)
		if err != nil {
			return
		}
		if cfg == nil {
			t.Fatalf("Parse returned no config and no error")
		}
		_ = cfg.SendPolicy()
	})
}

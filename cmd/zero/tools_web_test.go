package main

import "testing"

// TestToolsWeb: web_fetch and web_search are available as tools.web says.
func TestToolsWeb(t *testing.T) {
	tests := []struct {
		name                  string
		config                string
		wantFetch, wantSearch bool
		wantAllowed           bool
	}{
		{name: "defaults: fetch on, search off", config: `{}`, wantFetch: true, wantAllowed: true},
		{name: "search enabled", config: `{tools: {web: {search: {enabled: true}}}}`, wantFetch: true, wantSearch: true, wantAllowed: true},
		{name: "fetch disabled", config: `{tools: {web: {fetch: {enabled: false}, search: {enabled: true}}}}`, wantSearch: true, wantAllowed: true},
		{name: "enabled but denied by group:web", config: `{tools: {deny: ["group:web"], web: {search: {enabled: true}}}}`, wantFetch: true, wantSearch: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolateConfig(t)
			t.Setenv(configEnv, writeFile(t, "zero.json", tt.config))
			r := runToolsJSON(t)
			for name, want := range map[string]bool{"web_fetch": tt.wantFetch, "web_search": tt.wantSearch} {
				got := findTool(t, r, name)
				if got.Available != want || got.Allowed != tt.wantAllowed {
					t.Errorf("%s: allowed %v available %v; want %v and %v", name, got.Allowed, got.Available, tt.wantAllowed, want)
				}
			}
		})
	}
}

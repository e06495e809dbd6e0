package tool

import (
	"testing"

	"github.com/zero-gateway/zero/shared/config"
)

func TestAvailable(t *testing.T) {
	parse := func(doc string) *config.Config {
		t.Helper()
		cfg, err := config.Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	cases := []struct {
		name string
		cfg  *config.Config
		tool string
		want bool
	}{
		{name: "web_fetch on by default", tool: "web_fetch", want: true},
		{name: "web_search off by default", tool: "web_search", want: false},
		{name: "web_search enabled", cfg: parse(`{tools: {web: {search: {enabled: true}}}}`), tool: "WEB_SEARCH", want: true},
		{name: "read always", tool: "read", want: true},
		{name: "apply_patch off by default", tool: "apply_patch", want: false},
		{name: "apply_patch enabled", cfg: parse(`{tools: {exec: {applyPatch: {enabled: true}}}}`), tool: "apply_patch", want: true},
		{name: "web_fetch disabled", cfg: parse(`{tools: {web: {fetch: {enabled: false}}}}`), tool: "web_fetch", want: false},
		{name: "other provided tool", tool: "session_status", want: true},
		{name: "not provided", tool: "browser", want: false},
		{name: "cron always", tool: "cron", want: true},
		{name: "gateway on by default (its writes are the owner's)", tool: "gateway", want: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Available(c.cfg, c.tool); got != c.want {
				t.Errorf("Available(%s) = %v, want %v", c.tool, got, c.want)
			}
		})
	}
}

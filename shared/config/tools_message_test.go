package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestToolsMessage(t *testing.T) {
	cases := []struct {
		name    string
		doc     string
		want    ToolsMessage
		wantErr string
	}{
		{name: "default: own chat only", doc: `{}`, want: ToolsMessage{}},
		{name: "crossContext on", doc: `{tools: {message: {crossContext: true}}}`, want: ToolsMessage{CrossContext: true}},
		{name: "crossContext off", doc: `{tools: {message: {crossContext: false}}}`, want: ToolsMessage{}},
		{name: "not a boolean", doc: `{tools: {message: {crossContext: "yes"}}}`, wantErr: "tools.message.crossContext"},
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
			if diff := cmp.Diff(c.want, cfg.Tools.Message); diff != "" {
				t.Errorf("Tools.Message (-want +got):\n%s", diff)
			}
		})
	}
}

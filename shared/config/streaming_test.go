package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBlockStreamingKeys(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want BlockStreaming
	}{
		{"defaults", `{}`, BlockStreaming{Break: BreakTextEnd, Chunk: BlockChunk{MinChars: DefaultBlockMinChars, MaxChars: DefaultBlockMaxChars, Preference: BreakParagraph}}},
		{"set", `{agents: {defaults: {blockStreamingDefault: "on", blockStreamingBreak: "message_end", blockStreamingChunk: {minChars: 10, maxChars: 40, breakPreference: "sentence"}}}}`,
			BlockStreaming{On: true, Break: BreakMessageEnd, Chunk: BlockChunk{MinChars: 10, MaxChars: 40, Preference: BreakSentence}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, cfg.Agents.Defaults.BlockStreaming); diff != "" {
				t.Errorf("block streaming (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := Parse([]byte(`{agents: {defaults: {blockStreamingDefault: "sometimes"}}}`)); err == nil {
		t.Error("blockStreamingDefault \"sometimes\" was accepted")
	}
}

package sessions

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFilterMessage: what the safety-filtered history shows of one
// transcript message, and the flags it raises.
func TestFilterMessage(t *testing.T) {
	long := strings.Repeat("x", historyTextMax+10)
	for _, tc := range []struct {
		name         string
		in           string
		includeTools bool
		want         string // "" : the message is dropped
		flags        filterFlags
	}{
		{name: "plain user text", in: `{"role":"user","content":[{"type":"text","text":"hello"}],"timestamp":1767225600000}`,
			want: `{"content":[{"text":"hello","type":"text"}],"role":"user","timestamp":1767225600000}`},
		{name: "thinking block dropped", in: `{"role":"assistant","content":[{"type":"thinking","thinking":"secret plan"},{"type":"text","text":"answer"}]}`,
			want: `{"content":[{"text":"answer","type":"text"}],"role":"assistant"}`},
		{name: "think tags stripped from text", in: `{"role":"assistant","content":[{"type":"text","text":"<think>secret plan</think>answer"}]}`,
			want: `{"content":[{"text":"answer","type":"text"}],"role":"assistant"}`},
		{name: "unclosed tool-call XML stripped to the end", in: `{"role":"assistant","content":"done <tool_call>{\"name\":\"exec\"","usage":{"input":3}}`,
			want: `{"content":"done","role":"assistant"}`},
		{name: "downgraded tool markers and control tokens", in: `{"role":"assistant","content":"[Tool Call: exec {\"cmd\":\"ls\"}]\nok<|assistant|> then <｜end｜>"}`,
			want: `{"content":"ok then","role":"assistant"}`},
		{name: "memories scaffolding", in: `{"role":"user","content":"<relevant-memories>likes tea</relevant-memories>hi"}`,
			want: `{"content":"hi","role":"user"}`},
		{name: "tool calls are scaffolding without includeTools", in: `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"exec","arguments":{"cmd":"ls"}}]}`,
			want: ""},
		{name: "tool call kept with includeTools, arguments masked", includeTools: true,
			in:    `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"web_fetch","arguments":{"url":"https://bob:hunter2secret@example.com/"}}]}`,
			want:  `{"content":[{"arguments":"{\"url\":\"https://bob:[REDACTED]@example.com/\"}","id":"c1","name":"web_fetch","type":"toolCall"}],"role":"assistant"}`,
			flags: filterFlags{redacted: true}},
		{name: "credential masked", in: `{"role":"user","content":[{"type":"text","text":"my key is sk-proj-abcdefghijklmnop1234"}]}`,
			want: `{"content":[{"text":"my key is sk-proj-[REDACTED]","type":"text"}],"role":"user"}`, flags: filterFlags{redacted: true}},
		{name: "long block cut", in: `{"role":"user","content":"` + long + `"}`,
			want: `{"content":"` + long[:historyTextMax] + `\n…(truncated)…","role":"user"}`, flags: filterFlags{truncated: true}},
		{name: "image data left out", in: `{"role":"user","content":[{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}]}`,
			want: `{"content":[{"mimeType":"image/png","omitted":true,"type":"image"}],"role":"user"}`, flags: filterFlags{truncated: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, keep, flags, err := filterMessage(json.RawMessage(tc.in), tc.includeTools)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if keep {
					t.Fatalf("kept %s, want it dropped", got)
				}
				return
			}
			if !keep {
				t.Fatal("dropped, want it kept")
			}
			var gotV, wantV any
			if err := json.Unmarshal(got, &gotV); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.want), &wantV); err != nil {
				t.Fatalf("bad want: %v", err)
			}
			if diff := cmp.Diff(wantV, gotV); diff != "" {
				t.Errorf("filtered (-want +got):\n%s", diff)
			}
			if flags != tc.flags {
				t.Errorf("flags = %+v, want %+v", flags, tc.flags)
			}
		})
	}
}

// TestFilteredHistory: the newest messages that fit are kept and the
// flags say what was left out; one message too large alone is replaced.
func TestFilteredHistory(t *testing.T) {
	msg := func(text string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"role": "user", "content": text})
		return b
	}
	big := strings.Repeat("y ", 1500) // 3000 characters: under the block limit
	for _, tc := range []struct {
		name      string
		msgs      []json.RawMessage
		budget    int
		wantTexts []string
		dropped   bool
		truncated bool
	}{
		{name: "all fit", msgs: []json.RawMessage{msg("a"), msg("b")}, budget: 1000, wantTexts: []string{"a", "b"}},
		{name: "oldest dropped", msgs: []json.RawMessage{msg(big), msg("b"), msg("c")}, budget: 1000, wantTexts: []string{"b", "c"}, dropped: true, truncated: true},
		{name: "the last alone too large", msgs: []json.RawMessage{msg("a"), msg(big)}, budget: 1000, wantTexts: []string{historyOmitted}, dropped: true, truncated: true},
		{name: "nothing", msgs: nil, budget: 1000, wantTexts: []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := filteredHistory(tc.msgs, false, tc.budget)
			if err != nil {
				t.Fatal(err)
			}
			texts := []string{}
			for _, m := range res.Messages {
				var v struct{ Content string }
				if err := json.Unmarshal(m, &v); err != nil {
					t.Fatal(err)
				}
				texts = append(texts, v.Content)
			}
			if diff := cmp.Diff(tc.wantTexts, texts); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			b, _ := json.Marshal(res.Messages)
			if res.DroppedMessages != tc.dropped || res.Truncated != tc.truncated || res.Bytes != len(b) {
				t.Errorf("dropped %v truncated %v bytes %d; want %v %v %d", res.DroppedMessages, res.Truncated, res.Bytes, tc.dropped, tc.truncated, len(b))
			}
		})
	}
	if _, err := filteredHistory([]json.RawMessage{json.RawMessage(`[1]`)}, false, 1000); err == nil {
		t.Error("a message that is not an object: no error")
	}
}

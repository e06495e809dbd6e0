package model

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/zero-gateway/zero/shared/fault"
)

// Shorthands for the histories below: a user message, an assistant
// message calling "get_weather" once per id, a result, and the result
// RepairToolPairs adds for a call without one.
func pu(text string) Message { return Message{Role: User, Content: text} }

func pa(text string, ids ...string) Message {
	m := Message{Role: Assistant, Content: text}
	for _, id := range ids {
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Name: "get_weather", Arguments: `{}`})
	}
	return m
}

func pr(id, content string) Message {
	return Message{Role: ToolResult, ToolCallID: id, ToolName: "get_weather", Content: content}
}

func missing(id string) Message {
	return Message{Role: ToolResult, ToolCallID: id, ToolName: "get_weather", IsError: true, Content: MissingToolResult}
}

func TestRepairToolPairs(t *testing.T) {
	tests := []struct {
		name      string
		in        []Message
		want      []Message
		wantFixes int
	}{
		{
			name: "no tools at all",
			in:   []Message{pu("hi"), pa("hello"), pu("bye")},
			want: []Message{pu("hi"), pa("hello"), pu("bye")},
		},
		{
			name: "calls answered in order, then a user message",
			in:   []Message{pu("go"), pa("", "c1", "c2"), pr("c1", "18°C"), pr("c2", "12°C"), pu("thanks"), pa("ok")},
			want: []Message{pu("go"), pa("", "c1", "c2"), pr("c1", "18°C"), pr("c2", "12°C"), pu("thanks"), pa("ok")},
		},
		{
			name: "results in another order than the calls are valid",
			in:   []Message{pu("go"), pa("", "c1", "c2"), pr("c2", "12°C"), pr("c1", "18°C")},
			want: []Message{pu("go"), pa("", "c1", "c2"), pr("c2", "12°C"), pr("c1", "18°C")},
		},
		{
			name: "an empty history",
			in:   nil,
			want: nil,
		},
		{
			name:      "a result before any assistant message becomes text",
			in:        []Message{pr("c0", "stale"), pu("go")},
			want:      []Message{pu("[tool result of get_weather (c0)]: stale"), pu("go")},
			wantFixes: 1,
		},
		{
			name:      "an error result becomes text that says so",
			in:        []Message{pu("go"), pa("done"), {Role: ToolResult, ToolCallID: "c0", IsError: true, Content: "boom"}},
			want:      []Message{pu("go"), pa("done"), pu("[tool error of a tool (c0)]: boom")},
			wantFixes: 1,
		},
		{
			name:      "a result for a call the assistant message did not make becomes text in its place",
			in:        []Message{pu("go"), pa("", "c1"), pr("c1", "18°C"), pr("c9", "ghost"), pu("more")},
			want:      []Message{pu("go"), pa("", "c1"), pr("c1", "18°C"), pu("[tool result of get_weather (c9)]: ghost"), pu("more")},
			wantFixes: 1,
		},
		{
			name:      "a second answer to a call becomes text",
			in:        []Message{pu("go"), pa("", "c1"), pr("c1", "first"), pr("c1", "second")},
			want:      []Message{pu("go"), pa("", "c1"), pr("c1", "first"), pu("[tool result of get_weather (c1)]: second")},
			wantFixes: 1,
		},
		{
			name: "a result separated from its call by another assistant message becomes text",
			in:   []Message{pu("go"), pa("", "c1"), pr("c1", "18°C"), pa("and now"), pr("c1", "late")},
			want: []Message{pu("go"), pa("", "c1"), pr("c1", "18°C"), pa("and now"),
				pu("[tool result of get_weather (c1)]: late")},
			wantFixes: 1,
		},
		{
			name:      "a call without a result gets an error result",
			in:        []Message{pu("go"), pa("", "c1")},
			want:      []Message{pu("go"), pa("", "c1"), missing("c1")},
			wantFixes: 1,
		},
		{
			name:      "the missing result goes after the turn's other results, before the next user message",
			in:        []Message{pu("go"), pa("", "c1", "c2", "c3"), pr("c2", "12°C"), pu("stop"), pa("stopped")},
			want:      []Message{pu("go"), pa("", "c1", "c2", "c3"), pr("c2", "12°C"), missing("c1"), missing("c3"), pu("stop"), pa("stopped")},
			wantFixes: 2,
		},
		{
			name:      "a result after a user message that arrived while the tool ran moves up",
			in:        []Message{pu("go"), pa("", "c1"), pu("also this"), pr("c1", "18°C")},
			want:      []Message{pu("go"), pa("", "c1"), pr("c1", "18°C"), pu("also this")},
			wantFixes: 1,
		},
		{
			name: "orphan, missing and moved results in one turn",
			in:   []Message{pu("go"), pa("Checking.", "c1", "c2", "c3"), pr("c9", "ghost"), pu("hurry"), pr("c2", "12°C"), pr("c1", "18°C")},
			want: []Message{pu("go"), pa("Checking.", "c1", "c2", "c3"), pr("c2", "12°C"), pr("c1", "18°C"), missing("c3"),
				pu("[tool result of get_weather (c9)]: ghost"), pu("hurry")},
			wantFixes: 4,
		},
		{
			name:      "repeated call ids count as one call",
			in:        []Message{pu("go"), pa("", "c1", "c1")},
			want:      []Message{pu("go"), pa("", "c1", "c1"), missing("c1")},
			wantFixes: 1,
		},
		{
			name:      "each turn is repaired on its own",
			in:        []Message{pu("go"), pa("", "c1"), pa("", "c2"), pr("c1", "late"), pr("c2", "12°C")},
			want:      []Message{pu("go"), pa("", "c1"), missing("c1"), pa("", "c2"), pr("c2", "12°C"), pu("[tool result of get_weather (c1)]: late")},
			wantFixes: 3,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := cloneMessages(tc.in)
			got, fixes := RepairToolPairs(in)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("RepairToolPairs (-want +got):\n%s", diff)
			}
			if fixes != tc.wantFixes {
				t.Errorf("fixes = %d, want %d", fixes, tc.wantFixes)
			}
			if diff := cmp.Diff(tc.in, in, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("the input was changed (-before +after):\n%s", diff)
			}
			if err := ValidToolPairs(got); err != nil {
				t.Errorf("ValidToolPairs(repaired) = %v", err)
			}
			if tc.wantFixes == 0 && len(in) > 0 && &got[0] != &in[0] {
				t.Error("a valid history came back as a copy, want the slice given")
			}
		})
	}
}

func TestValidToolPairs(t *testing.T) {
	tests := []struct {
		name    string
		in      []Message
		wantErr string // "" for valid
	}{
		{"no tools", []Message{pu("hi"), pa("hello")}, ""},
		{"answered calls", []Message{pu("go"), pa("", "c1", "c2"), pr("c2", "x"), pr("c1", "y"), pu("ok")}, ""},
		{"a result first", []Message{pr("c1", "x")}, "message 0: tool result of get_weather (c1) does not follow the assistant message that called it"},
		{"a result after a user message", []Message{pa("", "c1"), pu("wait"), pr("c1", "x")}, "message 0: tool calls c1 have no result right after them"},
		{"a foreign result", []Message{pa("", "c1"), pr("c2", "x")}, "message 1: tool result of get_weather (c2) answers no unanswered call of message 0"},
		{"a second answer", []Message{pa("", "c1"), pr("c1", "x"), pr("c1", "y")}, "message 2: tool result of get_weather (c1) answers no unanswered call of message 0"},
		{"unanswered calls, named in call order", []Message{pa("", "c3", "c1", "c2"), pr("c1", "x")}, "message 0: tool calls c3, c2 have no result right after them"},
		{"a result after an assistant message without calls", []Message{pa("", "c1"), pr("c1", "x"), pa("done"), pr("c1", "y")},
			"message 3: tool result of get_weather (c1) does not follow the assistant message that called it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidToolPairs(tc.in)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Errorf("ValidToolPairs = %q, want %q", got, tc.wantErr)
			}
		})
	}
}

func TestPairedMessages(t *testing.T) {
	tests := []struct {
		name       string
		in         []Message
		want       []Message
		wantSubstr string // of the fault.Invalid message; "" for success
	}{
		{
			name: "a valid history is sent as given",
			in:   []Message{pu("go"), pa("", "c1"), pr("c1", "x")},
			want: []Message{pu("go"), pa("", "c1"), pr("c1", "x")},
		},
		{
			name: "a broken history is repaired",
			in:   []Message{pu("go"), pa("", "c1")},
			want: []Message{pu("go"), pa("", "c1"), missing("c1")},
		},
		{
			name:       "a tool call without an id cannot be paired",
			in:         []Message{pu("go"), pa("", "c1", "")},
			wantSubstr: "message 1: tool call 1 (get_weather) has no id",
		},
		{
			name:       "a tool result without an id cannot be paired",
			in:         []Message{pu("go"), pr("", "x")},
			wantSubstr: `message 1: tool result for "get_weather" has no tool call id`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PairedMessages("test", Request{Model: "m", Messages: tc.in})
			if tc.wantSubstr != "" {
				if !fault.Is(err, fault.Invalid) || !strings.Contains(fault.Message(err), tc.wantSubstr) {
					t.Fatalf("PairedMessages = %v; want fault.Invalid containing %q", err, tc.wantSubstr)
				}
				return
			}
			if err != nil {
				t.Fatalf("PairedMessages: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("PairedMessages (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzRepairToolPairs checks, on any history, that the repaired one is
// valid, that repairing it again changes nothing, that a valid history
// comes back unchanged, and that the assistant messages and the user
// messages are all kept, in order.
func FuzzRepairToolPairs(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1 + 3*2, 1, 2, 2, 1, 2, 2})
	f.Add([]byte{2, 0, 1 + 3*3, 0, 1, 1, 0, 2, 1, 2, 9, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := historyOf(data)
		before := cloneMessages(in)
		out, fixes := RepairToolPairs(in)
		if err := ValidToolPairs(out); err != nil {
			t.Fatalf("repaired history is not valid: %v\nin:  %+v\nout: %+v", err, in, out)
		}
		if again, n := RepairToolPairs(out); n != 0 || !cmp.Equal(out, again, cmpopts.EquateEmpty()) {
			t.Fatalf("repairing twice made %d more fixes:\nonce:  %+v\ntwice: %+v", n, out, again)
		}
		if valid := ValidToolPairs(in) == nil; valid != (fixes == 0) {
			t.Fatalf("input valid = %v but fixes = %d\nin: %+v", valid, fixes, in)
		}
		if fixes == 0 && !cmp.Equal(in, out, cmpopts.EquateEmpty()) {
			t.Fatalf("no fixes, yet the history changed:\nin:  %+v\nout: %+v", in, out)
		}
		if !cmp.Equal(before, in, cmpopts.EquateEmpty()) {
			t.Fatal("the input was changed")
		}
		if diff := cmp.Diff(keptRoles(in), keptRoles(out), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("user or assistant messages lost or reordered (-in +out):\n%s", diff)
		}
	})
}

// historyOf decodes fuzz bytes into a history: per message one byte b,
// b%3 picks user, assistant (then b/3%4 calls, one id byte each) or
// toolResult (then one id byte). Ids come from a small set, the empty id
// included, so calls and results meet, repeat and miss.
func historyOf(data []byte) []Message {
	id := func(i int) string {
		if i >= len(data) || data[i]%7 == 6 {
			return ""
		}
		return "c" + strconv.Itoa(int(data[i]%7))
	}
	var msgs []Message
	for i := 0; i < len(data); i++ {
		b := data[i]
		switch b % 3 {
		case 0:
			msgs = append(msgs, pu("u"+strconv.Itoa(i)))
		case 1:
			m := pa("a" + strconv.Itoa(i))
			for n := int(b/3) % 4; n > 0; n-- {
				i++
				m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id(i), Name: "t"})
			}
			msgs = append(msgs, m)
		default:
			i++
			msgs = append(msgs, Message{Role: ToolResult, ToolCallID: id(i), ToolName: "t", Content: "r" + strconv.Itoa(i)})
		}
	}
	return msgs
}

// keptRoles is the history without its tool results and without the user
// messages RepairToolPairs writes for orphans: what it must keep as is.
func keptRoles(msgs []Message) []Message {
	var out []Message
	for _, m := range msgs {
		if m.Role != ToolResult && !strings.HasPrefix(m.Content, "[tool ") {
			out = append(out, m)
		}
	}
	return out
}

func cloneMessages(msgs []Message) []Message {
	if msgs == nil {
		return nil
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		m.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
		out[i] = m
	}
	return out
}

package turn_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
	"github.com/zero-gateway/zero/shared/turn"
)

// flushConfig is the rig's config for a memory flush before turn 4: a
// 200-token window with 50 reserved, which turn 3's 190 tokens cross.
const flushConfig = `{agents: {defaults: {contextTokens: 200, compaction: {reserveTokens: 50}}}, channels: {telegram: {allowFrom: ["*"]}}}`

// flushMessage is turn 4's message, whose run the flush precedes.
const flushMessage = "telegram:42:4"

// runFlush handles turns 1 to 4 on r with provider's model: turn 4
// compacts automatically, after a memory flush whose model answers are
// flush, and then runs with the answers real. It returns the model.
func runFlush(t *testing.T, r *rig, provider string, flush, real []model.Response) *scriptModel {
	t.Helper()
	answers := append([]model.Response{used("a1", 60), used("a2", 120), used("a3", 190)}, flush...)
	llm := &scriptModel{summary: "the user said t1", answers: append(answers, real...)}
	r.proc.Models[provider] = llm
	for i := 1; i <= 4; i++ {
		r.handle(t, msg(i, fmt.Sprintf("t%d", i)))
	}
	return llm
}

// flushRequests are the model requests of the memory flush, in order.
func flushRequests(llm *scriptModel) []model.Request {
	var out []model.Request
	for _, req := range llm.seen {
		if slices.ContainsFunc(req.Messages, func(m model.Message) bool {
			return m.Role == model.User && strings.HasPrefix(m.Content, "Pre-compaction memory flush")
		}) {
			out = append(out, req)
		}
	}
	return out
}

// sortedTools are the names of the tools req offers, sorted.
func sortedTools(req model.Request) []string {
	names := toolNames(req.Tools)
	slices.Sort(names)
	return names
}

// toolCall is a response making one tool call.
func toolCall(id, name, args string) model.Response {
	return model.Response{StopReason: model.StopToolUse, ToolCalls: []model.ToolCall{{ID: id, Name: name, Arguments: args}}}
}

// TestMemoryFlushOffersOnlyMemoryTools: the flush is offered the file
// and memory tools the policy allows, nothing else, while the real run
// after it keeps its full set (sessions, status, …).
func TestMemoryFlushOffersOnlyMemoryTools(t *testing.T) {
	tests := []struct {
		name, config, provider string
		want                   []string
	}{
		{"file and memory tools", flushConfig, "zero", []string{"edit", "memory_get", "memory_search", "read", "write"}},
		{"apply_patch where enabled", `{agents: {defaults: {model: "openai/gpt-5.2", contextTokens: 200, compaction: {reserveTokens: 50}}}, ` +
			`tools: {exec: {applyPatch: {enabled: true}}}, channels: {telegram: {allowFrom: ["*"]}}}`, "openai",
			[]string{"apply_patch", "edit", "memory_get", "memory_search", "read", "write"}},
		{"what the policy denies stays denied", `{agents: {defaults: {contextTokens: 200, compaction: {reserveTokens: 50}}}, ` +
			`tools: {deny: ["edit", "group:memory"]}, channels: {telegram: {allowFrom: ["*"]}}}`, "zero", []string{"read", "write"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(tt.config)
			r.proc.Tools.Files, r.proc.Tools.Memory, r.proc.Door = newWorkspaceStore(), tooltest.AgentMemory(), &recordingDoor{}
			llm := runFlush(t, r, tt.provider, []model.Response{final("NO_REPLY")}, []model.Response{used("a4", 80)})
			flush := flushRequests(llm)
			if len(flush) != 1 {
				t.Fatalf("%d flush requests; want 1", len(flush))
			}
			if diff := cmp.Diff(tt.want, sortedTools(flush[0])); diff != "" {
				t.Errorf("the flush's tools (-want +got):\n%s", diff)
			}
			real := sortedTools(llm.seen[len(llm.seen)-1])
			for _, name := range []string{"session_status", "sessions_spawn"} {
				if !slices.Contains(real, name) {
					t.Errorf("the real run lacks %s: %v", name, real)
				}
			}
		})
	}
}

// TestMemoryFlushWritesOnlyMemoryFiles: the flush's write, edit and
// apply_patch refuse any path but MEMORY.md and memory/**, writing
// nothing (a patch is refused whole); memory files are written.
func TestMemoryFlushWritesOnlyMemoryFiles(t *testing.T) {
	const config = `{agents: {defaults: {model: "openai/gpt-5.2", contextTokens: 200, compaction: {reserveTokens: 50}}}, ` +
		`tools: {exec: {applyPatch: {enabled: true}}}, channels: {telegram: {allowFrom: ["*"]}}}`
	const ws = "agents/main/workspace/"
	seed := map[string]string{"AGENTS.md": "be kind\n", "MEMORY.md": "# Memory\n", "memory/old.md": "old note\n"}
	patch := func(body string) string {
		b, _ := json.Marshal(map[string]string{"input": "*** Begin Patch\n" + body + "\n*** End Patch"})
		return string(b)
	}
	tests := []struct {
		name, tool, args string
		refused          string   // the start of the tool error; "" for success
		changed          []string // workspace files created, changed or deleted
	}{
		{"a bootstrap file", "write", `{"path":"AGENTS.md","content":"x"}`, "write refused", nil},
		{"a path out of memory/", "write", `{"path":"memory/../SOUL.md","content":"x"}`, "write refused", nil},
		{"an absolute path", "write", `{"path":"/memory/x.md","content":"x"}`, "write refused", nil},
		{"a second spelling of path", "write", `{"path":"memory/x.md","Path":"AGENTS.md","content":"x"}`, "write refused", nil},
		{"the day's note", "write", `{"path":"memory/2026-11-28.md","content":"- likes tea\n"}`, "", []string{"memory/2026-11-28.md"}},
		{"an edit of a bootstrap file", "edit", `{"path":"AGENTS.md","oldText":"kind","newText":"rude"}`, "edit refused", nil},
		{"an edit of MEMORY.md", "edit", `{"path":"MEMORY.md","oldText":"# Memory","newText":"# Memory\n- likes tea"}`, "", []string{"MEMORY.md"}},
		{"a patch touching a memory file and another", "apply_patch", patch("*** Add File: memory/a.md\n+note\n*** Update File: AGENTS.md\n@@\n-be kind\n+be rude"), "apply_patch refused", nil},
		{"a patch moving a note out of memory/", "apply_patch", patch("*** Update File: memory/old.md\n*** Move to: SOUL.md"), "apply_patch refused", nil},
		{"a patch within memory files", "apply_patch", patch("*** Add File: memory/a.md\n+note\n*** Delete File: memory/old.md"), "", []string{"memory/a.md", "memory/old.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(config)
			store := newWorkspaceStore()
			for path, content := range seed {
				store.Put(context.Background(), ws+path, []byte(content), "")
			}
			before := maps.Clone(store.objs)
			r.proc.Tools.Files = store
			llm := runFlush(t, r, "openai", []model.Response{toolCall("c1", tt.tool, tt.args), final("NO_REPLY")}, []model.Response{used("a4", 80)})
			flush := flushRequests(llm)
			result := flush[len(flush)-1].Messages[len(flush[len(flush)-1].Messages)-1]
			if refused := result.IsError && strings.HasPrefix(result.Content, tt.refused); result.IsError != (tt.refused != "") || tt.refused != "" && !refused {
				t.Errorf("result %+v; want refused %q", result, tt.refused)
			}
			if tt.refused != "" && !strings.Contains(result.Content, "may only write MEMORY.md and files under memory/") {
				t.Errorf("the refusal %q does not say what may be written", result.Content)
			}
			var changed []string
			for key, obj := range store.objs {
				if old, ok := before[key]; (!ok || old.ETag != obj.ETag) && !strings.HasPrefix(key, ws+".zero/") {
					changed = append(changed, strings.TrimPrefix(key, ws))
				}
			}
			for key := range before {
				if _, ok := store.objs[key]; !ok {
					changed = append(changed, strings.TrimPrefix(key, ws))
				}
			}
			slices.Sort(changed)
			if diff := cmp.Diff(tt.changed, changed); diff != "" {
				t.Errorf("workspace files changed (-want +got):\n%s", diff)
			}
		})
	}
}

// toolEvents are the run's events as "stream/phase toolCallId" strings
// (checking their seqs are 1, 2, 3, …).
func toolEvents(t *testing.T, store interface {
	Events(ctx context.Context, runID string, afterSeq int64, limit int) ([]run.Event, error)
}, runID string) []string {
	t.Helper()
	evs, err := store.Events(context.Background(), runID, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
		var data struct {
			Phase      string `json:"phase"`
			ToolCallID string `json:"toolCallId"`
		}
		json.Unmarshal(ev.Data, &data)
		out = append(out, strings.TrimSpace(strings.TrimSuffix(ev.Stream+"/"+data.Phase, "/")+" "+data.ToolCallID))
	}
	return out
}

// TestMemoryFlushCallIDsAreItsOwn: a model that numbers its calls per
// run ("call_0") gives the flush and the real run the same ids; in the
// run's events the flush's are "flush-" ones, numbered in order before
// the compaction and the real run's.
func TestMemoryFlushCallIDsAreItsOwn(t *testing.T) {
	r := newRig()
	r.settings.set(flushConfig)
	runs := r.useRuns()
	r.proc.Tools.Files = newWorkspaceStore()
	runFlush(t, r, "zero",
		[]model.Response{toolCall("call_0", "write", `{"path":"memory/2026-11-25.md","content":"- t1\n"}`), final("NO_REPLY")},
		[]model.Response{toolCall("call_0", "session_status", `{}`), final("a4")})
	want := []string{
		"lifecycle/start",
		"tool/start flush-call_0", "tool/result flush-call_0",
		"compaction/start", "compaction/end",
		"tool/start call_0", "tool/result call_0",
		"assistant", "lifecycle/end",
	}
	if diff := cmp.Diff(want, toolEvents(t, runs, run.NewID(flushMessage))); diff != "" {
		t.Errorf("run events (-want +got):\n%s", diff)
	}
}

// TestMemoryFlushLeavesTheRunsOrdinals: the flush cannot spawn (or send),
// so the real run's first spawn gets the turn's first spawn id and is
// queued, not taken by the flush's.
func TestMemoryFlushLeavesTheRunsOrdinals(t *testing.T) {
	r := newRig()
	r.settings.set(flushConfig)
	r.proc.Tools.Files = newWorkspaceStore()
	q := &recordingDoor{}
	r.proc.Door = q
	llm := runFlush(t, r, "zero",
		[]model.Response{toolCall("s1", "sessions_spawn", `{"task":"flush task"}`), final("NO_REPLY")},
		[]model.Response{toolCall("s1", "sessions_spawn", `{"task":"real task"}`), final("a4")})
	var queued []string
	for _, m := range q.msgs {
		queued = append(queued, m.ID+" "+m.Text)
	}
	if diff := cmp.Diff([]string{"subagent:" + tooltest.SpawnUUID(flushMessage, 1) + " real task"}, queued); diff != "" {
		t.Errorf("queued (-want +got):\n%s", diff)
	}
	flush := flushRequests(llm)
	if result := flush[len(flush)-1].Messages[len(flush[len(flush)-1].Messages)-1]; !result.IsError {
		t.Errorf("the flush's sessions_spawn ran: %+v", result)
	}
}

func writeCall(path, content string) model.Response {
	return model.Response{StopReason: model.StopToolUse, ToolCalls: []model.ToolCall{{ID: "w1", Name: "write",
		Arguments: fmt.Sprintf(`{"path":%q,"content":%q}`, path, content)}}}
}

// TestMemoryFlushBeforeAutoCompaction: before turn 4's automatic
// compaction a silent turn writes the day's notes; its NO_REPLY is never
// delivered and its messages stay out of the context; a retry (the marker
// exists) or a read-only workspace skips it.
func TestMemoryFlushBeforeAutoCompaction(t *testing.T) {
	const note = "agents/main/workspace/memory/2026-11-25.md"
	tests := []struct {
		name      string
		deny      string // tools.deny
		premarked bool   // a previous attempt of message 4 already flushed
		wantFlush bool
	}{
		{"flushes once", "", false, true},
		{"a retry does not flush again", "", true, false},
		{"no flush without a writable workspace", `"group:fs"`, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(`{agents: {defaults: {contextTokens: 200, compaction: {reserveTokens: 50}}}, tools: {deny: [` + tt.deny + `]}, channels: {telegram: {allowFrom: ["*"]}}}`)
			answers := []model.Response{used("a1", 60), used("a2", 120), used("a3", 190)}
			if tt.wantFlush {
				answers = append(answers, writeCall("memory/2026-11-25.md", "- the user said t1\n"), final("NO_REPLY"))
			}
			llm := &scriptModel{summary: "the user said t1", answers: append(answers, used("a4", 80))}
			r.proc.Models["zero"] = llm
			ws := newWorkspaceStore()
			r.proc.Tools.Files = ws
			if tt.premarked {
				ws.Put(context.Background(), "agents/main/workspace/.zero/"+turn.FlushMarker("telegram:42:4"), nil, "")
			}
			for i := 1; i <= 4; i++ {
				r.handle(t, msg(i, fmt.Sprintf("t%d", i)))
			}
			var sent []string
			for _, s := range r.sender.Sent {
				sent = append(sent, s.Text)
			}
			if diff := cmp.Diff([]string{"a1", "a2", "a3", "a4"}, sent); diff != "" {
				t.Errorf("delivered (-want +got):\n%s", diff)
			}
			_, wrote := ws.objs[note]
			if wrote != tt.wantFlush {
				t.Errorf("note written = %v; want %v", wrote, tt.wantFlush)
			}
			if _, marked := ws.objs["agents/main/workspace/.zero/"+turn.FlushMarker("telegram:42:4")]; marked != (tt.wantFlush || tt.premarked) {
				t.Errorf("flush marker = %v", marked)
			}
			last := llm.seen[len(llm.seen)-1]
			for _, m := range last.Messages {
				if strings.Contains(m.Content, "Pre-compaction memory flush") || m.Content == "NO_REPLY" {
					t.Errorf("turn 4's context holds the flush: %q", m.Content)
				}
			}
			if len(llm.summaries) != 1 {
				t.Errorf("%d compactions; want 1", len(llm.summaries))
			}
		})
	}
}

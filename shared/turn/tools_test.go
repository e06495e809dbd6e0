package turn_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tool"
	"github.com/zero-gateway/zero/shared/tools/builtin"
	"github.com/zero-gateway/zero/shared/tools/messaging"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
	"github.com/zero-gateway/zero/shared/turn"
	"github.com/zero-gateway/zero/shared/workspace"
)

// scriptModel answers from a list and records each request. Summary
// requests (compaction) are answered with summary and recorded apart.
type scriptModel struct {
	mu        sync.Mutex
	answers   []model.Response
	seen      []model.Request
	summary   string
	summaries []model.Request
	fail      []error // returned (and consumed) before the next answer
}

func (s *scriptModel) Complete(_ context.Context, req model.Request) (model.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.HasPrefix(req.System, "You compact conversations") {
		s.summaries = append(s.summaries, req)
		return model.Response{Text: s.summary, StopReason: model.StopEnd}, nil
	}
	if len(s.fail) > 0 {
		err := s.fail[0]
		s.fail = s.fail[1:]
		return model.Response{}, err
	}
	s.seen = append(s.seen, req)
	if len(s.seen) > len(s.answers) {
		return model.Response{Text: "out of script", StopReason: model.StopEnd}, nil
	}
	return s.answers[len(s.seen)-1], nil
}

func statusCall() model.Response {
	return model.Response{StopReason: model.StopToolUse, Usage: model.Usage{Input: 50, Output: 5, Total: 55},
		ToolCalls: []model.ToolCall{{ID: "call-1", Name: "session_status", Arguments: `{}`}}}
}

func final(text string) model.Response {
	return model.Response{Text: text, StopReason: model.StopEnd, Usage: model.Usage{Input: 80, Output: 7, Total: 87}}
}

func TestToolTurn(t *testing.T) {
	r := newRig()
	llm := &scriptModel{answers: []model.Response{statusCall(), final("all good")}}
	r.proc.Models["zero"] = llm
	r.handle(t, msg(1, "how are you?"))

	if got := r.lastSent(t); got != "all good" || len(r.sender.Sent) != 1 {
		t.Fatalf("sent %+v; want one reply \"all good\"", r.sender.Sent)
	}
	first := llm.seen[0]
	if got := toolNames(first.Tools); !slices.Equal(got, []string{"session_status", "agents_list"}) || !strings.Contains(first.System, "## Tools\nYou can call these tools:\n- session_status: ") {
		t.Fatalf("offered tools %+v with system %q; want session_status in both", first.Tools, first.System)
	}
	result := llm.seen[1].Messages[2]
	if result.Role != model.ToolResult || result.ToolCallID != "call-1" || !strings.Contains(result.Content, "agent:main:main") {
		t.Fatalf("tool result %+v; want the status of agent:main:main", result)
	}
	lines := r.transcriptLines(t)
	roles := []string{}
	for i, l := range lines {
		roles = append(roles, l.Message.Role)
		if i > 0 && (l.ParentID == nil || *l.ParentID != lines[i-1].ID) {
			t.Fatalf("line %d is not chained to line %d", i, i-1)
		}
	}
	if strings.Join(roles, ",") != "user,assistant,toolResult,assistant" {
		t.Fatalf("transcript roles %v", roles)
	}
	if c := lines[1].Message.Content; len(c) != 1 || c[0].Type != "toolCall" || c[0].Name != "session_status" || string(c[0].Arguments) != "{}" {
		t.Fatalf("assistant tool call line %+v", c)
	}
	if u := lines[3].Message.Usage; u == nil || u.Input != 130 || lines[3].Message.StopReason != model.StopEnd {
		t.Fatalf("final line usage %+v stop %q; want the run's summed usage", u, lines[3].Message.StopReason)
	}
	e := r.entry(t, "agent:main:main")
	if e.TotalTokens != 87 || e.InputTokens != 130 || e.LastEntryID != lines[3].ID {
		t.Fatalf("entry tokens %d/%d last entry %s", e.TotalTokens, e.InputTokens, e.LastEntryID)
	}
	// The next turn sees the tool exchange in its context.
	llm.answers = append(llm.answers, final("again"))
	r.handle(t, msg(2, "and now?"))
	if got := len(llm.seen[2].Messages); got != 5 {
		t.Fatalf("next turn's context has %d messages; want the 4 of the tool turn and the new one", got)
	}
}

// TestToolTurnRetried: a tool turn killed before its commit is adopted from
// its transcript part: no second model call, one reply, one copy of each line.
func TestToolTurnRetried(t *testing.T) {
	r := newRig()
	llm := &scriptModel{answers: []model.Response{statusCall(), final("all good")}}
	r.proc.Models["zero"] = llm
	r.crash.CommitBefore = 1
	m := msg(1, "status?")
	if err := r.proc.Handle(context.Background(), m, 1); err == nil {
		t.Fatal("crash not injected")
	}
	if err := r.proc.Handle(context.Background(), m, 2); err != nil {
		t.Fatal(err)
	}
	if len(llm.seen) != 2 || len(r.sender.Sent) != 1 || r.lastSent(t) != "all good" {
		t.Fatalf("%d model calls, sent %+v; want the recorded run adopted", len(llm.seen), r.sender.Sent)
	}
	if n := len(r.transcriptLines(t)); n != 4 {
		t.Fatalf("transcript has %d lines; want 4", n)
	}
}

func TestToolPolicyHidesTools(t *testing.T) {
	r := newRig()
	r.settings.set(`{tools: {deny: ["session_status"]}, channels: {telegram: {allowFrom: ["*"]}}}`)
	llm := &scriptModel{answers: []model.Response{statusCall(), final("could not check")}}
	r.proc.Models["zero"] = llm
	r.handle(t, msg(1, "status?"))
	if first := llm.seen[0]; slices.Contains(toolNames(first.Tools), "session_status") || strings.Contains(first.System, "session_status") {
		t.Fatalf("a denied tool was offered: tools %+v system %q", first.Tools, first.System)
	}
	// A call to it anyway is refused, not run.
	if res := llm.seen[1].Messages[2]; !res.IsError || !strings.Contains(res.Content, "not available") {
		t.Fatalf("call to a denied tool got %+v; want it refused", res)
	}
}

func TestSilentReply(t *testing.T) {
	r := newRig()
	r.proc.Models["zero"] = &scriptModel{answers: []model.Response{final("NO_REPLY")}}
	r.handle(t, msg(1, "just so you know"))
	if len(r.sender.Sent) != 0 {
		t.Fatalf("sent %+v; NO_REPLY sends nothing", r.sender.Sent)
	}
	lines := r.transcriptLines(t)
	if len(lines) != 2 || lines[1].Message.Text() != "NO_REPLY" {
		t.Fatalf("the silent answer is not recorded: %+v", lines)
	}
}

// stuckModel answers after one tool round only when its context ends.
type stuckModel struct{ calls int }

func (s *stuckModel) Complete(ctx context.Context, _ model.Request) (model.Response, error) {
	s.calls++
	if s.calls == 1 {
		return statusCall(), nil
	}
	<-ctx.Done()
	return model.Response{}, ctx.Err()
}

// TestRunTimeout: a run past agents.defaults.timeoutSeconds stops cleanly:
// what it did is recorded, the run is marked aborted, the user is told.
func TestRunTimeout(t *testing.T) {
	r := newRig()
	r.settings.set(`{agents: {defaults: {timeoutSeconds: 1}}, channels: {telegram: {allowFrom: ["*"]}}}`)
	r.proc.Models["zero"] = &stuckModel{}
	r.handle(t, msg(1, "take your time"))
	if got := r.lastSent(t); !strings.Contains(got, "time limit") {
		t.Fatalf("reply %q; want the timeout notice", got)
	}
	lines := r.transcriptLines(t)
	var got []string
	for _, l := range lines {
		got = append(got, l.Message.Role)
	}
	if strings.Join(got, ",") != "user,assistant,toolResult,assistant" || lines[3].Message.StopReason != model.StopAborted {
		t.Fatalf("transcript %v (last stop %q); want the tool round kept and an aborted notice", got, lines[3].Message.StopReason)
	}
}

// staticWorkspace serves fixed workspace files.
type staticWorkspace struct{ files workspace.Files }

func (w staticWorkspace) Load(context.Context, string) (workspace.Files, error) { return w.files, nil }

func TestWorkspaceInPromptAndContextCommand(t *testing.T) {
	r := newRig()
	r.proc.System = "You are ZERO."
	r.proc.Workspace = staticWorkspace{workspace.Files{
		Bootstrap: []workspace.File{{Name: "AGENTS.md", Content: "Always answer in Portuguese."}, {Name: "USER.md", Content: "The user is Ana."}},
		Skills:    []workspace.Skill{{Name: "weather", Description: "Look up the weather", Path: "skills/weather/SKILL.md"}},
	}}
	llm := &scriptModel{answers: []model.Response{final("olá")}}
	r.proc.Models["zero"] = llm
	r.handle(t, msg(1, "hi"))
	system := llm.seen[0].System
	for _, want := range []string{"You are ZERO.", "session_status", "Always answer in Portuguese.", "The user is Ana.", "weather"} {
		if !strings.Contains(system, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, system)
		}
	}
	r.handle(t, msg(2, "/context"))
	if got := r.lastSent(t); !strings.Contains(got, "AGENTS.md") || !strings.Contains(got, "USER.md") {
		t.Fatalf("/context list = %q; want the injected files", got)
	}
	r.handle(t, msg(3, "/context detail"))
	if got := r.lastSent(t); !strings.Contains(got, "AGENTS.md") || len(got) <= len(r.sender.Sent[1].Text) {
		t.Fatalf("/context detail = %q; want more than the list", got)
	}
	if len(llm.seen) != 1 {
		t.Fatalf("/context reached the model (%d calls)", len(llm.seen))
	}
}

// TestProvidedToolsMatchTheInventory keeps `zero tools`' "available"
// column (tool.Provided) and the tools a turn really offers in step.
func TestProvidedToolsMatchTheInventory(t *testing.T) {
	r := newRig()
	r.proc.Store = r.store        // a store that reads other sessions, as deployed
	r.proc.Door = queuedNowhere{} // and a way into the work queue
	r.proc.Tools = builtin.Deps{
		Memory: tooltest.AgentMemory(), Files: newWorkspaceStore(), // the workspace bucket
		WebFetch: tooltest.LocalFetcher(), WebSearch: &tooltest.Searcher{},
		Cron: &cron.Service{Store: &cron.Memory{}}, ConfigDoc: &tooltest.MemDoc{}, // the cron store, the config parameter
	}
	r.proc.Tools.Messengers = map[string]messaging.Messenger{"telegram": &tooltest.Messenger{}}
	r.settings.set(webConfig[:len(webConfig)-1] + ", commands: {restart: true}, agents: {defaults: {imageModel: \"openai/gpt-4o\"}}}") // web_search and gateway are on only when enabled; image with an image model
	r.proc.Models["openai"] = &tooltest.VisionModel{}                                                                                  // the image model's provider
	llm := &scriptModel{answers: []model.Response{final("ok")}}
	r.proc.Models["zero"] = llm
	r.handle(t, msg(1, "hi"))
	offered := map[string]bool{}
	for _, spec := range llm.seen[0].Tools {
		offered[spec.Name] = true
		if !tool.Known(spec.Name) {
			t.Errorf("the turn offers %q, which the policy's inventory does not know", spec.Name)
		}
	}
	for _, name := range tool.Names() {
		if name == "apply_patch" {
			continue // offered only to OpenAI models when enabled: TestFileToolsFollowThePolicy
		}
		if tool.Provided(name) != offered[name] {
			t.Errorf("%s: tool.Provided says %v, the turn offers it: %v", name, tool.Provided(name), offered[name])
		}
	}
}

// queuedNowhere is a Door that accepts and keeps nothing.
type queuedNowhere struct{}

func (queuedNowhere) Accept(_ context.Context, r ingest.Request) (ingest.Outcome, error) {
	return ingest.Queued{Message: r.Message, RunID: "run-x"}, nil
}

// TestAPIRunChoices: a run requested through the gateway with an extra
// system prompt and its own timeout gets both.
func TestAPIRunChoices(t *testing.T) {
	r := newRig()
	r.proc.System = "You are ZERO."
	llm := &scriptModel{answers: []model.Response{final("ok")}}
	r.proc.Models["zero"] = llm
	m := msg(1, "hi")
	m.ExtraSystemPrompt = "Answer in French."
	r.handle(t, m)
	if got := llm.seen[0].System; !strings.HasPrefix(got, "You are ZERO.") || !strings.HasSuffix(got, "\n\nAnswer in French.") {
		t.Fatalf("system prompt %q; want the extra prompt appended", got)
	}
	r.proc.Models["zero"] = &stuckModel{}
	slow := msg(2, "take your time")
	slow.TimeoutSeconds = 1 // agents.defaults.timeoutSeconds is 600
	r.handle(t, slow)
	if got := r.lastSent(t); !strings.Contains(got, "time limit") {
		t.Fatalf("reply %q; want the run stopped at its own timeout", got)
	}
}

// TestRunCutByTheInvocationDeadlineIsRetried: a run that the function's
// deadline (not its own time limit) cuts short is returned for retry,
// never answered with a timeout notice, and nothing is committed.
func TestRunCutByTheInvocationDeadlineIsRetried(t *testing.T) {
	r := newRig()
	r.settings.set(`{agents: {defaults: {timeoutSeconds: 600}}, channels: {telegram: {allowFrom: ["*"]}}}`)
	r.proc.Models["zero"] = &stuckModel{calls: 1} // blocks until its context ends
	// 16 s left: the run gets about 1 s after the 15 s margin.
	ctx, cancel := context.WithTimeout(context.Background(), 16*time.Second)
	defer cancel()
	err := r.proc.Handle(ctx, msg(1, "take your time"), 1)
	if !errors.Is(err, turn.ErrOutOfTime) || !fault.Retryable(err) {
		t.Fatalf("Handle = %v; want a retryable ErrOutOfTime", err)
	}
	if len(r.sender.Sent) != 0 {
		t.Fatalf("sent %+v; want nothing (the message is retried)", r.sender.Sent)
	}
	if snap, _ := r.store.Load(context.Background(), "agent:main:main", msg(1, "").ID); snap.Receipt != nil {
		t.Fatalf("record %+v; want none (nothing committed)", snap.Receipt)
	}
}

// toolNames are the names of the offered tools, in order.
func toolNames(specs []model.ToolSpec) []string {
	names := []string{}
	for _, s := range specs {
		names = append(names, s.Name)
	}
	return names
}

package turn_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/files"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/turn"
)

// workspaceStore is a files.Store in memory with S3's conditional
// semantics (ETags are a counter).
type workspaceStore struct {
	mu   sync.Mutex
	objs map[string]files.Object
	n    int
}

func newWorkspaceStore() *workspaceStore { return &workspaceStore{objs: map[string]files.Object{}} }

func (s *workspaceStore) Fetch(_ context.Context, key string) (files.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, ok := s.objs[key]; ok {
		return o, nil
	}
	return files.Object{}, fault.New(fault.NotFound, "no %s", key)
}

func (s *workspaceStore) Put(_ context.Context, key string, data []byte, ifMatch string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.objs[key]
	if ifMatch == "" && ok || ifMatch != "" && (!ok || o.ETag != ifMatch) {
		return "", fault.New(fault.Conflict, "precondition failed on %s", key)
	}
	s.n++
	s.objs[key] = files.Object{Data: data, ETag: fmt.Sprint(s.n)}
	return fmt.Sprint(s.n), nil
}

func (s *workspaceStore) Delete(_ context.Context, key, ifMatch string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, ok := s.objs[key]; !ok || o.ETag != ifMatch {
		return fault.New(fault.Conflict, "precondition failed on %s", key)
	}
	delete(s.objs, key)
	return nil
}

func fileToolNames(req model.Request) []string {
	var out []string
	for _, s := range req.Tools {
		switch s.Name {
		case "read", "write", "edit", "apply_patch":
			out = append(out, s.Name)
		}
	}
	slices.Sort(out)
	return out
}

// TestFileToolsFollowThePolicy: read, write and edit are offered with a
// workspace store unless group:fs is denied; apply_patch only with
// tools.exec.applyPatch.enabled and an OpenAI model.
func TestFileToolsFollowThePolicy(t *testing.T) {
	tests := []struct {
		name, config, provider string
		want                   []string
	}{
		{"default", `{}`, "zero", []string{"edit", "read", "write"}},
		{"group:fs denied", `{tools: {deny: ["group:fs"]}}`, "zero", nil},
		{"messaging profile", `{tools: {profile: "messaging"}}`, "zero", nil},
		{"apply_patch needs an OpenAI model", `{tools: {exec: {applyPatch: {enabled: true}}}}`, "zero", []string{"edit", "read", "write"}},
		{"apply_patch enabled for OpenAI", `{agents: {defaults: {model: "openai/gpt-5.2"}}, tools: {exec: {applyPatch: {enabled: true}}}}`, "openai", []string{"apply_patch", "edit", "read", "write"}},
		{"apply_patch denied", `{agents: {defaults: {model: "openai/gpt-5.2"}}, tools: {deny: ["apply_patch"], exec: {applyPatch: {enabled: true}}}}`, "openai", []string{"edit", "read", "write"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig()
			r.settings.set(strings.Replace(tt.config, "{", `{channels: {telegram: {allowFrom: ["*"]}}, `, 1))
			llm := &scriptModel{answers: []model.Response{final("ok")}}
			r.proc.Models[tt.provider] = llm
			r.proc.Files = newWorkspaceStore()
			r.handle(t, msg(1, "hi"))
			if diff := cmp.Diff(tt.want, fileToolNames(llm.seen[0])); diff != "" {
				t.Errorf("file tools offered (-want +got):\n%s", diff)
			}
		})
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
			r.proc.Files = ws
			if tt.premarked {
				ws.Put(context.Background(), "agents/main/workspace/.zero/"+turn.FlushMarker("telegram:42:4"), nil, "")
			}
			for i := 1; i <= 4; i++ {
				r.handle(t, msg(i, fmt.Sprintf("t%d", i)))
			}
			var sent []string
			for _, s := range r.sender.sent {
				sent = append(sent, s.text)
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

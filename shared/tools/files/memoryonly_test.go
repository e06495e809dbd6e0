package files_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tools/files"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
)

// recorder is a tool named name that records the arguments it runs with.
type recorder struct {
	name string
	got  []string
}

func (r *recorder) Spec() model.ToolSpec { return model.ToolSpec{Name: r.name, Description: "Write."} }

func (r *recorder) Run(_ context.Context, raw json.RawMessage) (string, error) {
	r.got = append(r.got, string(raw))
	return "ok", nil
}

func patch(body string) string {
	b, _ := json.Marshal(map[string]string{"input": "*** Begin Patch\n" + body + "\n*** End Patch"})
	return string(b)
}

// TestMemoryOnly: the writing tools, confined, write MEMORY.md and
// memory/** only, as cleaned paths; every other path refuses the whole
// call; other tools are not confined.
func TestMemoryOnly(t *testing.T) {
	tests := []struct {
		name, tool, args string
		wantErr          string // "": the inner tool runs
	}{
		{name: "write MEMORY.md", tool: files.WriteName, args: `{"path":"MEMORY.md","content":"x"}`},
		{name: "write a daily note", tool: files.WriteName, args: `{"path":"memory/2026-11-25.md","content":"x"}`},
		{name: "write AGENTS.md", tool: files.WriteName, args: `{"path":"AGENTS.md","content":"x"}`, wantErr: `"AGENTS.md" is not one of them`},
		{name: "a path that climbs out", tool: files.WriteName, args: `{"path":"memory/../AGENTS.md","content":"x"}`, wantErr: "is not one of them"},
		{name: "a path not clean", tool: files.WriteName, args: `{"path":"./MEMORY.md","content":"x"}`, wantErr: "is not one of them"},
		{name: "edit a memory file", tool: files.EditName, args: `{"path":"memory/a.md","oldText":"a","newText":"b"}`},
		{name: "edit SOUL.md", tool: files.EditName, args: `{"path":"SOUL.md","oldText":"a","newText":"b"}`, wantErr: "refused"},
		{name: "a patch of memory files", tool: files.ApplyPatchName, args: patch("*** Add File: memory/b.md\n+hi")},
		{name: "a patch moving one out", tool: files.ApplyPatchName, args: patch("*** Update File: memory/b.md\n*** Move to: notes.md\n@@\n-a\n+b"), wantErr: `"notes.md" is not one of them`},
		{name: "arguments of the wrong shape", tool: files.WriteName, args: `{"path":3}`, wantErr: "the arguments are not valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := &recorder{name: tt.tool}
			confined, ok := files.MemoryOnly(inner)
			if !ok || !strings.Contains(confined.Spec().Description, "may only write MEMORY.md") {
				t.Fatalf("MemoryOnly(%s) = %v; want it confined and saying so", tt.tool, ok)
			}
			res := tooltest.Call(t, confined, tt.args)
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Content, tt.wantErr) || len(inner.got) != 0 {
					t.Errorf("result %+v, inner ran %d times; want the refusal %q and no write", res, len(inner.got), tt.wantErr)
				}
				return
			}
			if res.IsError || len(inner.got) != 1 {
				t.Errorf("result %+v, inner ran %d times; want it run once", res, len(inner.got))
			}
		})
	}
	if _, ok := files.MemoryOnly(&recorder{name: files.ReadName}); ok {
		t.Error("read was confined; only the writing tools are")
	}
}

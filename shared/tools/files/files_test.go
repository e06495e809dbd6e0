package files_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/files/filestest"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/files"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
)

const root = "agents/main/workspace/"

// TestFileTools: calls in order on one run's workspace session; a write
// or edit is conditional on what the run read.
func TestFileTools(t *testing.T) {
	store := filestest.NewMemStore(map[string]string{root + "notes.md": "one\ntwo\n"})
	s := files.SessionOf(tools.Run{AgentID: "main"}, store)
	byName := map[string]tools.Tool{
		files.ReadName: files.NewReadTool(s), files.WriteName: files.NewWriteTool(s),
		files.EditName: files.NewEditTool(s), files.ApplyPatchName: files.NewApplyPatchTool(s),
	}
	steps := []struct {
		name, tool, args string
		wantErr          string // "": success
		want             string // substring of the result
	}{
		{"a write over a file not read", files.WriteName, `{"path":"notes.md","content":"x"}`, "have not read it", ""},
		{"read", files.ReadName, `{"path":"notes.md","offset":"2"}`, "", "notes.md, lines 2-2 of 2:\ntwo"},
		{"edit after the read", files.EditName, `{"path":"notes.md","oldText":"two","newText":"three"}`, "", "Edited notes.md"},
		{"create a new file", files.WriteName, `{"path":"memory/today.md","content":"- tea\n"}`, "", "Created memory/today.md"},
		{"a patch", files.ApplyPatchName, `{"input":"*** Begin Patch\n*** Add File: b.md\n+bee\n*** End Patch"}`, "", "b.md"},
		{"a path outside the workspace", files.ReadName, `{"path":"../other/x.md"}`, "invalid path", ""},
		{"bad arguments", files.EditName, `{"path":1}`, "the arguments must be {path: string, oldText: string, newText: string}", ""},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			res := tooltest.Call(t, byName[s.tool], s.args)
			if res.IsError != (s.wantErr != "") || !strings.Contains(res.Content, s.wantErr) || !strings.Contains(res.Content, s.want) {
				t.Fatalf("result %+v; want error %q, content with %q", res, s.wantErr, s.want)
			}
		})
	}
	for key, want := range map[string]string{root + "notes.md": "one\nthree\n", root + "memory/today.md": "- tea\n", root + "b.md": "bee\n"} {
		if got, _ := store.Content(key); got != want {
			t.Errorf("%s = %q; want %q", key, got, want)
		}
	}
}

func TestPatchPaths(t *testing.T) {
	tests := []struct {
		name, input string
		want        []string
		wantErr     bool
	}{
		{"add, delete and a move", "*** Begin Patch\n*** Add File: a.md\n+x\n*** Delete File: b.md\n*** Update File: c.md\n*** Move to: d.md\n@@\n-old\n+new\n*** End Patch",
			[]string{"a.md", "b.md", "c.md", "d.md"}, false},
		{"not a patch", "hello", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := files.PatchPaths(files.PatchArgs{Input: tt.input})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v; want error %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
}

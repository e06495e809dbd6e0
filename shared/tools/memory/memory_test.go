package memory_test

import (
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/memory"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
)

func TestTools(t *testing.T) {
	tests := []struct {
		name, tool, args string
		wantError        bool
		want             []string // substrings of the tool result
	}{
		{"search finds a dated note", "memory_search", `{"query":"dentist"}`, false,
			[]string{`"count":1`, `"path":"memory/2026-11-20.md"`, `"startLine":1`, `"endLine":1`, `"snippet":"Called the dentist: Friday at 10:00."`}},
		{"search with numbers as strings", "memory_search", `{"query":"Alice","maxResults":"1","minScore":0}`, false,
			[]string{`"count":1`, `"path":"MEMORY.md"`, `"startLine":1`, `"endLine":3`}},
		{"search without hits", "memory_search", `{"query":"xylophone"}`, false, []string{`{"count":0,"results":[]}`}},
		{"get a line range", "memory_get", `{"path":"MEMORY.md","from":3,"lines":1}`, false,
			[]string{"MEMORY.md, lines 3-3 of 3:\nThe user's sister Alice lives in Lisbon."}},
		{"search without a query", "memory_search", `{}`, true, []string{"query is required"}},
		{"search with a bad maxResults", "memory_search", `{"query":"x","maxResults":"many"}`, true, []string{"the arguments must be"}},
		{"get escaping the memory folder", "memory_get", `{"path":"memory/../AGENTS.md"}`, true, []string{`".." segment`}},
		{"get another workspace file", "memory_get", `{"path":"AGENTS.md"}`, true, []string{"not a memory file"}},
		{"get an absolute path", "memory_get", `{"path":"/etc/passwd"}`, true, []string{"is absolute"}},
		{"get a missing note", "memory_get", `{"path":"memory/2020-01-01.md"}`, true, []string{"does not exist"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tl tools.Tool = memory.NewSearchTool(tooltest.AgentMemory(), "main")
			if tt.tool == memory.GetName {
				tl = memory.NewGetTool(tooltest.AgentMemory(), "main")
			}
			res := tooltest.Call(t, tl, tt.args)
			if res.IsError != tt.wantError {
				t.Fatalf("result %+v; want a tool result, error %v", res, tt.wantError)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("result %q; want it to contain %q", res.Content, w)
				}
			}
		})
	}
}

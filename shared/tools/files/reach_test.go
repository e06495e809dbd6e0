package files_test

import (
	"encoding/json"
	"testing"

	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/files"
)

func TestWriteReach(t *testing.T) {
	tests := []struct {
		name string
		args string
		want tools.Reach
	}{
		{"a scratch file", `{"path":"scratch/notes.md","content":"x"}`, 0},
		{"the agent's own memory", `{"path":"MEMORY.md","content":"x"}`, 0},
		{"a daily note", `{"path":"memory/2026-11-28.md","content":"x"}`, 0},
		{"AGENTS.md", `{"path":"AGENTS.md","content":"x"}`, tools.ReachBootstrap},
		{"a detour (memory/../SOUL.md) is the tool's own refusal", `{"path":"memory/../SOUL.md","content":"x"}`, 0},
		{"SOUL.md", `{"path":"SOUL.md","content":"x"}`, tools.ReachBootstrap},
		{"a skill", `{"path":"skills/web/SKILL.md","content":"x"}`, tools.ReachBootstrap},
		{"unreadable arguments reach what the tool then refuses", `not json`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := files.WriteReach(tools.Run{}, json.RawMessage(tt.args)); got != tt.want {
				t.Errorf("WriteReach = %v; want %v", got, tt.want)
			}
		})
	}
}

func TestPatchReach(t *testing.T) {
	patch := func(body string) string {
		b, _ := json.Marshal(map[string]string{"input": "*** Begin Patch\n" + body + "*** End Patch\n"})
		return string(b)
	}
	tests := []struct {
		name string
		args string
		want tools.Reach
	}{
		{"memory only", patch("*** Add File: memory/a.md\n+x\n"), 0},
		{"adds a skill", patch("*** Add File: memory/a.md\n+x\n*** Add File: skills/x/SKILL.md\n+y\n"), tools.ReachBootstrap},
		{"moves a note onto AGENTS.md", patch("*** Update File: scratch/a.md\n*** Move to: AGENTS.md\n@@\n-a\n+b\n"), tools.ReachBootstrap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := files.PatchReach(tools.Run{}, json.RawMessage(tt.args)); got != tt.want {
				t.Errorf("PatchReach = %v; want %v", got, tt.want)
			}
		})
	}
}

package memory

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zero-gateway/zero/shared/fault"
)

func TestCleanPath(t *testing.T) {
	tests := []struct {
		name, path, want string
		ok               bool
	}{
		{"MEMORY.md", "MEMORY.md", "MEMORY.md", true},
		{"a dated note", "memory/2026-11-20.md", "memory/2026-11-20.md", true},
		{"nested", "memory/projects/zero.md", "memory/projects/zero.md", true},
		{"leading dot slash", "./memory/a.md", "memory/a.md", true},
		{"parent escape", "memory/../AGENTS.md", "", false},
		{"parent at start", "../other/workspace/MEMORY.md", "", false},
		{"absolute", "/agents/main/workspace/MEMORY.md", "", false},
		{"dot segment", "memory/./a.md", "", false},
		{"double slash", "memory//a.md", "", false},
		{"backslash", "memory\\..\\AGENTS.md", "", false},
		{"control character", "memory/a\n.md", "", false},
		{"another workspace file", "AGENTS.md", "", false},
		{"not markdown", "memory/notes.txt", "", false},
		{"the folder itself", "memory/", "", false},
		{"lowercase memory.md", "memory.md", "", false},
		{"empty", " ", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CleanPath(tt.path)
			if tt.ok != (err == nil) || got != tt.want {
				t.Errorf("CleanPath(%q) = %q, %v; want %q, ok %v", tt.path, got, err, tt.want, tt.ok)
			}
			if err != nil && !fault.Is(err, fault.Invalid) {
				t.Errorf("CleanPath(%q) error %v is not fault.Invalid", tt.path, err)
			}
		})
	}
}

func TestGet(t *testing.T) {
	tests := []struct {
		name        string
		path        string
		from, lines int
		want        Excerpt
	}{
		{"whole file by default", "memory/2026-11-20.md", 0, 0, Excerpt{Path: "memory/2026-11-20.md", From: 1, To: 6, TotalLines: 6,
			Text: "# 2026-11-20\n\nCalled the dentist: the appointment moved to Friday at 10:00.\n\nDeployed the gateway to eu-west-1. The Lambda cold start was 480 ms.\nThe gateway deployment needs the new bucket policy."}},
		{"a line range", "MEMORY.md", 5, 2, Excerpt{Path: "MEMORY.md", From: 5, To: 6, TotalLines: 12,
			Text: "Alice is the user's sister. She lives in Lisbon and works as a marine biologist.\nHer birthday is on the 14th of March."}},
		{"lines past the end stop there", "MEMORY.md", 12, 50, Excerpt{Path: "MEMORY.md", From: 12, To: 12, TotalLines: 12,
			Text: "The user prefers green tea in the morning and never drinks coffee after noon."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewIndex(fixtureStore(t, "main")).Get(context.Background(), "main", tt.path, tt.from, tt.lines)
			if err != nil || got != tt.want {
				t.Errorf("Get = %+v, %v;\nwant %+v", got, err, tt.want)
			}
		})
	}
}

func TestGetErrors(t *testing.T) {
	tests := []struct {
		name        string
		path        string
		from, lines int
		code        fault.Code
	}{
		{"escape", "memory/../AGENTS.md", 0, 0, fault.Invalid},
		{"not a memory file", "AGENTS.md", 0, 0, fault.Invalid},
		{"missing memory file", "memory/2020-01-01.md", 0, 0, fault.NotFound},
		{"from past the end", "MEMORY.md", 13, 0, fault.Invalid},
		{"negative lines", "MEMORY.md", 1, -1, fault.Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewIndex(fixtureStore(t, "main")).Get(context.Background(), "main", tt.path, tt.from, tt.lines)
			if !fault.Is(err, tt.code) {
				t.Errorf("Get = %v; want %s", err, tt.code)
			}
		})
	}
}

func TestGetLimits(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		wantTo   int
		wantSize int
	}{
		{"lines cap", strings.Repeat("x\n", 1000), MaxGetLines, 2*MaxGetLines - 1},
		{"bytes cap at a whole line", strings.Repeat(strings.Repeat("x", 99)+"\n", 1000), MaxGetBytes / 100, MaxGetBytes/100*100 - 1},
		{"one long line is cut", strings.Repeat("é", MaxGetBytes), 1, MaxGetBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fixtureStore(t, "main")
			s.put("agents/main/workspace/memory/big.md", tt.content)
			got, err := NewIndex(s).Get(context.Background(), "main", "memory/big.md", 1, 10_000)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if got.To != tt.wantTo || len(got.Text) != tt.wantSize || !utf8.ValidString(got.Text) {
				t.Errorf("Get: to %d, %d bytes, truncated %v; want to %d, %d valid bytes", got.To, len(got.Text), got.Truncated, tt.wantTo, tt.wantSize)
			}
		})
	}
}

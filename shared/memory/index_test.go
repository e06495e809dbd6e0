package memory

import (
	"context"
	"testing"
)

func TestIndexRebuildsOnlyOnChange(t *testing.T) {
	const key = "agents/main/workspace/memory/2026-11-21.md"
	tests := []struct {
		name       string
		change     func(s *fakeStore)
		wantBuilds int
		wantGets   int // Gets of the second call
	}{
		{"unchanged listing reuses the index", func(*fakeStore) {}, 1, 0},
		{"another workspace file does not count", func(s *fakeStore) { s.put("agents/main/workspace/AGENTS.md", "changed") }, 1, 0},
		{"a new memory file rebuilds", func(s *fakeStore) { s.put(key, "the piano tuner comes on Monday") }, 2, 1},
		{"a changed memory file rebuilds", func(s *fakeStore) { s.put("agents/main/workspace/MEMORY.md", "piano lessons") }, 2, 1},
		{"a deleted memory file rebuilds", func(s *fakeStore) { delete(s.objects, "agents/main/workspace/memory/projects/zero.md") }, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := fixtureStore(t, "main")
			x := NewIndex(s)
			if _, err := x.Search(ctx, "main", "gateway", 0, 0); err != nil {
				t.Fatalf("first Search: %v", err)
			}
			gets := len(s.gets)
			tt.change(s)
			if _, err := x.Search(ctx, "main", "piano", 0, 0); err != nil {
				t.Fatalf("second Search: %v", err)
			}
			if builds := x.agent("main").builds; builds != tt.wantBuilds {
				t.Errorf("builds = %d; want %d", builds, tt.wantBuilds)
			}
			if got := len(s.gets) - gets; got != tt.wantGets {
				t.Errorf("second call made %d Gets (%v); want %d", got, s.gets[gets:], tt.wantGets)
			}
			if s.lists != 2 {
				t.Errorf("lists = %d; want one per call", s.lists)
			}
		})
	}
}

func TestIndexSeesNewMemory(t *testing.T) {
	ctx := context.Background()
	s := fixtureStore(t, "main")
	x := NewIndex(s)
	if hits, _ := x.Search(ctx, "main", "piano", 0, 0); len(hits) != 0 {
		t.Fatalf("hits before the note = %v; want none", hits)
	}
	s.put("agents/main/workspace/memory/2026-11-21.md", "# 2026-11-21\n\nThe piano tuner comes on Monday.\n")
	hits, err := x.Search(ctx, "main", "piano", 0, 0)
	if err != nil || len(hits) != 1 || where(hits[0]) != "memory/2026-11-21.md:1-3" {
		t.Errorf("hits after the note = %v, %v; want memory/2026-11-21.md:1-3", hits, err)
	}
}

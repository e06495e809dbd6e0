package memory

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
)

// where is a hit's location, "path:start-end".
func where(h Hit) string { return fmt.Sprintf("%s:%d-%d", h.Path, h.StartLine, h.EndLine) }

func TestSearchRanking(t *testing.T) {
	tests := []struct {
		name     string
		query    string
		limit    int
		minScore float64
		want     []string // hits in order
	}{
		{"only memory files are searched", "dentist", 0, 0, []string{"memory/2026-11-20.md:1-3"}},
		{"a heading joins its paragraph", "Alice birthday", 0, 0, []string{"MEMORY.md:1-6"}},
		{"more matching terms rank first", "gateway deployment", 0, 0, []string{"memory/2026-11-20.md:5-6", "memory/projects/zero.md:8-10"}},
		{"case and punctuation are ignored", "GREEN-tea!", 0, 0, []string{"MEMORY.md:10-12"}},
		{"nested memory folders are searched", "embeddings", 0, 0, []string{"memory/projects/zero.md:1-6"}},
		{"limit keeps the best", "gateway deployment", 1, 0, []string{"memory/2026-11-20.md:5-6"}},
		{"minScore drops weak hits", "gateway deployment", 0, 2, []string{"memory/2026-11-20.md:5-6"}},
		{"no shared word, no hit", "xylophone", 0, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := NewIndex(fixtureStore(t, "main"))
			hits, err := x.Search(context.Background(), "main", tt.query, tt.limit, tt.minScore)
			if err != nil {
				t.Fatalf("Search: %v", err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, where(h))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("hits (-want +got):\n%s\nscores: %+v", diff, hits)
			}
		})
	}
}

func TestSearchHit(t *testing.T) {
	x := NewIndex(fixtureStore(t, "main"))
	hits, err := x.Search(context.Background(), "main", "dentist", 0, 0)
	if err != nil || len(hits) != 1 {
		t.Fatalf("Search = %v, %v; want one hit", hits, err)
	}
	want := "# 2026-11-20\n\nCalled the dentist: the appointment moved to Friday at 10:00."
	if hits[0].Snippet != want || hits[0].Score <= 0 {
		t.Errorf("hit = %+v; want snippet %q and a positive score", hits[0], want)
	}
}

func TestSearchErrors(t *testing.T) {
	tests := []struct {
		name, agent, query string
		code               fault.Code
	}{
		{"no words", "main", " ?! ", fault.Invalid},
		{"no agent", "", "dentist", fault.Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewIndex(fixtureStore(t, "main")).Search(context.Background(), tt.agent, tt.query, 0, 0)
			if !fault.Is(err, tt.code) {
				t.Errorf("Search = %v; want %s", err, tt.code)
			}
		})
	}
}

func TestSearchEmptyWorkspace(t *testing.T) {
	hits, err := NewIndex(fixtureStore(t, "main")).Search(context.Background(), "other", "dentist", 0, 0)
	if err != nil || len(hits) != 0 {
		t.Errorf("Search of an agent without memory = %v, %v; want no hits", hits, err)
	}
}

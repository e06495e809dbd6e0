package tools_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/agent"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/untrusted"
)

// TestMaxResultBytesIsTheLoops: the budget tools keep under is the agent
// loop's cut.
func TestMaxResultBytesIsTheLoops(t *testing.T) {
	if tools.MaxResultBytes != agent.DefaultMaxToolResultBytes {
		t.Fatalf("tools.MaxResultBytes = %d; the loop cuts at %d", tools.MaxResultBytes, agent.DefaultMaxToolResultBytes)
	}
}

// TestFitted: items are kept from the front or the back until the budget,
// at least one.
func TestFitted(t *testing.T) {
	items := []string{strings.Repeat("a", 10), strings.Repeat("b", 10), strings.Repeat("c", 10)} // 12 bytes encoded, +1 each
	tests := []struct {
		name        string
		budget      int
		fromEnd     bool
		want        []string
		wantDropped int
	}{
		{"all fit", 100, false, items, 0},
		{"the front", 27, false, items[:2], 1},
		{"the back", 27, true, items[1:], 1},
		{"at least one", 1, true, items[2:], 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, dropped, err := tools.Fitted(items, tt.budget, tt.fromEnd)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, r := range raw {
				var s string
				_ = json.Unmarshal(r, &s)
				got = append(got, s)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || dropped != tt.wantDropped {
				t.Errorf("kept (-want +got):\n%s dropped %d; want %d", diff, dropped, tt.wantDropped)
			}
		})
	}
}

// TestFitUntrusted: the result fits the budget and the envelope is closed
// exactly once, at the end, however long the body.
func TestFitUntrusted(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		wantCut bool
	}{
		{"short body kept whole", "hello", false},
		{"long body cut", strings.Repeat("é", 20000), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := tools.FitUntrusted("Note.", "test", tt.body, 1000)
			if len(out) > 1000 && tt.wantCut {
				t.Errorf("%d bytes; want at most 1000", len(out))
			}
			if strings.Count(out, untrusted.EndMarker) != 1 || !strings.HasSuffix(out, untrusted.EndMarker) {
				t.Errorf("the envelope is not closed once at the end: %q", out[max(0, len(out)-100):])
			}
			if got := strings.Contains(out, "cut to fit"); got != tt.wantCut {
				t.Errorf("says cut %v; want %v", got, tt.wantCut)
			}
		})
	}
}

// TestJSONResult encodes the result object.
func TestJSONResult(t *testing.T) {
	got, err := tools.JSONResult(map[string]int{"count": 2})
	if err != nil || got != `{"count":2}` {
		t.Fatalf("JSONResult = %q, %v", got, err)
	}
	if _, err := tools.JSONResult(func() {}); err == nil {
		t.Fatal("a function encoded without error")
	}
}

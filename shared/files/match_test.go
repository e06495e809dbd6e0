package files

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/fault"
)

// bigFile is n lines "line <i>", each followed by pad.
func bigFile(n int, pad string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %d%s\n", i, pad)
	}
	return b.String()
}

// everyKth is a hunk per k-th line of bigFile(n, ""): two lines of
// context, the line replaced.
func everyKth(n, k int, anchored bool) []Hunk {
	var hunks []Hunk
	for i := 2; i < n; i += k {
		h := Hunk{Old: []string{fmt.Sprintf("line %d", i-2), fmt.Sprintf("line %d", i-1), fmt.Sprintf("line %d", i)},
			New: []string{fmt.Sprintf("line %d", i-2), fmt.Sprintf("line %d", i-1), fmt.Sprintf("LINE %d", i)}}
		if anchored {
			h.Anchor, h.Old, h.New = h.Old[0], h.Old[1:], h.New[1:]
		}
		hunks = append(hunks, h)
	}
	return hunks
}

// everyKthWant is bigFile(n, pad) after everyKth(n, k, false): the
// hunks' context lines are written as the hunks have them, unpadded.
func everyKthWant(n, k int, pad string) string {
	var b strings.Builder
	for i := range n {
		switch {
		case i >= 2 && (i-2)%k == 0:
			fmt.Fprintf(&b, "LINE %d\n", i)
		case i%k == 0 && i+2 < n, i%k == 1 && i+1 < n:
			fmt.Fprintf(&b, "line %d\n", i)
		default:
			fmt.Fprintf(&b, "line %d%s\n", i, pad)
		}
	}
	return b.String()
}

// TestPatchLinesBounded: hunks on a 50,000-line file are found in work
// linear in the file and the patch, and a patch built to make every hunk
// scan the rest of the file stops at maxMatchSteps with an error instead
// of running for minutes. The old matcher compared lines from every
// position with both normalisations, and rebuilt the file per hunk.
func TestPatchLinesBounded(t *testing.T) {
	const n = 50_000
	// Each hunk's context exists exactly, but never adjacent in this
	// order: every hunk's exact pass scans the rest of the file.
	var adversarial []Hunk
	var tail strings.Builder
	tail.WriteString(bigFile(n, " "))
	for i := range 2000 {
		a, b := fmt.Sprintf("line %d", 2*i), fmt.Sprintf("line %d", 2*i+1)
		fmt.Fprintf(&tail, "%s\n%s\n", b, a)
		adversarial = append(adversarial, Hunk{Old: []string{a, b}, New: []string{a, b}})
	}
	tests := []struct {
		name      string
		content   string
		hunks     []Hunk
		want      string // "" with wantErr
		wantErr   bool
		maxSteps  int
		wantSteps string
	}{
		{name: "2,500 hunks found in order", content: bigFile(n, ""), hunks: everyKth(n, 20, false),
			want: everyKthWant(n, 20, ""), maxSteps: 4 * (n + 3*2500)},
		{name: "2,500 anchored hunks", content: bigFile(n, ""), hunks: everyKth(n, 20, true),
			want: everyKthWant(n, 20, ""), maxSteps: 4 * (n + 3*2500)},
		{name: "every hunk needs the trailing-whitespace pass", content: bigFile(n, "  "), hunks: everyKth(n, 20, false),
			want: everyKthWant(n, 20, "  "), maxSteps: 4 * (n + 3*2500)},
		{name: "a hunk matching almost everywhere but the end", content: strings.Repeat("x\n", n) + "y\n",
			hunks: []Hunk{{Old: append(strings.Split(strings.Repeat("x", 500), ""), "y"), New: []string{"z"}}},
			want:  strings.Repeat("x\n", n-500) + "z\n", maxSteps: 4 * (n + 501)},
		{name: "hunks built to scan the whole file each stop at the bound", content: tail.String(), hunks: adversarial,
			wantErr: true, maxSteps: maxMatchSteps + 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, steps, err := patchLines("f.md", tt.content, tt.hunks)
			if tt.wantErr {
				if !fault.Is(err, fault.Invalid) || !strings.Contains(err.Error(), "split it") {
					t.Fatalf("patchLines error = %v; want fault.Invalid asking to split the patch", err)
				}
			} else if err != nil || got != tt.want {
				t.Fatalf("patchLines = %d bytes, %v; want %d bytes (the expected edit)", len(got), err, len(tt.want))
			}
			if steps > tt.maxSteps {
				t.Errorf("patchLines took %d steps; want at most %d (linear in the file and the patch)", steps, tt.maxSteps)
			}
		})
	}
}

// TestPatchLinesMatchesNaive: the indexed matcher finds what the simple
// scan (exact at every position, then ignoring trailing whitespace)
// finds, on random small files and hunks.
func TestPatchLinesMatchesNaive(t *testing.T) {
	words := []string{"a", "a ", "b", "b\t", "c", ""}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = words[r.IntN(len(words))]
		}
		return out
	}
	for i := range 5000 {
		lines := pick(r.IntN(12))
		content := ""
		if len(lines) > 0 {
			content = strings.Join(lines, "\n") + "\n"
		}
		var hunks []Hunk
		for range r.IntN(4) {
			h := Hunk{Old: pick(r.IntN(3)), New: pick(r.IntN(3)), AtEOF: r.IntN(4) == 0}
			if r.IntN(3) == 0 {
				h.Anchor = strings.TrimSpace(words[r.IntN(len(words))])
			}
			hunks = append(hunks, h)
		}
		want, wantErr := naiveApplyHunks(content, hunks)
		got, _, err := patchLines("f", content, hunks)
		if got != want || (err == nil) != (wantErr == nil) {
			t.Fatalf("case %d: content %q hunks %+v: patchLines = %q, %v; the simple scan gives %q, %v", i, content, hunks, got, err, want, wantErr)
		}
	}
}

// naiveApplyHunks is the simple matcher the indexed one replaces, kept as
// the reference for what a hunk matches.
func naiveApplyHunks(content string, hunks []Hunk) (string, error) {
	lines := splitLines(content)
	at := 0
	for _, h := range hunks {
		if h.Anchor != "" {
			i := naiveFind(lines, []string{h.Anchor}, at, false)
			if i < 0 {
				return "", fmt.Errorf("anchor not found")
			}
			at = i + 1
		}
		i := naiveFind(lines, h.Old, at, h.AtEOF)
		if i < 0 {
			return "", fmt.Errorf("hunk not found")
		}
		lines = append(lines[:i:i], append(append([]string(nil), h.New...), lines[i+len(h.Old):]...)...)
		at = i + len(h.New)
	}
	if len(lines) == 0 {
		return "", nil
	}
	return strings.Join(lines, "\n") + "\n", nil
}

func naiveFind(lines, old []string, from int, atEOF bool) int {
	if len(old) == 0 {
		return len(lines)
	}
	for _, norm := range []func(string) string{exact, rightTrim} {
		for i := from; i+len(old) <= len(lines); i++ {
			if atEOF && i+len(old) != len(lines) {
				continue
			}
			same := true
			for k := range old {
				if norm(lines[i+k]) != norm(old[k]) {
					same = false
					break
				}
			}
			if same {
				return i
			}
		}
	}
	return -1
}

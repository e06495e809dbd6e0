package blockchunk

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCut(t *testing.T) {
	tests := []struct {
		name       string
		text       string
		rule       Rule
		final      bool
		wantBlocks []string
		wantUsed   int
	}{
		{"short text waits", "Hello there.", Rule{Min: 5, Max: 20, Preference: Paragraph}, false, nil, 0},
		{"short text, final", "Hello there.", Rule{Min: 5, Max: 20, Preference: Paragraph}, true, []string{"Hello there."}, 12},
		{"cut after the paragraph", "One two.\n\nThree four five six", Rule{Min: 4, Max: 20, Preference: Paragraph}, false,
			[]string{"One two.\n\n"}, 10},
		{"no paragraph: a sentence", "One two. Three four five six seven", Rule{Min: 4, Max: 20, Preference: Paragraph}, false,
			[]string{"One two. ", "Three four five six "}, 29},
		{"sentence preferred over newline", "Ab cd.\nEf gh. Ij kl mn op", Rule{Min: 2, Max: 16, Preference: Sentence}, false,
			[]string{"Ab cd.\nEf gh. "}, 14},
		{"a break before min is not taken", "Ab.\n\nCdefghij klmnop qrstuv", Rule{Min: 8, Max: 16, Preference: Paragraph}, false,
			[]string{"Ab.\n\nCdefghij "}, 14},
		{"no break at all: hard at max", "abcdefghijklmnopqrstuvwxyz", Rule{Min: 2, Max: 10}, false,
			[]string{"abcdefghij", "klmnopqrst"}, 20},
		{"runes, not bytes", "ééééééééééé", Rule{Min: 2, Max: 5}, true,
			[]string{"ééééé", "ééééé", "é"}, len("ééééééééééé")},
		{"whitespace left over is no block", "abcde   ", Rule{Min: 1, Max: 5}, true, []string{"abcde"}, 8},
		{"a bad rule is made sane", "abc", Rule{Min: 9, Max: 0}, true, []string{"a", "b", "c"}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			blocks, used := Cut(tc.text, tc.rule, tc.final)
			if diff := cmp.Diff(tc.wantBlocks, blocks); diff != "" {
				t.Errorf("blocks (-want +got):\n%s", diff)
			}
			if used != tc.wantUsed {
				t.Errorf("used %d, want %d", used, tc.wantUsed)
			}
		})
	}
}

// TestCutIsIndependentOfDeltas: cutting as the text grows, delta by
// delta, gives the blocks cutting the whole text gives, and the blocks
// are the text (nothing lost, nothing repeated).
func TestCutIsIndependentOfDeltas(t *testing.T) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 12) + "\n\nAnd then it slept.\n" + strings.Repeat("zz ", 40)
	rule := Rule{Min: 30, Max: 80, Preference: Paragraph}
	whole, _ := Cut(text, rule, true)
	for _, step := range []int{1, 3, 7, 50} {
		var got []string
		used := 0
		for end := step; ; end += step {
			end = min(end, len(text))
			blocks, n := Cut(text[used:end], rule, end == len(text))
			got = append(got, blocks...)
			used += n
			if end == len(text) {
				break
			}
		}
		if diff := cmp.Diff(whole, got); diff != "" {
			t.Errorf("deltas of %d bytes (-whole +grown):\n%s", step, diff)
		}
	}
	if strings.Join(whole, "") != text {
		t.Errorf("the blocks are not the text")
	}
}

func FuzzCut(f *testing.F) {
	f.Add("One two.\n\nThree four five six", 4, 20)
	f.Add("ééé abc", 1, 2)
	f.Fuzz(func(t *testing.T, text string, lo, hi int) {
		r := Rule{Min: lo % 500, Max: hi % 500, Preference: Sentence}
		blocks, used := Cut(text, r, true)
		if used != len(text) {
			t.Fatalf("final cut used %d of %d bytes", used, len(text))
		}
		if j := strings.Join(blocks, ""); strings.TrimSpace(j) != strings.TrimSpace(text) && !strings.HasPrefix(text, j) {
			t.Fatalf("blocks %q are not the text %q", blocks, text)
		}
	})
}

package files

import (
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
)

// maxMatchSteps bounds the line comparisons one file's hunks may cost.
// Hunks found one after the other cost about twice the file's lines plus
// the hunks' lines: under 4M for the largest file and patch allowed
// (MaxFileBytes, MaxPatchBytes). Only a patch built to defeat the
// matcher (many hunks, each found only after a scan of the whole rest of
// the file) gets near the bound; at a few ns a step it is well under a
// second of a runner's core.
const maxMatchSteps = 1 << 25

// matcher finds hunk lines in a file's lines, exactly first, then
// ignoring trailing whitespace. Lines are interned to ints (one table per
// comparison), so a search is a KMP scan over ints: linear in the lines
// scanned, never lines scanned times hunk lines. Steps counts the
// comparisons, bounded by maxMatchSteps.
type matcher struct {
	n      int
	passes [2]lineIndex // exact, then without trailing whitespace
	steps  int
}

// lineIndex is a file's lines under one normalisation: each line's id,
// and per id the last line that holds it.
type lineIndex struct {
	norm func(string) string
	ids  []int
	byID map[string]int
	last []int
}

func exact(s string) string     { return s }
func rightTrim(s string) string { return strings.TrimRight(s, " \t") }

// newMatcher indexes lines.
func newMatcher(lines []string) *matcher {
	return &matcher{n: len(lines), passes: [2]lineIndex{newLineIndex(lines, exact), newLineIndex(lines, rightTrim)}}
}

func newLineIndex(lines []string, norm func(string) string) lineIndex {
	x := lineIndex{norm: norm, ids: make([]int, len(lines)), byID: map[string]int{}}
	for i, l := range lines {
		l = norm(l)
		id, ok := x.byID[l]
		if !ok {
			id = len(x.last)
			x.byID[l] = id
			x.last = append(x.last, 0)
		}
		x.ids[i], x.last[id] = id, i
	}
	return x
}

// pattern is old as ids; ok is false when a line of old occurs nowhere at
// or after from, so old cannot match there.
func (x lineIndex) pattern(old []string, from int) ([]int, bool) {
	pat := make([]int, len(old))
	for k, l := range old {
		id, ok := x.byID[x.norm(l)]
		if !ok || x.last[id] < from {
			return nil, false
		}
		pat[k] = id
	}
	return pat, true
}

// find returns the index of old in the lines at or after from (at the end
// when atEOF), or -1; an empty old matches at the end of the file. An
// exact match anywhere wins over one ignoring trailing whitespace. The
// error is fault.Invalid once the file's hunks have cost maxMatchSteps.
func (m *matcher) find(old []string, from int, atEOF bool) (int, error) {
	if len(old) == 0 {
		return m.n, nil
	}
	for _, x := range m.passes {
		pat, ok := x.pattern(old, from)
		if !ok {
			continue
		}
		i, err := m.search(x.ids, pat, from, atEOF)
		if i >= 0 || err != nil {
			return i, err
		}
	}
	return -1, nil
}

// search finds pat in text at or after from (only at the end when
// atEOF) by KMP, counting steps.
func (m *matcher) search(text, pat []int, from int, atEOF bool) (int, error) {
	if atEOF {
		from = max(from, len(text)-len(pat))
	}
	fail := m.failure(pat)
	k := 0
	for i := from; i < len(text); i++ {
		for k > 0 && text[i] != pat[k] {
			k = fail[k-1]
			m.steps++
		}
		m.steps++
		if text[i] == pat[k] {
			k++
		}
		if k == len(pat) {
			return i - k + 1, nil
		}
		if m.steps > maxMatchSteps {
			return -1, fault.New(fault.Invalid, "the patch's hunks took over %d line comparisons to find; split it into smaller patches, each hunk with a few lines of unique context", maxMatchSteps)
		}
	}
	return -1, nil
}

// failure is KMP's table: fail[k] is the length of the longest proper
// prefix of pat[:k+1] that is also its suffix.
func (m *matcher) failure(pat []int) []int {
	fail := make([]int, len(pat))
	for k, j := 1, 0; k < len(pat); k++ {
		for j > 0 && pat[k] != pat[j] {
			j = fail[j-1]
			m.steps++
		}
		m.steps++
		if pat[k] == pat[j] {
			j++
		}
		fail[k] = j
	}
	return fail
}

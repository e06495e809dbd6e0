// Package blockchunk cuts a streamed answer into the blocks a chat channel
// receives while the model is still writing (block streaming). It is core
// and pure: the cuts depend on the text only, never on how it arrived in
// deltas, so an answer streamed again (a retried turn) is cut the same way.
package blockchunk

import (
	"strings"
	"unicode/utf8"
)

// Preferences: where a block is preferably cut (after the break).
const (
	Paragraph = "paragraph" // a blank line
	Newline   = "newline"   // a line end
	Sentence  = "sentence"  // ". ", "! ", "? " or one of them ending a line
)

// Rule is how text is cut: a block holds at least Min and at most Max
// characters (runes), cut after the last break of Preference in that
// range, else after the last weaker break (paragraph, newline, sentence,
// then a space), else hard at Max.
type Rule struct {
	Min, Max   int
	Preference string
}

// Cut returns the blocks complete at the start of text and how many bytes
// of text they use (each block is text's bytes as they are, its
// surrounding whitespace included; the caller trims what it sends). A
// block is complete once Max characters follow its start; with final (the
// text will not grow) the rest is cut too, the last block being whatever
// is left. A bad rule (Max < 1, Min > Max) is made sane: Max at least 1,
// Min at most Max.
func Cut(text string, r Rule, final bool) (blocks []string, used int) {
	r.Max = max(r.Max, 1)
	r.Min = min(max(r.Min, 1), r.Max)
	for rest := text[used:]; rest != ""; rest = text[used:] {
		end, full := byteAt(rest, r.Max) // the first Max characters
		if !full {
			if !final {
				break
			}
			if strings.TrimSpace(rest) != "" {
				blocks = append(blocks, rest)
			}
			used = len(text)
			break
		}
		start, _ := byteAt(rest, r.Min)
		cut := breakIn(rest[:end], start, r.Preference)
		blocks = append(blocks, rest[:cut])
		used += cut
	}
	return blocks, used
}

// byteAt is the byte offset after the first n runes of s, and whether s
// has that many.
func byteAt(s string, n int) (int, bool) {
	i := 0
	for range n {
		if i >= len(s) {
			return len(s), false
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i, true
}

// breaks are the breaks of each preference, strongest first.
var breaks = []struct {
	name string
	seps []string
}{
	{Paragraph, []string{"\n\n"}},
	{Newline, []string{"\n"}},
	{Sentence, []string{". ", "! ", "? ", ".\n", "!\n", "?\n"}},
	{"space", []string{" "}},
}

// breakIn is where window is cut: after the last break at or past from,
// trying pref first and then the weaker ones; len(window) when none.
func breakIn(window string, from int, pref string) int {
	begin := 0
	for i, b := range breaks {
		if b.name == pref {
			begin = i
		}
	}
	for _, b := range breaks[begin:] {
		best := -1
		for _, sep := range b.seps {
			if i := strings.LastIndex(window, sep); i >= 0 && i+len(sep) > from {
				best = max(best, i+len(sep))
			}
		}
		if best > 0 {
			return best
		}
	}
	return len(window)
}

package memory

import (
	"math"
	"slices"
	"strings"
	"unicode"
)

// BM25 parameters: k1 saturates term frequency, b normalises by chunk
// length against the average (Robertson and Zaragoza's usual values).
const (
	k1 = 1.2
	b  = 0.75
)

// maxChunkLines is the longest chunk: a longer paragraph is cut into
// windows of this many lines.
const maxChunkLines = 20

// chunk is a searchable piece of one memory file.
type chunk struct {
	path      string
	startLine int // 1-based, inclusive
	endLine   int // inclusive
	text      string
	terms     map[string]int // term frequencies
	length    int            // number of tokens
}

// corpus is a BM25 index over chunks: document frequencies and the average
// chunk length. It is immutable once built and safe for concurrent reads.
type corpus struct {
	chunks []chunk
	df     map[string]int
	avgLen float64
}

// tokenize splits text into lowercase words: maximal runs of Unicode
// letters and digits. There is no stemming and no stop list; BM25's IDF
// already weighs common words down.
func tokenize(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// chunkFile cuts a file into paragraphs (runs of non-blank lines) with
// their 1-based line ranges; a paragraph longer than maxChunkLines becomes
// windows of that many lines, and a paragraph made only of Markdown
// headings joins the paragraph after it, so a heading is found with its
// text.
func chunkFile(p, content string) []chunk {
	lines := strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n")
	var out []chunk
	start := -1 // first line of the pending paragraph, 0-based
	flush := func(end int) {
		for end > start && strings.TrimSpace(lines[end-1]) == "" {
			end-- // a heading's blank lines before the end of the file
		}
		for s := start; s < end; s += maxChunkLines {
			e := min(s+maxChunkLines, end)
			out = append(out, newChunk(p, s+1, lines[s:e]))
		}
		start = -1
	}
	for i, line := range lines {
		blank := strings.TrimSpace(line) == ""
		switch {
		case !blank && start < 0:
			start = i
		case blank && start >= 0 && !headingsOnly(lines[start:i]):
			flush(i)
		}
	}
	if start >= 0 {
		flush(len(lines))
	}
	return out
}

// headingsOnly reports whether every non-blank line is a Markdown heading.
func headingsOnly(lines []string) bool {
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

// newChunk is the chunk of lines starting at 1-based line first.
func newChunk(p string, first int, lines []string) chunk {
	text := strings.TrimRight(strings.Join(lines, "\n"), "\n ")
	c := chunk{path: p, startLine: first, endLine: first + len(lines) - 1, text: text, terms: map[string]int{}}
	for _, t := range tokenize(text) {
		c.terms[t]++
		c.length++
	}
	return c
}

// newCorpus indexes chunks.
func newCorpus(chunks []chunk) *corpus {
	c := &corpus{chunks: chunks, df: map[string]int{}}
	total := 0
	for _, ch := range chunks {
		total += ch.length
		for t := range ch.terms {
			c.df[t]++
		}
	}
	if len(chunks) > 0 {
		c.avgLen = float64(total) / float64(len(chunks))
	}
	return c
}

// idf is the BM25 inverse document frequency in Lucene's non-negative
// form: ln(1 + (N − df + 0.5) / (df + 0.5)).
func (c *corpus) idf(term string) float64 {
	n, df := float64(len(c.chunks)), float64(c.df[term])
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// score is the BM25 score of chunk ch for the distinct query terms: the
// sum over terms of idf · tf·(k1+1) / (tf + k1·(1 − b + b·len/avgLen)).
func (c *corpus) score(ch chunk, terms []string) float64 {
	var s float64
	norm := k1 * (1 - b + b*float64(ch.length)/c.avgLen)
	for _, t := range terms {
		tf := float64(ch.terms[t])
		if tf == 0 {
			continue
		}
		s += c.idf(t) * tf * (k1 + 1) / (tf + norm)
	}
	return s
}

// scored is a chunk's index in the corpus and its score.
type scored struct {
	i     int
	score float64
}

// rank returns the chunks matching at least one query term with a score
// of at least minScore, best first (ties: path, then line), at most limit.
func (c *corpus) rank(query string, limit int, minScore float64) []scored {
	terms := slices.Compact(slices.Sorted(slices.Values(tokenize(query))))
	if len(terms) == 0 || len(c.chunks) == 0 {
		return nil
	}
	var hits []scored
	for i, ch := range c.chunks {
		if s := c.score(ch, terms); s > 0 && s >= minScore {
			hits = append(hits, scored{i, s})
		}
	}
	slices.SortStableFunc(hits, func(x, y scored) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		return 0 // chunks are in path, then line order already
	})
	return hits[:min(limit, len(hits))]
}

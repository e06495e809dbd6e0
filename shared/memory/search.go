package memory

import (
	"cmp"
	"context"
	"strings"

	"github.com/zero-gateway/zero/shared/fault"
)

// Limits of Search and Get results.
const (
	DefaultResults  = 6        // Search's limit when none is given
	MaxResults      = 20       // the largest limit Search honours
	MaxSnippetChars = 700      // one hit's snippet, in characters
	DefaultGetLines = 200      // Get's line count when none is given
	MaxGetLines     = 500      // the most lines one Get returns
	MaxGetBytes     = 12 << 10 // the most text one Get returns, in bytes (UTF-8)
	MaxQueryChars   = 1_000    // a longer query is cut
)

// Hit is one search result: a chunk of a memory file.
type Hit struct {
	Path      string  `json:"path"`      // workspace path: MEMORY.md or memory/….md
	StartLine int     `json:"startLine"` // 1-based, inclusive
	EndLine   int     `json:"endLine"`   // inclusive
	Score     float64 `json:"score"`     // BM25; higher is better, unbounded
	Snippet   string  `json:"snippet"`   // the chunk's text, cut to MaxSnippetChars
}

// Search ranks the agent's memory chunks against query by BM25 and returns
// at most limit hits (0 means DefaultResults; above MaxResults, MaxResults)
// whose score is at least minScore, best first. Only chunks sharing a word
// with the query are hits; a query without words is fault.Invalid, and an
// agent without memory files has no hits.
func (x *Index) Search(ctx context.Context, agentID, query string, limit int, minScore float64) ([]Hit, error) {
	query = cutRunes(query, MaxQueryChars)
	if len(tokenize(query)) == 0 {
		return nil, fault.New(fault.Invalid, "memory: the query has no words to search for")
	}
	if limit <= 0 {
		limit = DefaultResults
	}
	_, c, err := x.load(ctx, agentID)
	if err != nil {
		return nil, err
	}
	var hits []Hit
	for _, s := range c.rank(query, min(limit, MaxResults), minScore) {
		ch := c.chunks[s.i]
		hits = append(hits, Hit{Path: ch.path, StartLine: ch.startLine, EndLine: ch.endLine, Score: s.score, Snippet: cutRunes(ch.text, MaxSnippetChars)})
	}
	return hits, nil
}

// Excerpt is the text Get returns: lines From..To of the file at Path.
type Excerpt struct {
	Path       string `json:"path"`
	From       int    `json:"from"`       // first line, 1-based
	To         int    `json:"to"`         // last line returned, inclusive
	TotalLines int    `json:"totalLines"` // lines in the whole file
	Text       string `json:"text"`
	Truncated  bool   `json:"truncated,omitempty"` // ended before the lines asked for, at MaxGetBytes
}

// Get returns lines from..from+lines−1 of a memory file (from 0 means 1;
// lines 0 means DefaultGetLines, at most MaxGetLines). The text ends at the
// last whole line within MaxGetBytes (Truncated, To that line; a first line
// longer than that is cut), so from=To+1 reads on.
// The path is checked by CleanPath: anything but MEMORY.md or
// memory/**/*.md is fault.Invalid. A memory file that does not exist is
// fault.NotFound; from past the end of the file is fault.Invalid.
func (x *Index) Get(ctx context.Context, agentID, rawPath string, from, lines int) (Excerpt, error) {
	p, err := CleanPath(rawPath)
	if err != nil {
		return Excerpt{}, err
	}
	if from < 0 || lines < 0 {
		return Excerpt{}, fault.New(fault.Invalid, "memory: from and lines must be positive")
	}
	from, lines = max(from, 1), min(cmp.Or(lines, DefaultGetLines), MaxGetLines)
	files, _, err := x.load(ctx, agentID)
	if err != nil {
		return Excerpt{}, err
	}
	f, ok := files[p]
	if !ok {
		return Excerpt{}, fault.New(fault.NotFound, "memory: %s does not exist", p)
	}
	all := strings.Split(strings.TrimSuffix(strings.ReplaceAll(f.content, "\r\n", "\n"), "\n"), "\n")
	if from > len(all) {
		return Excerpt{}, fault.New(fault.Invalid, "memory: from %d is past the end of %s (%d lines)", from, p, len(all))
	}
	to := min(from+lines-1, len(all))
	text, last := fitLines(all[from-1:to], MaxGetBytes)
	return Excerpt{Path: p, From: from, To: from + last - 1, TotalLines: len(all), Text: text, Truncated: from+last-1 < to}, nil
}

// fitLines joins as many whole lines as fit in limit bytes and returns the
// text and how many lines it holds; a first line over limit is cut at a
// character boundary and counts as held.
func fitLines(lines []string, limit int) (string, int) {
	size := 0
	for i, l := range lines {
		if i > 0 {
			size++ // the newline
		}
		if size+len(l) > limit {
			if i == 0 {
				return strings.ToValidUTF8(l[:limit], ""), 1
			}
			return strings.Join(lines[:i], "\n"), i
		}
		size += len(l)
	}
	return strings.Join(lines, "\n"), len(lines)
}

// cutRunes returns s cut to at most n characters.
func cutRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

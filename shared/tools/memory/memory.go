// Package memory is group:memory's tools: memory_search (BM25 over the
// run's agent's MEMORY.md and memory/**/*.md) and memory_get (lines of one
// memory file), over the agent's memory index.
package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	memindex "github.com/zero-gateway/zero/shared/memory"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/tools"
)

// The tools' names.
const (
	SearchName = "memory_search"
	GetName    = "memory_get"
)

// Index is the agents' searchable memory (a shared/memory Index: each
// call lists the workspace once and rebuilds the agent's index only when
// a memory file changed).
type Index interface {
	Search(ctx context.Context, agentID, query string, limit int, minScore float64) ([]memindex.Hit, error)
	Get(ctx context.Context, agentID, path string, from, lines int) (memindex.Excerpt, error)
}

// callTimeout bounds one memory_search or memory_get: a listing and, when
// memory changed, the reads of the changed files.
const callTimeout = 20 * time.Second

// SearchTool is memory_search: BM25 over the agent's MEMORY.md and
// memory/**/*.md, returning path, line range, score and snippet.
type SearchTool struct {
	mem     Index
	agentID string
}

// NewSearchTool is memory_search over agentID's memory in mem.
func NewSearchTool(mem Index, agentID string) SearchTool {
	return SearchTool{mem: mem, agentID: agentID}
}

// searchArgs are memory_search's arguments.
type searchArgs struct {
	Query      string        `json:"query"`
	MaxResults *tools.Number `json:"maxResults"`
	MinScore   *tools.Number `json:"minScore"`
}

var searchSchema = fmt.Sprintf(`{"type":"object","properties":{`+
	`"query":{"type":"string","description":"words to look for in MEMORY.md and memory/**/*.md"},`+
	`"maxResults":{"type":"integer","minimum":1,"maximum":%d,"description":"at most this many hits (default %d)"},`+
	`"minScore":{"type":"number","minimum":0,"description":"drop hits scoring below this (BM25, unbounded; default 0)"}`+
	`},"required":["query"],"additionalProperties":false}`, memindex.MaxResults, memindex.DefaultResults)

// Spec implements tools.Tool.
func (SearchTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: SearchName,
		Description: "Search your long-term memory (MEMORY.md and memory/**/*.md in the workspace) by keywords, best match first. " +
			"Each hit has the file path, its line range, a BM25 score and a snippet; read more with memory_get.",
		Schema: json.RawMessage(searchSchema),
	}
}

// searchResult is memory_search's answer.
type searchResult struct {
	Count     int               `json:"count"`
	Results   []json.RawMessage `json:"results"`
	Truncated bool              `json:"truncated,omitempty"` // hits left out to fit the tool result size
}

// Run searches; a missing query or bad arguments are tool errors. Hits
// that do not fit the tool result budget are left out, and it says so.
func (s SearchTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a searchArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments must be {query: string, maxResults?: number, minScore?: number}: %v", err)
	}
	if strings.TrimSpace(a.Query) == "" {
		return "", fmt.Errorf("query is required: the words to look for")
	}
	minScore := 0.0
	if a.MinScore != nil {
		minScore = float64(*a.MinScore)
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	hits, err := s.mem.Search(ctx, s.agentID, a.Query, tools.Clamp(a.MaxResults, memindex.DefaultResults, 1, memindex.MaxResults), minScore)
	if err != nil {
		return "", fmt.Errorf("memory_search: %w", err)
	}
	kept, dropped, err := tools.Fitted(hits, tools.ResultBudget, false)
	if err != nil {
		return "", err
	}
	if kept == nil {
		kept = []json.RawMessage{}
	}
	return tools.JSONResult(searchResult{Count: len(kept), Results: kept, Truncated: dropped > 0})
}

// GetTool is memory_get: lines of one memory file, confined to MEMORY.md
// and memory/**/*.md.
type GetTool struct {
	mem     Index
	agentID string
}

// NewGetTool is memory_get over agentID's memory in mem.
func NewGetTool(mem Index, agentID string) GetTool { return GetTool{mem: mem, agentID: agentID} }

// getArgs are memory_get's arguments.
type getArgs struct {
	Path  string        `json:"path"`
	From  *tools.Number `json:"from"`
	Lines *tools.Number `json:"lines"`
}

var getSchema = fmt.Sprintf(`{"type":"object","properties":{`+
	`"path":{"type":"string","description":"MEMORY.md or memory/<file>.md, as memory_search returns it"},`+
	`"from":{"type":"integer","minimum":1,"description":"first line, 1-based (default 1)"},`+
	`"lines":{"type":"integer","minimum":1,"maximum":%d,"description":"how many lines (default %d)"}`+
	`},"required":["path"],"additionalProperties":false}`, memindex.MaxGetLines, memindex.DefaultGetLines)

// Spec implements tools.Tool.
func (GetTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: GetName,
		Description: "Read lines of a memory file (MEMORY.md or memory/**/*.md) by path and line range, " +
			"e.g. around a memory_search hit. Other workspace files cannot be read with it.",
		Schema: json.RawMessage(getSchema),
	}
}

// Run reads the lines; a path outside the memory files, a missing file or
// bad arguments are tool errors.
func (g GetTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a getArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments must be {path: string, from?: number, lines?: number}: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	ex, err := g.mem.Get(ctx, g.agentID, a.Path, tools.Clamp(a.From, 1, 1, 1<<30), tools.Clamp(a.Lines, memindex.DefaultGetLines, 1, memindex.MaxGetLines))
	if err != nil {
		return "", fmt.Errorf("memory_get: %w", err)
	}
	head := fmt.Sprintf("%s, lines %d-%d of %d:\n", ex.Path, ex.From, ex.To, ex.TotalLines)
	if ex.Truncated {
		return head + ex.Text + fmt.Sprintf("\n[cut at %d bytes; read on with from=%d]", memindex.MaxGetBytes, ex.To+1), nil
	}
	return head + ex.Text, nil
}

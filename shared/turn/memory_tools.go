package turn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/memory"
	"github.com/zero-gateway/zero/shared/model"
)

// Memory is the agent's searchable memory behind memory_search and
// memory_get (a memory.Index: each call lists the workspace once and
// rebuilds the agent's index only when a memory file changed). Without
// it, the two tools are not offered.
type Memory interface {
	Search(ctx context.Context, agentID, query string, limit int, minScore float64) ([]memory.Hit, error)
	Get(ctx context.Context, agentID, path string, from, lines int) (memory.Excerpt, error)
}

// memoryCallTimeout bounds one memory_search or memory_get: a listing and,
// when memory changed, the reads of the changed files.
const memoryCallTimeout = 20 * time.Second

const (
	memorySearchName = "memory_search"
	memoryGetName    = "memory_get"
)

// memorySearchTool is memory_search: BM25 over the run's agent's MEMORY.md
// and memory/**/*.md, returning path, line range, score and snippet.
type memorySearchTool struct {
	mem     Memory
	agentID string
}

// memorySearchArgs are memory_search's arguments.
type memorySearchArgs struct {
	Query      string  `json:"query"`
	MaxResults *number `json:"maxResults"`
	MinScore   *number `json:"minScore"`
}

var memorySearchSchema = fmt.Sprintf(`{"type":"object","properties":{`+
	`"query":{"type":"string","description":"words to look for in MEMORY.md and memory/**/*.md"},`+
	`"maxResults":{"type":"integer","minimum":1,"maximum":%d,"description":"at most this many hits (default %d)"},`+
	`"minScore":{"type":"number","minimum":0,"description":"drop hits scoring below this (BM25, unbounded; default 0)"}`+
	`},"required":["query"],"additionalProperties":false}`, memory.MaxResults, memory.DefaultResults)

func (memorySearchTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: memorySearchName,
		Description: "Search your long-term memory (MEMORY.md and memory/**/*.md in the workspace) by keywords, best match first. " +
			"Each hit has the file path, its line range, a BM25 score and a snippet; read more with memory_get.",
		Schema: json.RawMessage(memorySearchSchema),
	}
}

// memorySearchResult is memory_search's answer.
type memorySearchResult struct {
	Count     int               `json:"count"`
	Results   []json.RawMessage `json:"results"`
	Truncated bool              `json:"truncated,omitempty"` // hits left out to fit the tool result size
}

func (s memorySearchTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a memorySearchArgs
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
	ctx, cancel := context.WithTimeout(ctx, memoryCallTimeout)
	defer cancel()
	hits, err := s.mem.Search(ctx, s.agentID, a.Query, clamp(a.MaxResults, memory.DefaultResults, 1, memory.MaxResults), minScore)
	if err != nil {
		return "", fmt.Errorf("memory_search: %w", err)
	}
	kept, dropped, err := fitted(hits, toolResultBudget, false)
	if err != nil {
		return "", err
	}
	if kept == nil {
		kept = []json.RawMessage{}
	}
	return jsonResult(memorySearchResult{Count: len(kept), Results: kept, Truncated: dropped > 0})
}

// memoryGetTool is memory_get: lines of one memory file, confined to
// MEMORY.md and memory/**/*.md.
type memoryGetTool struct {
	mem     Memory
	agentID string
}

// memoryGetArgs are memory_get's arguments.
type memoryGetArgs struct {
	Path  string  `json:"path"`
	From  *number `json:"from"`
	Lines *number `json:"lines"`
}

var memoryGetSchema = fmt.Sprintf(`{"type":"object","properties":{`+
	`"path":{"type":"string","description":"MEMORY.md or memory/<file>.md, as memory_search returns it"},`+
	`"from":{"type":"integer","minimum":1,"description":"first line, 1-based (default 1)"},`+
	`"lines":{"type":"integer","minimum":1,"maximum":%d,"description":"how many lines (default %d)"}`+
	`},"required":["path"],"additionalProperties":false}`, memory.MaxGetLines, memory.DefaultGetLines)

func (memoryGetTool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: memoryGetName,
		Description: "Read lines of a memory file (MEMORY.md or memory/**/*.md) by path and line range, " +
			"e.g. around a memory_search hit. Other workspace files cannot be read with it.",
		Schema: json.RawMessage(memoryGetSchema),
	}
}

func (g memoryGetTool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a memoryGetArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments must be {path: string, from?: number, lines?: number}: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, memoryCallTimeout)
	defer cancel()
	ex, err := g.mem.Get(ctx, g.agentID, a.Path, clamp(a.From, 1, 1, 1<<30), clamp(a.Lines, memory.DefaultGetLines, 1, memory.MaxGetLines))
	if err != nil {
		return "", fmt.Errorf("memory_get: %w", err)
	}
	head := fmt.Sprintf("%s, lines %d-%d of %d:\n", ex.Path, ex.From, ex.To, ex.TotalLines)
	if ex.Truncated {
		return head + ex.Text + fmt.Sprintf("\n[cut at %d bytes; read on with from=%d]", memory.MaxGetBytes, ex.To+1), nil
	}
	return head + ex.Text, nil
}

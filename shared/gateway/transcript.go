package gateway

import (
	"context"
	"encoding/json"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cost"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/transcript"
)

// Limits of chat.transcript.
const (
	defaultTranscriptParts = 10
	maxTranscriptParts     = 50
)

// TranscriptParams are the params of chat.transcript.
type TranscriptParams struct {
	SessionKey string `json:"sessionKey,omitempty"` // default "main"
	SessionID  string `json:"sessionId,omitempty"`  // the session by id (not with SessionKey)
	// Before pages back: the parts (turns) before this seq; 0 or absent:
	// the newest.
	Before int64 `json:"before,omitempty"`
	// Parts is how many parts to return: default 10, at most 50.
	Parts *int `json:"parts,omitempty"`
}

// TranscriptResult is the result of chat.transcript.
type TranscriptResult struct {
	SessionKey string           `json:"sessionKey"`
	SessionID  string           `json:"sessionId"`
	TotalParts int64            `json:"totalParts"` // the session's parts (one per turn)
	Parts      []TranscriptPart `json:"parts"`      // oldest first; [] when none
	// NextBefore is the Before of the next older page; 0 when the first
	// part is in this one.
	NextBefore int64 `json:"nextBefore"`
}

// TranscriptPart is one turn's transcript lines: its message lines and
// its compaction markers (with their summary), in the JSONL format.
type TranscriptPart struct {
	Seq   int64            `json:"seq"`
	Lines []TranscriptLine `json:"lines"`
}

// TranscriptLine is one JSONL line as stored, plus what the gateway
// computes for it.
type TranscriptLine struct {
	transcript.Line
	// CostUSD is the price of an assistant message's tokens: usage.input
	// and usage.output at its model's configured price
	// (models.providers.<provider>.models[].cost, USD per million
	// tokens; cache reads and writes are not priced). Absent when the
	// line is not an assistant message with usage, or its model
	// (provider/model) has no configured price.
	CostUSD *float64 `json:"costUsd,omitempty"`
}

// chatTranscript pages through a session's transcript a turn at a time,
// newest first, for the control page's transcript viewer: each part's
// "message" lines (user, assistant and toolResult, with usage) and
// "compaction" lines (summary, tokensBefore), which chat.history leaves
// out, with each priced assistant message's costUsd (TranscriptLine).
//
// Store calls: 1 Get (or 1 Lookup), then one part read per part returned
// (the transcript's whole stream when the reader has no parts).
func (g *gateway) chatTranscript(ctx context.Context, params json.RawMessage) (any, error) {
	var p TranscriptParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	n, err := p.count()
	if err != nil {
		return nil, err
	}
	cfg, key, e, err := g.transcriptSession(ctx, p.SessionKey, p.SessionID)
	if err != nil {
		return nil, err
	}
	res := TranscriptResult{SessionKey: session.Display(key, cfg.Keys()), SessionID: e.SessionID, TotalParts: e.TranscriptSeq, Parts: []TranscriptPart{}}
	if e.TranscriptSeq == 0 {
		return res, nil
	}
	res.Parts, res.NextBefore, err = g.readParts(ctx, session.TranscriptPath(key, e), e.TranscriptSeq, p.Before, n)
	for i := range res.Parts {
		priceLines(cfg, res.Parts[i].Lines)
	}
	return res, err
}

// priceLines sets CostUSD on the assistant messages of lines that have
// usage and a priced model.
func priceLines(cfg *config.Config, lines []TranscriptLine) {
	for i := range lines {
		m := lines[i].Message
		if m == nil || m.Role != model.Assistant || m.Usage == nil || m.Provider == "" || m.Model == "" {
			continue
		}
		price, ok := cfg.ModelCost(model.Ref{Provider: m.Provider, Name: m.Model})
		if !ok {
			continue
		}
		usd := cost.Tokens(m.Usage.Input, m.Usage.Output, price.Input, price.Output)
		lines[i].CostUSD = &usd
	}
}

// count validates Before and Parts and returns how many parts to read.
func (p TranscriptParams) count() (int, error) {
	if p.Before < 0 {
		return 0, invalidf("params.before: must be >= 0, got %d", p.Before)
	}
	if p.Parts == nil {
		return defaultTranscriptParts, nil
	}
	if *p.Parts < 1 {
		return 0, invalidf("params.parts: must be >= 1, got %d", *p.Parts)
	}
	return min(*p.Parts, maxTranscriptParts), nil
}

// readParts reads up to n parts before `before` (0: after the last, parts)
// of the transcript at path, oldest first, and the next page's before.
// Without a part reader the whole stream is one part.
func (g *gateway) readParts(ctx context.Context, path string, parts, before int64, n int) ([]TranscriptPart, int64, error) {
	pr, ok := g.Transcripts.(session.PartReader)
	if !ok {
		stream, err := g.Transcripts.Read(ctx, path)
		if err != nil {
			return nil, 0, err
		}
		return []TranscriptPart{{Seq: parts, Lines: shownLines(transcript.Lines(stream))}}, 0, nil
	}
	hi := parts
	if before > 0 {
		hi = min(before-1, parts)
	}
	lo := max(hi-int64(n)+1, 1)
	out := []TranscriptPart{}
	for seq := lo; seq <= hi; seq++ {
		lines, err := pr.Part(ctx, path, seq)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, TranscriptPart{Seq: seq, Lines: shownLines(lines)})
	}
	next := lo
	if lo <= 1 {
		next = 0
	}
	return out, next, nil
}

// shownLines keeps the message and compaction lines of lines.
func shownLines(lines []transcript.Line) []TranscriptLine {
	out := []TranscriptLine{}
	for _, l := range lines {
		if (l.Type == "message" && l.Message != nil) || l.Type == "compaction" {
			out = append(out, TranscriptLine{Line: l})
		}
	}
	return out
}

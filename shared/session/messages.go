package session

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/transcript"
)

// PartReader reads one part of a transcript (transcript.Log is one): a
// transcript is one part per turn, so the last messages of a long session
// cost a few part reads.
type PartReader interface {
	Part(ctx context.Context, path string, seq int64) ([]transcript.Line, error)
}

// PartWindow is how many parts LastMessages reads at once.
const PartWindow = 8

// LastMessages returns the message objects of the last n "message" lines
// of the transcript at path, which has parts 1..parts (the entry's
// TranscriptSeq), oldest first: user and assistant messages, and
// toolResult messages too with includeTools (compaction and other lines
// are not messages). It reads parts from the newest back, PartWindow at a
// time (concurrently), until it has n messages; a missing part (a
// transcript deleted by hand) ends the history there. parts 0 reads
// nothing.
func LastMessages(ctx context.Context, r PartReader, path string, parts int64, includeTools bool, n int) ([]json.RawMessage, error) {
	out := []json.RawMessage{}
	if parts <= 0 || n <= 0 {
		return out, nil
	}
	lines, err := lastLines(ctx, r, path, parts, includeTools, n)
	if err != nil {
		return nil, err
	}
	return ShownMessages(lines, includeTools, n)
}

// ShownMessages returns the message objects of the last n lines of lines
// (oldest first) that a history shows: user and assistant messages, and
// toolResult messages too with includeTools.
func ShownMessages(lines []transcript.Line, includeTools bool, n int) ([]json.RawMessage, error) {
	out := []json.RawMessage{}
	for _, l := range lines {
		if !shownMessage(l, includeTools) {
			continue
		}
		raw, err := json.Marshal(l.Message)
		if err != nil {
			return nil, fault.Wrap(fault.Internal, err, "encode a transcript message")
		}
		out = append(out, raw)
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out, nil
}

// shownMessage reports whether l is a message the history shows.
func shownMessage(l transcript.Line, includeTools bool) bool {
	if l.Type != "message" || l.Message == nil {
		return false
	}
	switch l.Message.Role {
	case "user", "assistant":
		return true
	case "toolResult":
		return includeTools
	}
	return false
}

// lastLines reads parts from parts down to 1, a window at a time, until
// the lines read hold n shown messages; it returns them oldest first.
func lastLines(ctx context.Context, r PartReader, path string, parts int64, includeTools bool, n int) ([]transcript.Line, error) {
	var newestFirst [][]transcript.Line // one entry per part
	found := 0
	for hi := parts; hi >= 1 && found < n; hi -= PartWindow {
		lo := max(hi-PartWindow+1, 1)
		window := make([][]transcript.Line, hi-lo+1)
		errs := make([]error, len(window))
		var wg sync.WaitGroup
		for i := range window {
			wg.Go(func() { window[i], errs[i] = r.Part(ctx, path, hi-int64(i)) })
		}
		wg.Wait()
		for i, lines := range window {
			switch {
			case fault.Is(errs[i], fault.NotFound):
				return oldestFirst(newestFirst), nil // older history is gone
			case errs[i] != nil:
				return nil, errs[i]
			}
			newestFirst = append(newestFirst, lines)
			for _, l := range lines {
				if shownMessage(l, includeTools) {
					found++
				}
			}
		}
	}
	return oldestFirst(newestFirst), nil
}

// oldestFirst joins parts given newest first into one list of lines,
// oldest first.
func oldestFirst(newestFirst [][]transcript.Line) []transcript.Line {
	var out []transcript.Line
	for i := len(newestFirst) - 1; i >= 0; i-- {
		out = append(out, newestFirst[i]...)
	}
	return out
}

package gateway

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/transcript"
)

// partReader is the optional capability of reading one transcript part
// (transcript.Log has it). With it, the last messages of a long session
// cost a few part reads instead of a read of every part: a transcript is
// one part per turn.
type partReader interface {
	Part(ctx context.Context, path string, seq int64) ([]transcript.Line, error)
}

// partWindow is how many parts are read at once when reading backwards.
const partWindow = 8

// readMessages returns the message objects of the last n "message" lines
// of the transcript at path, which has parts 1..parts (the entry's
// TranscriptSeq), oldest first: user and assistant messages, and
// toolResult messages too with includeTools. Compaction and other lines
// are not messages.
//
// With a partReader it reads parts from the newest back, partWindow at a
// time, until it has n messages; else it reads the whole transcript. A
// missing part (a transcript deleted by hand) ends the history there.
func (g *gateway) readMessages(ctx context.Context, path string, parts int64, includeTools bool, n int) ([]json.RawMessage, error) {
	var lines []transcript.Line
	if pr, ok := g.Transcripts.(partReader); ok && parts > 0 {
		var err error
		if lines, err = lastLines(ctx, pr, path, parts, includeTools, n); err != nil {
			return nil, err
		}
	} else {
		stream, err := g.Transcripts.Read(ctx, path)
		if err != nil {
			return nil, err
		}
		lines = transcript.Lines(stream)
	}
	out := []json.RawMessage{}
	for _, l := range lines {
		if !wanted(l, includeTools) {
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

// wanted reports whether l is a message chat.history shows.
func wanted(l transcript.Line, includeTools bool) bool {
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

// lastLines reads parts from parts down to 1, a window at a time (the
// window's reads run concurrently), until the lines read hold n wanted
// messages. It returns the lines oldest first.
func lastLines(ctx context.Context, pr partReader, path string, parts int64, includeTools bool, n int) ([]transcript.Line, error) {
	var newestFirst [][]transcript.Line // one entry per part
	found := 0
	for hi := parts; hi >= 1 && found < n; hi -= partWindow {
		lo := max(hi-partWindow+1, 1)
		window := make([][]transcript.Line, hi-lo+1)
		errs := make([]error, len(window))
		var wg sync.WaitGroup
		for i := range window {
			wg.Go(func() { window[i], errs[i] = pr.Part(ctx, path, hi-int64(i)) })
		}
		wg.Wait()
		for i, lines := range window {
			switch {
			case fault.Is(errs[i], fault.NotFound):
				return flatten(newestFirst), nil // older history is gone
			case errs[i] != nil:
				return nil, errs[i]
			}
			newestFirst = append(newestFirst, lines)
			for _, l := range lines {
				if wanted(l, includeTools) {
					found++
				}
			}
		}
	}
	return flatten(newestFirst), nil
}

// flatten joins parts given newest first into one list of lines, oldest
// first.
func flatten(newestFirst [][]transcript.Line) []transcript.Line {
	var out []transcript.Line
	for i := len(newestFirst) - 1; i >= 0; i-- {
		out = append(out, newestFirst[i]...)
	}
	return out
}

package gateway

import (
	"context"
	"encoding/json"

	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/transcript"
)

// readMessages returns the message objects of the last n "message" lines
// of the transcript at path, which has parts 1..parts (the entry's
// TranscriptSeq), oldest first (session.LastMessages). Without a part
// reader (transcript.Log is one) it reads the whole transcript.
func (g *gateway) readMessages(ctx context.Context, path string, parts int64, includeTools bool, n int) ([]json.RawMessage, error) {
	if pr, ok := g.Transcripts.(session.PartReader); ok {
		return session.LastMessages(ctx, pr, path, parts, includeTools, n)
	}
	stream, err := g.Transcripts.Read(ctx, path)
	if err != nil {
		return nil, err
	}
	return session.ShownMessages(transcript.Lines(stream), includeTools, n)
}

package model

import "context"

// TextSink receives the text of an answer as it is produced, one delta at
// a time, in order; the deltas of one call concatenate to its
// Response.Text. It is called on the caller's goroutine of Stream, never
// concurrently, and must not block for long (it runs between reads of the
// provider's stream).
type TextSink func(delta string)

// Streamer is a Client that can also stream an answer. Stream returns the
// same Response Complete would have for the same answer (text, tool calls
// assembled from their pieces, stop reason, usage), and errors are
// classified the same way. A failed or cancelled stream returns an error
// even when some deltas were already given to sink: the caller must treat
// those as a draft that never became an answer.
//
// Adapters implement it in their own stream.go; a caller reaches it
// through CompleteStreaming, which falls back to Complete.
type Streamer interface {
	Client
	Stream(ctx context.Context, req Request, sink TextSink) (Response, error)
}

// CompleteStreaming calls c.Stream when c streams and sink is not nil,
// else c.Complete; a client that does not stream gives sink its whole text
// as one delta once it has it, so a caller sees one contract.
func CompleteStreaming(ctx context.Context, c Client, req Request, sink TextSink) (Response, error) {
	if sink == nil {
		return c.Complete(ctx, req)
	}
	if s, ok := c.(Streamer); ok {
		return s.Stream(ctx, req, sink)
	}
	resp, err := c.Complete(ctx, req)
	if err == nil && resp.Text != "" {
		sink(resp.Text)
	}
	return resp, err
}

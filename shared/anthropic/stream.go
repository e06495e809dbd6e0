package anthropic

import (
	"context"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

var _ model.Streamer = (*Client)(nil)

// Stream implements model.Streamer with one streamed Messages call
// ("stream": true, server-sent events). Text deltas (text_delta) go to sink
// as they arrive; the events are folded into one message the way the API
// defines them (message_start, content blocks with their text, thinking and
// input_json deltas, message_delta's stop reason and usage) and mapped as
// Complete maps a whole answer (mapResponse). An error event or a broken
// stream is classified as Complete's errors are; a stream that ends
// without message_start or a stop reason is fault.Unavailable.
func (c *Client) Stream(ctx context.Context, req model.Request, sink model.TextSink) (model.Response, error) {
	params, err := buildParams(req, c.maxTokens)
	if err != nil {
		return model.Response{}, err
	}
	stream := c.messages.NewStreaming(ctx, params)
	defer stream.Close()
	var msg sdk.Message
	started := false
	for stream.Next() {
		ev := stream.Current()
		started = started || ev.Type == "message_start"
		if err := msg.Accumulate(ev); err != nil {
			return model.Response{}, fault.Wrap(fault.Unavailable, err, "the model provider's stream was malformed")
		}
		if ev.Type == "content_block_delta" && ev.Delta.Type == "text_delta" && ev.Delta.Text != "" && sink != nil {
			sink(ev.Delta.Text)
		}
	}
	if err := stream.Err(); err != nil {
		return model.Response{}, classify(err, c.apiKey)
	}
	if !started || msg.StopReason == "" {
		return model.Response{}, fault.New(fault.Unavailable, "the model provider's stream ended before its message did")
	}
	return mapResponse(&msg)
}

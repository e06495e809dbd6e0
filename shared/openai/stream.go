package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

var _ model.Streamer = (*Client)(nil)

// Stream implements model.Streamer with one streamed Chat Completions call
// ("stream": true, usage asked for in the last chunk). Text deltas go to
// sink as they arrive; tool calls are assembled from their pieces (by
// index) and the answer is mapped as Complete maps a whole one (see
// mapResponse): same text, tool calls, stop reason and usage. An error
// before the first chunk is classified as Complete's; a stream that breaks
// later is fault.Unavailable.
func (c *Client) Stream(ctx context.Context, req model.Request, sink model.TextSink) (model.Response, error) {
	params, err := buildParams(req, c.limit)
	if err != nil {
		return model.Response{}, err
	}
	params.StreamOptions = sdk.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)}
	var whole wholeAnswer
	stream := c.chat.NewStreaming(ctx, params, option.WithMiddleware(whole.capture))
	defer stream.Close()
	var acc chunkAccumulator
	for stream.Next() {
		if delta := acc.add(stream.Current()); delta != "" && sink != nil {
			sink(delta)
		}
	}
	if err := stream.Err(); err != nil {
		return model.Response{}, classify(err, c.apiKey)
	}
	if whole.body != nil {
		return whole.response(sink)
	}
	return acc.response()
}

// maxWholeAnswer bounds a whole completion read in place of a stream.
const maxWholeAnswer = 16 << 20

// wholeAnswer is the answer of a compatible server that ignores "stream"
// and answers a whole completion (application/json) instead of events:
// capture takes it off the SDK's stream decoder, and it is mapped as
// Complete maps it, its text going to sink in one piece.
type wholeAnswer struct{ body []byte }

// capture is an SDK middleware: a successful answer that is not an event
// stream is kept in w and replaced by an empty stream.
func (w *wholeAnswer) capture(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if err != nil || resp.StatusCode/100 != 2 || strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxWholeAnswer))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	w.body = body
	resp.Body = io.NopCloser(strings.NewReader(""))
	resp.Header.Set("Content-Type", "text/event-stream")
	return resp, nil
}

func (w *wholeAnswer) response(sink model.TextSink) (model.Response, error) {
	var completion sdk.ChatCompletion
	if err := json.Unmarshal(w.body, &completion); err != nil {
		return model.Response{}, fault.Wrap(fault.Unavailable, err, "the model provider's answer is neither an event stream nor a completion")
	}
	resp, err := mapResponse(&completion)
	if err == nil && resp.Text != "" && sink != nil {
		sink(resp.Text)
	}
	return resp, err
}

// chunkAccumulator assembles the first choice of a streamed completion.
type chunkAccumulator struct {
	chunks        int
	text, refusal strings.Builder
	thinking      strings.Builder
	calls         []model.ToolCall // by the chunks' tool call index
	finish        string
	usage         sdk.CompletionUsage
	sawChoice     bool
}

// add takes one chunk and returns its text delta ("" when it has none).
func (a *chunkAccumulator) add(ch sdk.ChatCompletionChunk) string {
	a.chunks++
	if ch.JSON.Usage.Valid() && ch.Usage.TotalTokens+ch.Usage.PromptTokens+ch.Usage.CompletionTokens > 0 {
		a.usage = ch.Usage
	}
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue
		}
		a.sawChoice = true
		if choice.FinishReason != "" {
			a.finish = choice.FinishReason
		}
		d := choice.Delta
		a.refusal.WriteString(d.Refusal)
		a.thinking.WriteString(deltaReasoning(d))
		for _, tc := range d.ToolCalls {
			a.addCall(tc)
		}
		a.text.WriteString(d.Content)
		return d.Content
	}
	return ""
}

// addCall merges one piece of a tool call: the first piece of an index
// carries its id and name, the others append to its arguments.
func (a *chunkAccumulator) addCall(tc sdk.ChatCompletionChunkChoiceDeltaToolCall) {
	i := int(tc.Index)
	if i < 0 || i > 127 { // a server's nonsense index; 128 parallel calls is far beyond any model
		return
	}
	for len(a.calls) <= i {
		a.calls = append(a.calls, model.ToolCall{})
	}
	c := &a.calls[i]
	if tc.ID != "" {
		c.ID = tc.ID
	}
	if tc.Function.Name != "" {
		c.Name = tc.Function.Name
	}
	c.Arguments += tc.Function.Arguments
}

// response is the assembled answer, mapped as mapResponse maps a whole one.
func (a *chunkAccumulator) response() (model.Response, error) {
	if !a.sawChoice {
		return model.Response{}, fault.New(fault.Unavailable, "the model provider returned no answer (no choices in %d chunks)", a.chunks)
	}
	if a.finish == "" {
		// A stream cut short (the connection dropped) is no answer: its
		// text is a draft, and the call may be retried.
		return model.Response{}, fault.New(fault.Unavailable, "the model provider's stream ended before the answer did (no finish reason)")
	}
	text := a.text.String()
	if text == "" {
		text = a.refusal.String()
	}
	var calls []model.ToolCall
	for i, c := range a.calls {
		if c.Name == "" && c.Arguments == "" {
			continue
		}
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d", i)
		}
		calls = append(calls, c)
	}
	stop := stopReason(a.finish)
	if len(calls) > 0 && stop == model.StopEnd {
		stop = model.StopToolUse
	}
	return model.Response{Text: text, Thinking: a.thinking.String(), ToolCalls: calls, StopReason: stop, Usage: mapUsage(a.usage)}, nil
}

// deltaReasoning is the reasoning text a compatible server put in a delta
// (see reasoningFields).
func deltaReasoning(d sdk.ChatCompletionChunkChoiceDelta) string {
	return reasoningIn(d.JSON.ExtraFields)
}

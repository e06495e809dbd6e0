package bedrock

import (
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
)

var _ model.Streamer = (*Client)(nil)

// Stream implements model.Streamer with one ConverseStream call (the AWS
// event-stream encoding; the identity needs
// bedrock:InvokeModelWithResponseStream). Text deltas go to sink as they
// arrive; blocks, tool calls (their input assembled from its pieces),
// the stop reason and usage (the metadata event) make the same Response
// Complete returns: text blocks joined by a blank line, which sink also
// gets between two text blocks. An exception event mid-stream is
// classified as Complete's errors are.
func (c *Client) Stream(ctx context.Context, req model.Request, sink model.TextSink) (model.Response, error) {
	in, err := buildInput(req)
	if err != nil {
		return model.Response{}, err
	}
	out, err := c.runtime.ConverseStream(ctx, streamInput(in), readOnlyBodies)
	if err != nil {
		return model.Response{}, classify(err, req.Model)
	}
	es := out.GetStream()
	defer es.Close()
	acc := streamAccumulator{sink: sink, blocks: map[int32]*streamBlock{}}
	for ev := range es.Events() {
		acc.add(ev)
	}
	// The metadata event is always the last: once it and messageStop
	// arrived the answer is whole, and a transport error reading past
	// them loses nothing.
	if err := es.Err(); err != nil && !acc.complete() {
		return model.Response{}, classify(err, req.Model)
	}
	if err := ctx.Err(); err != nil {
		return model.Response{}, model.TransportError(err)
	}
	if !acc.stopped {
		return model.Response{}, fault.New(fault.Unavailable, "Bedrock's stream ended before the message stopped")
	}
	return acc.response(), nil
}

// readOnlyBodies sends a ConverseStream request's body through its Read
// method only. Through the SDK body's WriteTo, the transport's write of
// the request could fail after a fast answer had begun (the SDK closes
// the body when the answer arrives), and the transport then closed the
// connection under the event stream being read: "use of closed network
// connection" a few events in (seen once in ten calls against a local
// server).
func readOnlyBodies(o *bedrockruntime.Options) {
	if o.HTTPClient != nil {
		o.HTTPClient = readOnlyBodyClient{o.HTTPClient}
	}
}

type readOnlyBodyClient struct{ next bedrockruntime.HTTPClient }

func (c readOnlyBodyClient) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = readOnlyBody{r.Body}
	}
	return c.next.Do(r)
}

// readOnlyBody hides every method of a body but Read and Close.
type readOnlyBody struct{ rc io.ReadCloser }

func (b readOnlyBody) Read(p []byte) (int, error) { return b.rc.Read(p) }
func (b readOnlyBody) Close() error               { return b.rc.Close() }

// streamInput is the ConverseStream request of a Converse request: the
// same fields (the guardrail is not used).
func streamInput(in *bedrockruntime.ConverseInput) *bedrockruntime.ConverseStreamInput {
	return &bedrockruntime.ConverseStreamInput{
		ModelId:                           in.ModelId,
		System:                            in.System,
		Messages:                          in.Messages,
		ToolConfig:                        in.ToolConfig,
		InferenceConfig:                   in.InferenceConfig,
		AdditionalModelRequestFields:      in.AdditionalModelRequestFields,
		AdditionalModelResponseFieldPaths: in.AdditionalModelResponseFieldPaths,
		OutputConfig:                      in.OutputConfig,
		PerformanceConfig:                 in.PerformanceConfig,
		PromptVariables:                   in.PromptVariables,
		RequestMetadata:                   in.RequestMetadata,
		ServiceTier:                       in.ServiceTier,
	}
}

// streamBlock is one content block being assembled.
type streamBlock struct {
	text, thinking, input strings.Builder
	toolID, toolName      string
	isTool                bool
}

// streamAccumulator folds ConverseStream events into one answer.
type streamAccumulator struct {
	sink      model.TextSink
	blocks    map[int32]*streamBlock
	order     []int32
	wroteText bool // a text delta went to sink: the next text block is preceded by "\n\n"
	stop      types.StopReason
	stopped   bool
	usage     *types.TokenUsage
	metadata  bool // the metadata event, the stream's last, arrived
}

// complete reports whether the stream's last events arrived.
func (a *streamAccumulator) complete() bool { return a.stopped && a.metadata }

func (a *streamAccumulator) block(i *int32) *streamBlock {
	idx := aws.ToInt32(i)
	b, ok := a.blocks[idx]
	if !ok {
		b = &streamBlock{}
		a.blocks[idx] = b
		a.order = append(a.order, idx)
	}
	return b
}

func (a *streamAccumulator) add(ev types.ConverseStreamOutput) {
	switch e := ev.(type) {
	case *types.ConverseStreamOutputMemberContentBlockStart:
		if tu, ok := e.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
			b := a.block(e.Value.ContentBlockIndex)
			b.isTool, b.toolID, b.toolName = true, aws.ToString(tu.Value.ToolUseId), aws.ToString(tu.Value.Name)
		}
	case *types.ConverseStreamOutputMemberContentBlockDelta:
		a.delta(e.Value.ContentBlockIndex, e.Value.Delta)
	case *types.ConverseStreamOutputMemberMessageStop:
		a.stop, a.stopped = e.Value.StopReason, true
	case *types.ConverseStreamOutputMemberMetadata:
		a.usage, a.metadata = e.Value.Usage, true
	}
}

func (a *streamAccumulator) delta(index *int32, d types.ContentBlockDelta) {
	b := a.block(index)
	switch v := d.(type) {
	case *types.ContentBlockDeltaMemberText:
		if v.Value == "" {
			return
		}
		if b.text.Len() == 0 && a.wroteText && a.sink != nil {
			a.sink("\n\n")
		}
		b.text.WriteString(v.Value)
		a.wroteText = true
		if a.sink != nil {
			a.sink(v.Value)
		}
	case *types.ContentBlockDeltaMemberToolUse:
		b.isTool = true
		b.input.WriteString(aws.ToString(v.Value.Input))
	case *types.ContentBlockDeltaMemberReasoningContent:
		if r, ok := v.Value.(*types.ReasoningContentBlockDeltaMemberText); ok {
			b.thinking.WriteString(r.Value)
		}
	}
}

// response maps the assembled blocks as mapOutput maps a whole message.
func (a *streamAccumulator) response() model.Response {
	var text, thinking []string
	var calls []model.ToolCall
	for _, idx := range a.order {
		b := a.blocks[idx]
		switch {
		case b.isTool:
			args := strings.TrimSpace(b.input.String())
			if args == "" {
				args = "{}"
			}
			calls = append(calls, model.ToolCall{ID: b.toolID, Name: b.toolName, Arguments: args})
		case b.text.Len() > 0:
			text = append(text, b.text.String())
		case b.thinking.Len() > 0:
			thinking = append(thinking, b.thinking.String())
		}
	}
	return model.Response{
		Text:       strings.Join(text, "\n\n"),
		Thinking:   strings.Join(thinking, "\n\n"),
		ToolCalls:  calls,
		StopReason: stopReason(a.stop),
		Usage:      mapUsage(a.usage),
	}
}

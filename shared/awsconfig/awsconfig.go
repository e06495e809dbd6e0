// Package awsconfig builds the one aws.Config every function and tool shares,
// and counts the AWS API calls made through it (for `make bench`).
//
// The endpoint comes from the SDK's own AWS_ENDPOINT_URL(_<SERVICE>) variables,
// so pointing at moto or LocalStack needs no code here.
package awsconfig

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Load returns the default SDK config. When counter is non-nil every call
// made with the config is counted by service and operation.
func Load(ctx context.Context, counter *Counter) (aws.Config, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS config: %w", err)
	}
	if counter != nil {
		cfg.APIOptions = append(cfg.APIOptions, counter.middleware)
	}
	return cfg, nil
}

// Counter counts AWS API calls, and the bytes their requests sent and
// their responses returned (Content-Length as sent and received; a
// response without one counts 0). Safe for concurrent use.
type Counter struct {
	mu    sync.Mutex
	calls map[string]int
	sent  map[string]int64 // request bytes by service
	recv  map[string]int64 // response bytes by service
}

// NewCounter returns an empty counter.
func NewCounter() *Counter { return &Counter{calls: map[string]int{}} }

func (c *Counter) middleware(stack *middleware.Stack) error {
	if err := stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc("zeroByteCounter",
		func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleDeserialize(ctx, in)
			var sent, recv int64
			if req, ok := in.Request.(*smithyhttp.Request); ok {
				sent = max(req.ContentLength, 0)
			}
			if resp, ok := out.RawResponse.(*smithyhttp.Response); ok {
				recv = max(resp.ContentLength, 0)
			}
			c.addBytes(middleware.GetServiceID(ctx), sent, recv)
			return out, md, err
		}), middleware.Before); err != nil {
		return err
	}
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("zeroCallCounter",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			op := middleware.GetServiceID(ctx) + "." + middleware.GetOperationName(ctx)
			c.add(op)
			if t, ok := ctx.Value(tallyKey{}).(*tally); ok {
				t.add(op)
			}
			return next.HandleInitialize(ctx, in)
		}), middleware.Before)
}

func (c *Counter) add(op string) {
	c.mu.Lock()
	c.calls[op]++
	c.mu.Unlock()
}

func (c *Counter) addBytes(service string, sent, recv int64) {
	c.mu.Lock()
	if c.sent == nil {
		c.sent, c.recv = map[string]int64{}, map[string]int64{}
	}
	c.sent[service] += sent
	c.recv[service] += recv
	c.mu.Unlock()
}

// Bytes returns the request bytes sent and response bytes received so
// far, by service ("DynamoDB", "S3", ...).
func (c *Counter) Bytes() (sent, received map[string]int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.sent), maps.Clone(c.recv)
}

// Total is the number of calls counted so far.
func (c *Counter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.calls {
		n += v
	}
	return n
}

// Reset forgets all counted calls.
func (c *Counter) Reset() {
	c.mu.Lock()
	c.calls = map[string]int{}
	c.sent, c.recv = nil, nil
	c.mu.Unlock()
}

// String lists the counted calls as "Service.Operation=n" sorted by name.
func (c *Counter) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	parts := make([]string, 0, len(c.calls))
	for k, v := range c.calls {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// tally counts the calls made with one context (and the contexts derived
// from it), beside the Counter's per-invocation total.
type tally struct{ Counter }

type tallyKey struct{}

// WithTally returns ctx carrying a fresh tally: every call a Counter's
// config makes with it, or with a context derived from it, is counted
// there too. The runner gives each session's turns one, so a turn can
// price its own calls while other sessions run in the same invocation.
func WithTally(ctx context.Context) context.Context {
	return context.WithValue(ctx, tallyKey{}, &tally{Counter{calls: map[string]int{}}})
}

// TallyOf returns a copy of the calls counted on ctx's tally, by
// "Service.Operation"; nil when ctx carries none.
func TallyOf(ctx context.Context) map[string]int {
	t, ok := ctx.Value(tallyKey{}).(*tally)
	if !ok {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.calls)
}

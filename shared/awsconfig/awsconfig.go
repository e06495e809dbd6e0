// Package awsconfig builds the one aws.Config every function and tool shares,
// and counts the AWS API calls made through it (for `make bench`).
//
// The endpoint comes from the SDK's own AWS_ENDPOINT_URL(_<SERVICE>) variables,
// so pointing at moto or LocalStack needs no code here.
package awsconfig

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go/middleware"
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

// Counter counts AWS API calls. Safe for concurrent use.
type Counter struct {
	mu    sync.Mutex
	calls map[string]int
}

// NewCounter returns an empty counter.
func NewCounter() *Counter { return &Counter{calls: map[string]int{}} }

func (c *Counter) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("zeroCallCounter",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			c.add(middleware.GetServiceID(ctx) + "." + middleware.GetOperationName(ctx))
			return next.HandleInitialize(ctx, in)
		}), middleware.Before)
}

func (c *Counter) add(op string) {
	c.mu.Lock()
	c.calls[op]++
	c.mu.Unlock()
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

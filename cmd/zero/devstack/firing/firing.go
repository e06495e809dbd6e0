// Package firing is the local stack's EventBridge Scheduler: moto stores
// schedules but never fires them, so a Ticker reads the schedules of the
// stack's groups back through the Scheduler API (the same state the
// gateway wrote) and, when one is due, invokes its target function the
// way Scheduler does: the target's Input with the context attributes
// (<aws.scheduler.scheduled-time>, <aws.scheduler.execution-id>, ...)
// filled in, through the function's RIE. A one-shot schedule with
// ActionAfterCompletion DELETE is deleted after its fire, as Scheduler
// does. Expressions are evaluated by shared/cron (cron.NextFire).
//
// Differences from Scheduler: a fire whose invocation fails is logged,
// not retried; fires missed while the stack was down are not made up; a
// schedule's EndDate is ignored; the execution role is not assumed (the
// ticker invokes as the stack).
package firing

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sch "github.com/aws/aws-sdk-go-v2/service/scheduler"
)

// API is the part of the Scheduler client the ticker uses.
type API interface {
	ListSchedules(ctx context.Context, in *sch.ListSchedulesInput, opts ...func(*sch.Options)) (*sch.ListSchedulesOutput, error)
	GetSchedule(ctx context.Context, in *sch.GetScheduleInput, opts ...func(*sch.Options)) (*sch.GetScheduleOutput, error)
	DeleteSchedule(ctx context.Context, in *sch.DeleteScheduleInput, opts ...func(*sch.Options)) (*sch.DeleteScheduleOutput, error)
}

// Config configures a Ticker.
type Config struct {
	API       API
	Groups    []string                                                                   // the schedule groups to fire
	Functions map[string]string                                                          // function ARN -> logical id
	Invoke    func(ctx context.Context, function string, payload []byte) ([]byte, error) // a synchronous invoke
	Every     time.Duration                                                              // how often to look (default 1 s)
	Now       func() time.Time                                                           // default time.Now
	Logf      func(format string, args ...any)
}

// Ticker fires due schedules. Safe for concurrent use.
type Ticker struct {
	cfg  Config
	mu   sync.Mutex
	seen map[string]*tracked // schedule ARN -> what the ticker knows
}

// tracked is one schedule as last read, and how far it has been fired.
type tracked struct {
	modified time.Time
	s        *sch.GetScheduleOutput
	cursor   time.Time // fires up to here are done
}

// maxFiresPerTick bounds a burst (a rate schedule whose cursor fell far
// behind): the rest are dropped, as Scheduler drops events past their age.
const maxFiresPerTick = 5

// New returns a ticker.
func New(cfg Config) *Ticker {
	if cfg.Every <= 0 {
		cfg.Every = time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	return &Ticker{cfg: cfg, seen: map[string]*tracked{}}
}

// Run ticks until ctx ends.
func (t *Ticker) Run(ctx context.Context) {
	tk := time.NewTicker(t.cfg.Every)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
			if err := t.Tick(ctx); err != nil && ctx.Err() == nil {
				t.cfg.Logf("scheduler emulation: %v", err)
			}
		}
	}
}

// Tick fires every schedule that fell due since the last tick (since it
// was created or last modified, for one the ticker has not seen).
func (t *Ticker) Tick(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.cfg.Now()
	live := map[string]bool{}
	for _, group := range t.cfg.Groups {
		in := &sch.ListSchedulesInput{GroupName: aws.String(group)}
		for {
			out, err := t.cfg.API.ListSchedules(ctx, in)
			if err != nil {
				return fmt.Errorf("list schedules of %s: %w", group, err)
			}
			for _, s := range out.Schedules {
				live[aws.ToString(s.Arn)] = true
				if err := t.check(ctx, s, now); err != nil {
					t.cfg.Logf("scheduler emulation: schedule %s: %v", aws.ToString(s.Name), err)
				}
			}
			if aws.ToString(out.NextToken) == "" {
				break
			}
			in.NextToken = out.NextToken
		}
	}
	for arn := range t.seen {
		if !live[arn] {
			delete(t.seen, arn)
		}
	}
	return nil
}

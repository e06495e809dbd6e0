package devstack

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/scheduler"

	"github.com/zero-gateway/zero/cmd/zero/devstack/firing"
)

// firingLoop is the running Scheduler emulation.
type firingLoop struct {
	ticker *firing.Ticker
	stop   context.CancelFunc
	done   sync.WaitGroup
}

// startFiring starts the Scheduler emulation when the template has
// schedule groups: moto stores schedules but never fires them, so the
// stack fires them itself, invoking the target function through its RIE
// as Scheduler invokes it through Lambda.
func (s *Stack) startFiring() {
	if len(s.Resources.ScheduleGroups) == 0 {
		return
	}
	var groups []string
	for _, id := range sortedKeys(s.Resources.ScheduleGroups) {
		groups = append(groups, s.Resources.ScheduleGroups[id].Name)
	}
	fns := map[string]string{}
	for id, fn := range s.Resources.Functions {
		fns[fn.ARN] = id
	}
	every := s.opts.CronTick
	ctx, cancel := context.WithCancel(context.Background())
	l := &firingLoop{stop: cancel, ticker: firing.New(firing.Config{
		API: scheduler.NewFromConfig(s.AWSConfig), Groups: groups, Functions: fns, Invoke: s.invoke, Every: every, Logf: s.logf,
	})}
	l.done.Add(1)
	go func() { defer l.done.Done(); l.ticker.Run(ctx) }()
	s.firing = l
	s.logf("scheduler emulation: firing the schedules of %v", groups)
}

// stopFiring stops the emulation and waits for a fire in progress.
func (s *Stack) stopFiring() {
	if s.firing == nil {
		return
	}
	s.firing.stop()
	s.firing.done.Wait()
}

// FireDue fires every schedule that is due now, at once (tests; the
// ticker does the same every CronTick).
func (s *Stack) FireDue(ctx context.Context) error {
	if s.firing == nil {
		return nil
	}
	return s.firing.ticker.Tick(ctx)
}

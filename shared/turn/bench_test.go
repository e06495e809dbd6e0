package turn_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run/runtest"
)

// instantModel answers at once: one tool call on every other turn, then
// text, reporting 50 tokens a context message so the context fills up and
// compaction keeps it bounded.
type instantModel struct{}

func (instantModel) Complete(_ context.Context, req model.Request) (model.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == model.User && len(req.Messages)%4 == 1 {
		return statusCall(), nil
	}
	if strings.HasPrefix(req.System, "You compact") { // the summariser
		return model.Response{Text: "summary", StopReason: model.StopEnd}, nil
	}
	in := int64(50 * len(req.Messages))
	return model.Response{Text: "ok", StopReason: model.StopEnd, Usage: model.Usage{Input: in, Output: 2, Total: in + 2}}, nil
}

// BenchmarkHandle is the loop's own cost per turn: config, commands,
// lifecycle, the agent loop with a tool round on half the turns, transcript
// lines, run events, commit and delivery, with in-memory stores and an
// instant model, in a session that keeps growing (compaction on).
func BenchmarkHandle(b *testing.B) {
	r := newRig()
	r.settings.set(`{agents: {defaults: {contextTokens: 4000, compaction: {reserveTokens: 1000}}}, channels: {telegram: {allowFrom: ["*"]}}}`)
	r.proc.Models["zero"] = instantModel{}
	r.proc.Runs = runtest.NewMemStore()
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if err := r.proc.Handle(ctx, msg(i, fmt.Sprintf("turn %d", i)), 1); err != nil {
			b.Fatal(err)
		}
	}
	if e := r.entry(b, "agent:main:main"); i > 50 {
		if e.CompactionCount == 0 {
			b.Fatalf("no compaction in %d turns", i)
		}
		b.ReportMetric(float64(i)/float64(e.CompactionCount), "turns/compaction")
	}
}

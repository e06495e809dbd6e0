package subagent

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/cost"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
)

// invocations are the runner invocations of a sub-agent's run: its turn
// and its announce's delivery.
const invocations = 2

// Stats is the announce's stats line: runtime (now − the spawn), tokens
// in/out/total of the run, the child's session key and id, its transcript
// path, and the cost: the model's tokens at the configured price
// (models.providers.<provider>.models[].cost) when there is one, and
// ZERO's own infrastructure from the run's AWS calls (counted, see
// infraCost) and the runtime taken as the runner's Lambda time, at AWS
// list prices.
func Stats(cfg *config.Config, r Run) string {
	runtime := time.Duration(0)
	if r.Flow.StartedAt > 0 {
		runtime = max(r.Now.Sub(time.UnixMilli(r.Flow.StartedAt)), 0)
	}
	u := r.Ended.Usage
	total := u.Total
	if total == 0 {
		total = u.Input + u.Output
	}
	parts := []string{
		"runtime " + shortDuration(runtime),
		fmt.Sprintf("tokens %d in / %d out / %d total", u.Input, u.Output, total),
		"session " + r.Key + sessionIDNote(r.Child),
	}
	if r.Child.SessionID != "" {
		parts = append(parts, "transcript "+session.TranscriptPath(r.Key, r.Child))
	}
	parts = append(parts, "cost "+modelCost(cfg, r.Child, u.Input, u.Output)+", "+infraCost(runtime, r.Counted))
	return "Stats: " + strings.Join(parts, " · ")
}

func sessionIDNote(e session.Entry) string {
	if e.SessionID == "" {
		return ""
	}
	return " (id " + e.SessionID + ")"
}

// modelCost prices the run's tokens for the model that answered last in
// the child session, when its price is configured.
func modelCost(cfg *config.Config, child session.Entry, in, out int64) string {
	ref := model.Ref{Provider: child.ModelProvider, Name: child.Model}
	if ref.Provider == "" || ref.Name == "" {
		return "model n/a"
	}
	price, ok := cfg.ModelCost(ref)
	if !ok {
		return "model n/a (no price for " + ref.String() + " in models.providers)"
	}
	return "model " + usd(cost.Tokens(in, out, price.Input, price.Output)) + " (" + ref.String() + ")"
}

// spawnAndAfterCalls are the AWS calls of a sub-agent's run outside its
// turn's own (which the runner counts): the spawn's SendMessage, the
// record's UpdateItem after the announce, and the announce itself.
var spawnAndAfterCalls = cost.Add(map[string]int{"SQS.SendMessage": 1, "DynamoDB.UpdateItem": 1}, cost.AnnounceCalls)

// infraCost prices ZERO's own AWS use for the run: counted, the calls the
// child's turn made (the runner's per-session tally), plus
// spawnAndAfterCalls; without a count, the per-turn profile
// (cost.TurnCalls plus cost.AnnounceCalls), marked "≈". The runtime is
// taken as the runner's Lambda time.
func infraCost(runtime time.Duration, counted map[string]int) string {
	calls, how := cost.Add(cost.TurnCalls, cost.AnnounceCalls), "≈%d AWS calls (per-turn profile)"
	if counted != nil {
		calls, how = cost.Add(counted, spawnAndAfterCalls), "%d AWS calls, counted"
	}
	n := 0
	for _, c := range calls {
		n += c
	}
	awsUSD, _ := cost.ListPrices.Calls(calls)
	lambdaUSD := cost.ListPrices.Lambda(runtime, cost.RunnerMemoryMB, invocations)
	return fmt.Sprintf("ZERO infra ≈%s ("+how+", %d Lambda invocations of %d MB, ≤%s)",
		usd(awsUSD+lambdaUSD), n, invocations, cost.RunnerMemoryMB, shortDuration(runtime))
}

// usd formats an amount in dollars, in decimals (never an exponent), with
// at least two significant digits: $0.0030, $0.000058, $1.2500.
func usd(v float64) string {
	if v <= 0 {
		return "$0"
	}
	decimals := max(4, int(math.Ceil(-math.Log10(v)))+1)
	return fmt.Sprintf("$%.*f", decimals, v)
}

// shortDuration is d rounded to the second (to the millisecond under one
// second).
func shortDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

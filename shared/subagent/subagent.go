// Package subagent is what the turn engine needs to know about a
// sub-agent (a session sessions_spawn started) that needs no store: the
// announce of its run (Status / Result / Notes and a stats line pricing
// the run at the configured model price and AWS list prices), the archive
// time of its session, the model its spawn chose, and the children a
// session spawned, read from its context. The engine runs the flow step
// that puts the announce in the outbox and stops the children on /stop.
package subagent

import (
	"fmt"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools/sessions"
)

// Run is a sub-agent's finished run as its announce reports it.
type Run struct {
	Flow  inbound.Flow    // the spawn's flow: label, cleanup, start time
	Key   string          // the child's session key
	Child session.Entry   // the child's entry after the run
	Ended receipt.Receipt // the run's committed record: outcome, reply, usage
	Now   time.Time       // when the announce is made
	// Counted are the AWS calls the child's turn made, by
	// "Service.Operation"; nil: not counted (the per-turn profile is used).
	Counted map[string]int
}

// Announce is the announce text of r:
//
//	Status: <ok|error|timeout|aborted: the run's outcome, never the model's text>
//	Result: <the reply>
//	Notes: <label, cleanup, ...>
//	Stats: runtime · tokens · session and id · transcript · cost
func Announce(cfg *config.Config, r Run) string {
	result := strings.TrimSpace(r.Ended.Reply)
	if result == "" {
		result = "(no reply)"
	}
	return strings.Join([]string{
		"Status: " + status(r.Ended.Outcome),
		"Result: " + result,
		"Notes: " + notes(r.Flow, r.Ended.Outcome),
		Stats(cfg, r),
	}, "\n")
}

// status is the announce's status: the run's outcome.
func status(outcome string) string {
	switch outcome {
	case run.StatusOK, run.StatusError, run.StatusTimeout, run.StatusAborted:
		return outcome
	case "":
		return "ok (no model run)"
	}
	return "unknown (" + outcome + ")"
}

func notes(f inbound.Flow, outcome string) string {
	var notes []string
	if f.Label != "" {
		notes = append(notes, fmt.Sprintf("label %q", f.Label))
	}
	switch outcome {
	case run.StatusTimeout:
		notes = append(notes, "the run hit its time limit")
	case run.StatusAborted:
		notes = append(notes, "the run was stopped (/stop)")
	}
	if f.Cleanup == inbound.CleanupDelete {
		notes = append(notes, "the sub-agent session is deleted after this announce (its transcript stays)")
	}
	if len(notes) == 0 {
		return "none"
	}
	return strings.Join(notes, "; ")
}

// Archive sets a sub-agent session's ArchiveAt to nowMS plus
// agents.defaults.subagents.archiveAfterMinutes (0: never, ArchiveAt 0).
// Other sessions (key is not a sub-agent's) are left as they are. Each
// turn of the session moves it.
func Archive(e *session.Entry, cfg *config.Config, key string, nowMS int64) {
	if !session.IsSubagent(key) {
		return
	}
	e.ArchiveAt = 0
	if minutes := cfg.Agents.Defaults.Subagents.ArchiveAfterMinutes; minutes > 0 {
		e.ArchiveAt = nowMS + int64(minutes)*60_000
	}
}

// WithModel applies m.Model ("provider/name", a sessions_spawn model) as
// the model override of the session m starts; an empty or malformed Model
// leaves e as is (the spawn checked it).
func WithModel(e session.Entry, m inbound.Message) session.Entry {
	if m.Model == "" {
		return e
	}
	if ref, err := model.ParseRef(m.Model); err == nil {
		e.ProviderOverride, e.ModelOverride = ref.Provider, ref.Name
	}
	return e
}

// Child is one sub-agent a session's sessions_spawn started.
type Child struct {
	Key   string // its session key
	RunID string // its run; "" when the spawn named none
}

// Spawned returns the sub-agents the successful sessions_spawn results in
// msgs (a session's context) started, each once, in order.
func Spawned(msgs []model.Message) []Child {
	var out []Child
	seen := map[string]bool{}
	for _, m := range msgs {
		if m.Role != model.ToolResult || m.ToolName != sessions.SpawnName || m.IsError {
			continue
		}
		key, runID, ok := sessions.SpawnedChild(m.Content)
		if !ok || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, Child{Key: key, RunID: runID})
	}
	return out
}

// Waiting reports whether the session whose context is msgs waits for
// the sub-agent childKey: a successful sessions_yield follows the
// successful sessions_spawn that started it (sessions_yield: the child's
// result is to arrive as the session's next message).
func Waiting(msgs []model.Message, childKey string) bool {
	spawned := false
	for _, m := range msgs {
		if m.Role != model.ToolResult || m.IsError {
			continue
		}
		switch m.ToolName {
		case sessions.SpawnName:
			if key, _, ok := sessions.SpawnedChild(m.Content); ok && key == childKey {
				spawned = true
			}
		case sessions.YieldName:
			if spawned && sessions.Yielded(m.Content) {
				return true
			}
		}
	}
	return false
}

package turn_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/run/runtest"
)

// events returns the run's events as "stream/phase" strings, checking the
// per-run sequence is 1, 2, 3, ...
func events(t *testing.T, store *runtest.MemStore, runID string) []string {
	t.Helper()
	evs, err := store.Events(context.Background(), runID, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, ev := range evs {
		if ev.Seq != int64(i+1) || ev.RunID != runID {
			t.Fatalf("event %d has seq %d run %s", i, ev.Seq, ev.RunID)
		}
		var data struct {
			Phase string `json:"phase"`
		}
		json.Unmarshal(ev.Data, &data)
		out = append(out, strings.TrimSuffix(ev.Stream+"/"+data.Phase, "/"))
	}
	return out
}

// useRuns gives the rig a run store that the memory store's commit
// writes run outcomes into, as production wires the DynamoDB store and
// its RunStore on one table.
func (r *rig) useRuns() *runtest.MemStore {
	runs := runtest.NewMemStore()
	r.store.UseRuns(runs)
	r.proc.Runs = runs
	return runs
}

func TestRunRecordAndEvents(t *testing.T) {
	tests := []struct {
		name     string
		inCommit bool // the store commits run outcomes (production's wiring)
		// want are the run's events: the retry continues the run, its
		// lifecycle start and end after the first attempt's stored events,
		// none repeated or renumbered.
		want string
	}{
		{"finished apart from the commit", false,
			"lifecycle/start tool/start tool/result assistant lifecycle/end lifecycle/start assistant lifecycle/end"},
		// The first attempt's outcome died with its commit; the record was
		// started by the tool round's flush.
		{"outcome in the commit", true,
			"lifecycle/start tool/start tool/result lifecycle/start assistant lifecycle/end"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			runs := runtest.NewMemStore()
			r.proc.Runs = runs
			if tc.inCommit {
				runs = r.useRuns()
			}
			r.proc.Models["zero"] = &scriptModel{answers: []model.Response{statusCall(), final("all good")}}
			r.crash.CommitBefore = 1 // the first attempt dies before its commit
			m := msg(1, "status?")
			if err := r.proc.Handle(context.Background(), m, 1); err == nil {
				t.Fatal("crash not injected")
			}
			if err := r.proc.Handle(context.Background(), m, 2); err != nil {
				t.Fatal(err)
			}
			id := run.NewID(m.ID)
			rec, err := runs.Get(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			e := r.entry(t, "agent:main:main")
			if rec.Status != run.StatusOK || rec.SessionKey != "agent:main:main" || rec.SessionID != e.SessionID || rec.Usage.Input != 130 || rec.EndedAt < rec.StartedAt || rec.Model != "zero/echo" {
				t.Fatalf("run record %+v", rec)
			}
			if got := strings.Join(events(t, runs, id), " "); got != tc.want {
				t.Fatalf("events\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestRunRecordOfAPlainTurn: with the outcome in the commit, a channel
// turn without tools writes its run only in the commit (no running record
// first), while an API run (an "api:" message) still starts with its
// record, for agent.wait and agent.events.
func TestRunRecordOfAPlainTurn(t *testing.T) {
	tests := []struct {
		name      string
		id        string
		channel   string
		startedAt bool // a running record exists while the model answers
	}{
		{"channel turn", "telegram:42:1", "telegram", false},
		{"API run", "api:k1", "internal", true},
		{"API run delivered to a channel", "api:k2", "telegram", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig()
			runs := r.useRuns()
			m := msg(1, "hi")
			m.ID, m.Channel = tc.id, tc.channel
			seen := &recordSpy{runs: runs, id: run.NewID(m.ID)}
			r.proc.Models["zero"] = seen
			r.handle(t, m)
			if seen.running != tc.startedAt {
				t.Errorf("running record during the model call: %v; want %v", seen.running, tc.startedAt)
			}
			rec, err := runs.Get(context.Background(), run.NewID(m.ID))
			if err != nil || rec.Status != run.StatusOK || rec.StartedAt == 0 || rec.EndedAt < rec.StartedAt || rec.MessageID != m.ID {
				t.Fatalf("run record %+v, %v; want ok with its times", rec, err)
			}
			if got, want := strings.Join(events(t, runs, rec.RunID), " "), "lifecycle/start assistant lifecycle/end"; got != want {
				t.Fatalf("events %s; want %s", got, want)
			}
		})
	}
}

// recordSpy answers at once and notes whether the run's record was stored
// as running when the model was called.
type recordSpy struct {
	runs    *runtest.MemStore
	id      string
	running bool
}

func (s *recordSpy) Complete(ctx context.Context, _ model.Request) (model.Response, error) {
	rec, err := s.runs.Get(ctx, s.id)
	s.running = err == nil && rec.Status == run.StatusRunning
	return final("hello"), nil
}

func TestRunTimeoutIsRecorded(t *testing.T) {
	r := newRig()
	runs := runtest.NewMemStore()
	r.proc.Runs = runs
	r.settings.set(`{agents: {defaults: {timeoutSeconds: 1}}, channels: {telegram: {allowFrom: ["*"]}}}`)
	r.proc.Models["zero"] = &stuckModel{}
	r.handle(t, msg(1, "slow"))
	rec, err := runs.Get(context.Background(), run.NewID("telegram:42:1"))
	if err != nil || rec.Status != run.StatusTimeout || !strings.Contains(rec.Error, "time limit") {
		t.Fatalf("record %+v, %v; want status timeout with the notice", rec, err)
	}
	if got := fmt.Sprint(events(t, runs, rec.RunID)); !strings.HasSuffix(got, "lifecycle/error]") {
		t.Fatalf("events %s; want a lifecycle error last", got)
	}
}

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

func TestRunRecordAndEvents(t *testing.T) {
	r := newRig()
	runs := runtest.NewMemStore()
	r.proc.Runs = runs
	r.proc.Models["zero"] = &scriptModel{answers: []model.Response{statusCall(), final("all good")}}
	r.crash.CommitBefore = 1 // the first attempt dies after the run finished
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
	got := strings.Join(events(t, runs, id), " ")
	// The retry continues the run: its lifecycle start and end come after
	// the first attempt's events, none repeated or renumbered.
	want := "lifecycle/start tool/start tool/result assistant lifecycle/end lifecycle/start assistant lifecycle/end"
	if got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
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

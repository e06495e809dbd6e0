package sessions_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/stopmark"
	"github.com/zero-gateway/zero/shared/tools"
	"github.com/zero-gateway/zero/shared/tools/builtin"
	"github.com/zero-gateway/zero/shared/tools/sessions"
	"github.com/zero-gateway/zero/shared/tools/tooltest"
)

const (
	childA = "agent:main:subagent:aaaaaaaa-0000-4000-8000-000000000001"
	childB = "agent:main:subagent:bbbbbbbb-0000-4000-8000-000000000002"
)

// memRuns are run records by id.
type memRuns map[string]run.Record

func (m memRuns) Get(_ context.Context, id string) (run.Record, error) {
	rec, ok := m[id]
	if !ok {
		return run.Record{}, fault.New(fault.NotFound, "no run %s", id)
	}
	return rec, nil
}

// memStops records the stop marks written.
type memStops struct {
	mu    sync.Mutex
	marks map[string]stopmark.Mark
}

func (s *memStops) MarkStop(_ context.Context, key string, m stopmark.Mark) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.marks == nil {
		s.marks = map[string]stopmark.Mark{}
	}
	s.marks[key] = m
	return nil
}

// spawnedHistory is a context in which the caller spawned childA (label
// "errs", run rA) and then childB (no label, run rB).
func spawnedHistory() []model.Message {
	spawn := func(id, args, key, runID string) []model.Message {
		return []model.Message{
			{Role: model.Assistant, ToolCalls: []model.ToolCall{{ID: id, Name: sessions.SpawnName, Arguments: args}}},
			{Role: model.ToolResult, ToolCallID: id, ToolName: sessions.SpawnName, Content: `{"status":"accepted","runId":"` + runID + `","childSessionKey":"` + key + `"}`},
		}
	}
	return append(spawn("c1", `{"task":"count the errors in the logs","label":"errs"}`, childA, "rA"),
		spawn("c2", `{"task":"write the summary"}`, childB, "rB")...)
}

// subagentsRig is the caller's run with that history: rA running for two
// minutes, rB done five minutes ago.
func subagentsRig(t *testing.T) (*rig, tools.Run, memRuns) {
	r := newRig(t, sessionsConfig)
	rn := r.run(t)
	rn.History = spawnedHistory()
	now := rn.Now().UnixMilli()
	runs := memRuns{
		"rA": {RunID: "rA", Status: run.StatusRunning, StartedAt: now - 120_000},
		"rB": {RunID: "rB", Status: run.StatusOK, StartedAt: now - 600_000, EndedAt: now - 300_000, Usage: run.Usage{Total: 99}},
	}
	return r, rn, runs
}

type subagentsOut struct {
	Status, Action, Target, RunID, SessionKey, Label, Mode, Error, Text string
	Total                                                               int
	Killed                                                              *int
	Active, Recent                                                      []struct {
		Index                                  int
		SessionKey, Label, Task, Status, RunID string
	}
}

// TestSubagents: list, kill and steer act on the session's own children
// only, with upstream's result shapes.
func TestSubagents(t *testing.T) {
	long := strings.Repeat("x", 4001)
	tests := []struct {
		name      string
		args      string
		wantErr   string // a tool error containing this
		check     func(t *testing.T, out subagentsOut)
		wantMarks []string
		wantSteer string // the child a steer was queued for
	}{
		{name: "list", args: `{}`, check: func(t *testing.T, out subagentsOut) {
			got := []string{}
			for _, v := range append(out.Active, out.Recent...) {
				got = append(got, v.Status+" "+v.Label+" "+v.SessionKey)
			}
			want := []string{"running errs " + childA, "done write the summary " + childB}
			if diff := cmp.Diff(want, got); diff != "" || out.Total != 2 || out.Action != "list" || !strings.Contains(out.Text, "active subagents:\n1. errs") {
				t.Errorf("total %d, text %q, rows (-want +got):\n%s", out.Total, out.Text, diff)
			}
		}},
		{name: "list: recentMinutes leaves out older finished ones", args: `{"action":"list","recentMinutes":1}`, check: func(t *testing.T, out subagentsOut) {
			if out.Total != 1 || len(out.Recent) != 0 {
				t.Errorf("total %d recent %d; want 1 and 0", out.Total, len(out.Recent))
			}
		}},
		{name: "kill by label", args: `{"action":"kill","target":"errs"}`, wantMarks: []string{childA}, check: func(t *testing.T, out subagentsOut) {
			if out.Status != "ok" || out.SessionKey != childA || out.Text != "killed errs." {
				t.Errorf("%+v", out)
			}
		}},
		{name: "kill a finished one", args: `{"action":"kill","target":"2"}`, check: func(t *testing.T, out subagentsOut) {
			if out.Status != "done" || out.SessionKey != childB {
				t.Errorf("%+v", out)
			}
		}},
		{name: "kill all", args: `{"action":"kill","target":"all"}`, wantMarks: []string{childA}, check: func(t *testing.T, out subagentsOut) {
			if out.Status != "ok" || out.Killed == nil || *out.Killed != 1 {
				t.Errorf("%+v", out)
			}
		}},
		{name: "kill: an unknown target", args: `{"action":"kill","target":"nope"}`, check: func(t *testing.T, out subagentsOut) {
			if out.Status != "error" || out.Error != "Unknown subagent target: nope" {
				t.Errorf("%+v", out)
			}
		}},
		{name: "kill: another session is never a target", args: `{"action":"kill","target":"agent:main:main"}`, check: func(t *testing.T, out subagentsOut) {
			if out.Status != "error" || !strings.Contains(out.Error, "Unknown subagent session") {
				t.Errorf("%+v", out)
			}
		}},
		{name: "kill: an index out of range", args: `{"action":"kill","target":"3"}`, check: func(t *testing.T, out subagentsOut) {
			if out.Status != "error" || out.Error != "Invalid subagent index: 3" {
				t.Errorf("%+v", out)
			}
		}},
		{name: "steer the last", args: `{"action":"steer","target":"last","message":"only count 5xx"}`, wantSteer: childA, check: func(t *testing.T, out subagentsOut) {
			if out.Status != "accepted" || out.SessionKey != childA || out.Mode != "queued" || out.RunID == "" {
				t.Errorf("%+v", out)
			}
		}},
		{name: "steer: message required", args: `{"action":"steer","target":"1"}`, wantErr: "message is required"},
		{name: "steer: message too long", args: `{"action":"steer","target":"1","message":"` + long + `"}`, check: func(t *testing.T, out subagentsOut) {
			if out.Status != "error" || !strings.Contains(out.Error, "Message too long (4001 chars, max 4000)") {
				t.Errorf("%+v", out)
			}
		}},
		{name: "an unknown action", args: `{"action":"wait"}`, wantErr: `action must be "list", "kill" or "steer"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, rn, runs := subagentsRig(t)
			stops := &memStops{}
			res := tooltest.Call(t, sessions.NewSubagentsTool(rn, runs, stops), tt.args)
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Content, tt.wantErr) {
					t.Fatalf("result %+v; want an error containing %q", res, tt.wantErr)
				}
				return
			}
			var out subagentsOut
			if res.IsError || json.Unmarshal([]byte(res.Content), &out) != nil {
				t.Fatalf("result %+v", res)
			}
			tt.check(t, out)
			marked := []string{}
			for key, m := range stops.marks {
				if m.MessageID != "subagents-kill:"+callerTurn || !m.Pending {
					t.Errorf("mark on %s: %+v", key, m)
				}
				marked = append(marked, key)
			}
			if diff := cmp.Diff(append([]string{}, tt.wantMarks...), marked); diff != "" {
				t.Errorf("stop marks (-want +got):\n%s", diff)
			}
			queued := r.queue.messages()
			if tt.wantSteer == "" {
				if len(queued) != 0 {
					t.Errorf("queued %+v; want nothing", queued)
				}
				return
			}
			if len(queued) != 1 || queued[0].SessionKey != tt.wantSteer || queued[0].Flow == nil || queued[0].Flow.Kind != inbound.FlowSubagent ||
				queued[0].Flow.Route == nil || queued[0].Flow.Route.To != "7" || queued[0].Text != "only count 5xx" {
				t.Errorf("queued %+v; want one steer of %s announced to chat 7", queued, tt.wantSteer)
			}
		})
	}
}

// TestSubagentsSeesThisRunsSpawnsAndSteers: a child spawned earlier in
// the same run is listed and yielded for; a steer the context records
// moves the child's run.
func TestSubagentsSeesThisRunsSpawnsAndSteers(t *testing.T) {
	r := newRig(t, sessionsConfig)
	rn := r.run(t)
	runs := memRuns{}
	built := map[string]tools.Tool{}
	for _, tl := range builtin.Registry(builtin.Deps{Runs: runs}).Build(rn, func(string) bool { return true }) {
		built[tl.Spec().Name] = tl
	}
	if res := tooltest.Call(t, built[sessions.YieldName], `{}`); !res.IsError || !strings.Contains(res.Content, "nothing to wait for") {
		t.Fatalf("yield before any spawn: %+v", res)
	}
	if res := tooltest.Call(t, built[sessions.SpawnName], `{"task":"t","label":"fresh"}`); res.IsError {
		t.Fatal(res.Content)
	}
	var out subagentsOut
	if err := json.Unmarshal([]byte(tooltest.Call(t, built[sessions.SubagentsName], `{}`).Content), &out); err != nil || out.Total != 1 || out.Active[0].Label != "fresh" {
		t.Fatalf("list after a spawn in the run: %+v (%v)", out, err)
	}
	if res := tooltest.Call(t, built[sessions.YieldName], `{"message":"waiting"}`); res.IsError || res.Content != `{"status":"yielded","message":"waiting"}` {
		t.Fatalf("yield: %+v", res)
	}

	// A later turn: the context holds the spawn and an accepted steer.
	steer := `{"status":"accepted","action":"steer","target":"1","runId":"rSteer","sessionKey":"` + childA + `","mode":"queued"}`
	rn.History = append(spawnedHistory(), model.Message{Role: model.ToolResult, ToolName: sessions.SubagentsName, Content: steer})
	now := rn.Now().UnixMilli()
	finished := memRuns{
		"rA":     {Status: run.StatusOK, StartedAt: now - 60_000, EndedAt: now - 30_000},
		"rB":     {Status: run.StatusOK, StartedAt: now - 60_000, EndedAt: now - 30_000},
		"rSteer": {Status: run.StatusRunning, StartedAt: now - 10_000},
	}
	res := tooltest.Call(t, sessions.NewSubagentsTool(rn, finished, nil), `{}`)
	if err := json.Unmarshal([]byte(res.Content), &out); err != nil || len(out.Active) != 1 || out.Active[0].RunID != "rSteer" {
		t.Fatalf("after a steer: %s", res.Content)
	}
	if res := tooltest.Call(t, sessions.NewYieldTool(rn, finished), `{}`); res.IsError {
		t.Fatalf("yield while the steered child runs: %+v", res)
	}
	delete(finished, "rSteer")
	finished["rSteer"] = run.Record{Status: run.StatusAborted, EndedAt: now}
	if res := tooltest.Call(t, sessions.NewYieldTool(rn, finished), `{}`); !res.IsError {
		t.Fatalf("yield with every child finished: %+v; want a refusal", res)
	}
}

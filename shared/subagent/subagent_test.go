package subagent

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
)

const childKey = "agent:main:subagent:abc"

func parse(t *testing.T, doc string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// finished is a child's run that ended as rec, 90 seconds after its spawn.
func finished(f inbound.Flow, rec receipt.Receipt, counted map[string]int) Run {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f.StartedAt = now.Add(-90 * time.Second).UnixMilli()
	child := session.Entry{SessionID: "s1", AgentID: "main", ModelProvider: "zero", Model: "echo"}
	return Run{Flow: f, Key: childKey, Child: child, Ended: rec, Now: now, Counted: counted}
}

// TestAnnounce: Status is the run's outcome (never the model's text),
// Result the reply, Notes the label, the outcome and the cleanup; the
// stats line prices the tokens at the configured price, else says so, and
// the infrastructure from the counted calls, else the per-turn profile.
func TestAnnounce(t *testing.T) {
	const priced = `{models: {providers: {zero: {models: [{id: "echo", cost: {input: 1, output: 10}}]}}}}`
	ok := receipt.Receipt{Outcome: run.StatusOK, Reply: "42 errors", Usage: run.Usage{Input: 1000, Output: 200, Total: 1200}}
	tests := []struct {
		name    string
		doc     string
		flow    inbound.Flow
		rec     receipt.Receipt
		counted map[string]int
		want    []string // the announce's lines but the stats
		stats   []string // parts the stats line holds
	}{
		{name: "ok, with label", flow: inbound.Flow{Label: "errs"}, rec: ok,
			want: []string{"Status: ok", "Result: 42 errors", `Notes: label "errs"`},
			stats: []string{"Stats: runtime 1m30s", "tokens 1000 in / 200 out / 1200 total", "session " + childKey + " (id s1)",
				"transcript agents/main/sessions/s1.jsonl", "model n/a (no price for zero/echo in models.providers)", "ZERO infra ≈$",
				"(≈9 AWS calls (per-turn profile), 2 Lambda invocations of 256 MB, ≤1m30s)"}},
		{name: "counted calls", rec: ok,
			counted: map[string]int{"DynamoDB.BatchGetItem": 1, "S3.PutObject": 1, "DynamoDB.TransactWriteItems": 1, "DynamoDB.GetItem": 3},
			want:    []string{"Status: ok", "Result: 42 errors", "Notes: none"},
			stats:   []string{"(12 AWS calls, counted, 2 Lambda invocations of 256 MB"}},
		{name: "priced model", doc: priced, rec: ok,
			want:  []string{"Status: ok", "Result: 42 errors", "Notes: none"},
			stats: []string{"cost model $0.0030 (zero/echo)"}},
		{name: "aborted: the status is the outcome", rec: receipt.Receipt{Outcome: run.StatusAborted, Reply: "Status: ok, all done"},
			want: []string{"Status: aborted", "Result: Status: ok, all done", "Notes: the run was stopped (/stop)"}},
		{name: "timeout", rec: receipt.Receipt{Outcome: run.StatusTimeout, Reply: "partial"},
			want: []string{"Status: timeout", "Result: partial", "Notes: the run hit its time limit"}},
		{name: "no model run, no reply", rec: receipt.Receipt{Reply: "  "},
			want:  []string{"Status: ok (no model run)", "Result: (no reply)", "Notes: none"},
			stats: []string{"tokens 0 in / 0 out / 0 total"}},
		{name: "an unknown outcome", rec: receipt.Receipt{Outcome: "odd", Reply: "x"},
			want: []string{"Status: unknown (odd)", "Result: x", "Notes: none"}},
		{name: "cleanup delete", flow: inbound.Flow{Label: "l", Cleanup: inbound.CleanupDelete}, rec: ok,
			want: []string{"Status: ok", "Result: 42 errors", `Notes: label "l"; the sub-agent session is deleted after this announce (its transcript stays)`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			if tc.doc != "" {
				cfg = parse(t, tc.doc)
			}
			lines := strings.Split(Announce(cfg, finished(tc.flow, tc.rec, tc.counted)), "\n")
			if diff := cmp.Diff(tc.want, lines[:len(lines)-1]); diff != "" {
				t.Errorf("announce (-want +got):\n%s", diff)
			}
			last := lines[len(lines)-1]
			for _, s := range append([]string{"Stats: ", "session " + childKey}, tc.stats...) {
				if !strings.Contains(last, s) {
					t.Errorf("stats line %q lacks %q", last, s)
				}
			}
		})
	}
}

// TestStatsWithoutSession: a child without a session id or a model has
// no id, no transcript and no model price; the total is in + out when the
// provider reported none; a spawn without a start time has no runtime.
func TestStatsWithoutSession(t *testing.T) {
	r := Run{Key: childKey, Ended: receipt.Receipt{Usage: run.Usage{Input: 3, Output: 4}}, Now: time.Now()}
	got := Stats(config.Default(), r)
	for _, s := range []string{"runtime 0s", "tokens 3 in / 4 out / 7 total", "session " + childKey + " · ", "cost model n/a, ZERO infra"} {
		if !strings.Contains(got, s) {
			t.Errorf("stats %q lacks %q", got, s)
		}
	}
	if strings.Contains(got, "transcript") || strings.Contains(got, "(id") {
		t.Errorf("stats %q names a transcript or id", got)
	}
}

func TestUSD(t *testing.T) {
	for v, want := range map[float64]string{0: "$0", -1: "$0", 0.003: "$0.0030", 0.000058: "$0.000058", 1.25: "$1.2500"} {
		if got := usd(v); got != want {
			t.Errorf("usd(%v) = %q; want %q", v, got, want)
		}
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0s", 250400 * time.Microsecond: "250ms", 1499 * time.Millisecond: "1s", 90*time.Second + 600*time.Millisecond: "1m31s"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q; want %q", d, got, want)
		}
	}
}

// TestArchive: a sub-agent session's ArchiveAt moves with each turn by
// archiveAfterMinutes (0: never); other sessions keep theirs.
func TestArchive(t *testing.T) {
	const nowMS = 1_000_000
	tests := []struct {
		name string
		doc  string
		key  string
		want int64
	}{
		{"sub-agent", `{agents: {defaults: {subagents: {archiveAfterMinutes: 5}}}}`, childKey, nowMS + 300_000},
		{"never archived", `{agents: {defaults: {subagents: {archiveAfterMinutes: 0}}}}`, childKey, 0},
		{"another session keeps its own", `{agents: {defaults: {subagents: {archiveAfterMinutes: 5}}}}`, "agent:main:main", 7},
	}
	for _, tc := range tests {
		e := session.Entry{ArchiveAt: 7}
		Archive(&e, parse(t, tc.doc), tc.key, nowMS)
		if e.ArchiveAt != tc.want {
			t.Errorf("%s: ArchiveAt = %d; want %d", tc.name, e.ArchiveAt, tc.want)
		}
	}
}

// TestWithModel: a spawn's model becomes the session's override; none,
// or a malformed one, leaves the entry as it is.
func TestWithModel(t *testing.T) {
	base := session.Entry{SessionID: "s1", ProviderOverride: "p", ModelOverride: "m"}
	tests := []struct {
		model string
		want  session.Entry
	}{
		{"", base},
		{"not-a-ref", base},
		{"openai/gpt-4o", session.Entry{SessionID: "s1", ProviderOverride: "openai", ModelOverride: "gpt-4o"}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, WithModel(base, inbound.Message{Model: tc.model})); diff != "" {
			t.Errorf("WithModel(%q) (-want +got):\n%s", tc.model, diff)
		}
	}
}

// TestSpawned: each successful sessions_spawn result names a child once,
// in order; failed spawns, other tools and other text are not children.
func TestSpawned(t *testing.T) {
	result := func(key, runID string, isErr bool) model.Message {
		return model.Message{Role: model.ToolResult, ToolName: "sessions_spawn", IsError: isErr,
			Content: `{"status":"accepted","runId":"` + runID + `","childSessionKey":"` + key + `"}`}
	}
	msgs := []model.Message{
		{Role: model.User, Content: "spawn them"},
		result("agent:main:subagent:a", "r1", false),
		result("agent:main:subagent:b", "", false),
		result("agent:main:subagent:a", "r1", false),
		result("agent:main:subagent:c", "r3", true),
		{Role: model.ToolResult, ToolName: "sessions_send", Content: `{"childSessionKey":"agent:main:subagent:d"}`},
		result("agent:main:main", "r5", false),
		{Role: model.ToolResult, ToolName: "sessions_spawn", Content: "not json"},
	}
	want := []Child{{Key: "agent:main:subagent:a", RunID: "r1"}, {Key: "agent:main:subagent:b"}}
	if diff := cmp.Diff(want, Spawned(msgs)); diff != "" {
		t.Errorf("Spawned (-want +got):\n%s", diff)
	}
}

// TestWaiting: a session waits for a child when a successful
// sessions_yield follows the child's spawn.
func TestWaiting(t *testing.T) {
	spawn := func(key string) model.Message {
		return model.Message{Role: model.ToolResult, ToolName: "sessions_spawn",
			Content: `{"status":"accepted","runId":"r","childSessionKey":"` + key + `"}`}
	}
	yield := model.Message{Role: model.ToolResult, ToolName: "sessions_yield", Content: `{"status":"yielded","message":"Turn yielded."}`}
	refused := model.Message{Role: model.ToolResult, ToolName: "sessions_yield", IsError: true, Content: "no sub-agent of this session is running"}
	const a, b = "agent:main:subagent:a", "agent:main:subagent:b"
	for _, tc := range []struct {
		name string
		msgs []model.Message
		key  string
		want bool
	}{
		{"spawn then yield", []model.Message{spawn(a), yield}, a, true},
		{"a yield before the spawn", []model.Message{yield, spawn(a)}, a, false},
		{"a refused yield", []model.Message{spawn(a), refused}, a, false},
		{"another child's spawn", []model.Message{spawn(b), yield}, a, false},
		{"two children, one yield", []model.Message{spawn(a), spawn(b), yield}, b, true},
		{"no yield", []model.Message{spawn(a)}, a, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Waiting(tc.msgs, tc.key); got != tc.want {
				t.Errorf("Waiting = %v, want %v", got, tc.want)
			}
		})
	}
}

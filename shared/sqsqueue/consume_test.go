package sqsqueue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/inbound"
)

// Unit tests of Consume on hand-built events; no queue involved.

func record(id, session, text string) events.SQSMessage {
	body, _ := json.Marshal(inbound.Message{ID: id, AgentID: "main", SessionKey: session, Channel: "telegram", ChatType: inbound.Direct, To: "1", Text: text})
	return events.SQSMessage{MessageId: "sqs-" + id, Body: string(body), Attributes: map[string]string{"MessageGroupId": session}}
}

func failures(r events.SQSEventResponse) []string {
	var out []string
	for _, f := range r.BatchItemFailures {
		out = append(out, f.ItemIdentifier)
	}
	return out
}

// captureLog sends slog.Default to a buffer for the test.
func captureLog(t *testing.T) *bytes.Buffer {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	return &buf
}

func TestConsumeAllSucceed(t *testing.T) {
	ev := events.SQSEvent{Records: []events.SQSMessage{record("a1", "A", "x"), record("b1", "B", "x"), record("a2", "A", "x")}}
	var mu sync.Mutex
	seen := map[string][]string{} // session → ids in handling order
	resp := Consume(context.Background(), ev, func(_ context.Context, m inbound.Message, attempt int) error {
		if attempt != 1 {
			t.Errorf("attempt = %d without ApproximateReceiveCount; want 1", attempt)
		}
		mu.Lock()
		seen[m.SessionKey] = append(seen[m.SessionKey], m.ID)
		mu.Unlock()
		return nil
	})
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %v; want none", failures(resp))
	}
	if diff := cmp.Diff(map[string][]string{"A": {"a1", "a2"}, "B": {"b1"}}, seen); diff != "" {
		t.Fatalf("handled per session (-want +got):\n%s", diff)
	}
}

func TestConsumeFailureHoldsBackOnlyItsGroup(t *testing.T) {
	captureLog(t)
	ev := events.SQSEvent{Records: []events.SQSMessage{
		record("a1", "A", "x"), record("b1", "B", "x"), record("a2", "A", "x"), record("c1", "C", "x"),
	}}
	var mu sync.Mutex
	var seen []string
	resp := Consume(context.Background(), ev, func(_ context.Context, m inbound.Message, _ int) error {
		mu.Lock()
		seen = append(seen, m.ID)
		mu.Unlock()
		if m.ID == "a1" {
			return errors.New("model unavailable")
		}
		return nil
	})
	if diff := cmp.Diff([]string{"sqs-a1", "sqs-a2"}, failures(resp)); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	slices.Sort(seen)
	if diff := cmp.Diff([]string{"a1", "b1", "c1"}, seen); diff != "" {
		t.Errorf("handled (-want +got); a2 must wait behind a1, the others run:\n%s", diff)
	}
}

func TestConsumePoisonBody(t *testing.T) {
	logs := captureLog(t)
	secret := "my password is hunter2"
	bad := events.SQSMessage{MessageId: "sqs-bad", Body: `{"text":"` + secret + `"`, Attributes: map[string]string{"ApproximateReceiveCount": "3", "MessageGroupId": "A"}}
	invalid := record("", "A", secret) // decodes, but has no id
	invalid.MessageId = "sqs-invalid"
	for _, poison := range []events.SQSMessage{bad, invalid} {
		ev := events.SQSEvent{Records: []events.SQSMessage{record("a1", "A", "x"), poison, record("b1", "B", "x")}}
		var mu sync.Mutex
		var seen []string
		resp := Consume(context.Background(), ev, func(_ context.Context, m inbound.Message, _ int) error {
			mu.Lock()
			seen = append(seen, m.ID)
			mu.Unlock()
			return nil
		})
		if want := []string{poison.MessageId}; !slices.Equal(failures(resp), want) {
			t.Errorf("failures = %v; want %v (only the poison record: b1 is another session)", failures(resp), want)
		}
		slices.Sort(seen)
		if !slices.Equal(seen, []string{"a1", "b1"}) {
			t.Errorf("handled %v; want a1 and b1", seen)
		}
	}
	out := logs.String()
	if strings.Contains(out, "hunter2") {
		t.Errorf("the log holds the message body:\n%s", out)
	}
	for _, want := range []string{`"messageId":"sqs-bad"`, `"receiveCount":3`, `"bodyBytes":`, `"messageId":"sqs-invalid"`} {
		if !strings.Contains(out, want) {
			t.Errorf("poison log lacks %s:\n%s", want, out)
		}
	}
}

func TestConsumeRecoversPanic(t *testing.T) {
	captureLog(t)
	ev := events.SQSEvent{Records: []events.SQSMessage{record("a1", "A", "x"), record("a2", "A", "boom"), record("a3", "A", "x")}}
	resp := Consume(context.Background(), ev, func(_ context.Context, m inbound.Message, _ int) error {
		if m.Text == "boom" {
			var nilMap map[string]int
			nilMap["x"]++ // a real runtime panic
		}
		return nil
	})
	if want := []string{"sqs-a2", "sqs-a3"}; !slices.Equal(failures(resp), want) {
		t.Fatalf("failures = %v; want %v", failures(resp), want)
	}
}

func TestConsumeStopsWhenContextDone(t *testing.T) {
	captureLog(t)
	ctx, cancel := context.WithCancel(context.Background())
	ev := events.SQSEvent{Records: []events.SQSMessage{record("a1", "A", "x"), record("a2", "A", "x"), record("a3", "A", "x")}}
	var seen []string
	resp := Consume(ctx, ev, func(_ context.Context, m inbound.Message, _ int) error {
		seen = append(seen, m.ID)
		cancel() // the deadline passes while a1 runs; a1 itself succeeds
		return nil
	})
	if want := []string{"sqs-a2", "sqs-a3"}; !slices.Equal(failures(resp), want) {
		t.Fatalf("failures = %v; want %v", failures(resp), want)
	}
	if !slices.Equal(seen, []string{"a1"}) {
		t.Fatalf("handled %v; want only a1", seen)
	}
}

func TestConsumeKeepsReserveBeforeDeadline(t *testing.T) {
	ev := events.SQSEvent{Records: []events.SQSMessage{record("a1", "A", "x"), record("b1", "B", "x")}}
	t.Run("no record starts inside the reserve", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), Reserve/2)
		defer cancel()
		called := false
		resp := Consume(ctx, ev, func(context.Context, inbound.Message, int) error { called = true; return nil })
		if called || !slices.Equal(failures(resp), []string{"sqs-a1", "sqs-b1"}) {
			t.Fatalf("called %v, failures %v; want no call and both reported", called, failures(resp))
		}
	})
	t.Run("the handler's deadline ends before the function's", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		outer, _ := ctx.Deadline()
		Consume(ctx, ev, func(hctx context.Context, _ inbound.Message, _ int) error {
			inner, ok := hctx.Deadline()
			if !ok || !inner.Equal(outer.Add(-Reserve)) {
				t.Errorf("handler deadline %v (set %v); want %v", inner, ok, outer.Add(-Reserve))
			}
			return nil
		})
	})
}

func TestConsumeAttempt(t *testing.T) {
	for raw, want := range map[string]int{"": 1, "1": 1, "4": 4, "0": 1, "x": 1} {
		rec := record("a1", "A", "x")
		if raw != "" {
			rec.Attributes["ApproximateReceiveCount"] = raw
		}
		var got int
		Consume(context.Background(), events.SQSEvent{Records: []events.SQSMessage{rec}}, func(_ context.Context, _ inbound.Message, attempt int) error {
			got = attempt
			return nil
		})
		if got != want {
			t.Errorf("ApproximateReceiveCount %q: attempt = %d; want %d", raw, got, want)
		}
	}
}

func TestConsumeGroups(t *testing.T) {
	batch := func() events.SQSEvent {
		bad := record("a3", "A", "x")
		bad.Body = "{not json"
		return events.SQSEvent{Records: []events.SQSMessage{
			record("a1", "A", "x"), record("a2", "A", "x"), record("b1", "B", "x"),
			record("a4", "A", "x"), record("a5", "A", "x"), bad, record("a6", "A", "x"),
		}}
	}
	tests := []struct {
		name         string
		maxRun       int
		doneOf       map[string]int // first id of a run → how many it finishes (default all)
		wantRuns     []string
		wantFailures []string
	}{
		// A group's records are consecutive to the handler even when
		// other groups' records sit between them in the batch.
		{"runs of one group", 10, nil, []string{"a1,a2,a4,a5", "b1"}, []string{"sqs-a3", "sqs-a6"}},
		{"maxRun splits a run", 1, nil, []string{"a1", "a2", "a4", "a5", "b1"}, []string{"sqs-a3", "sqs-a6"}},
		{"a partly finished run reports the rest of its group only", 10, map[string]int{"a1": 1}, []string{"a1,a2,a4,a5", "b1"},
			[]string{"sqs-a2", "sqs-a4", "sqs-a5", "sqs-a3", "sqs-a6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			captureLog(t)
			var runs []string
			var mu sync.Mutex
			c := &Consumer{MaxRun: tt.maxRun, Handler: func(_ context.Context, msgs []inbound.Message, attempts []int) (int, error) {
				var ids []string
				for _, m := range msgs {
					ids = append(ids, m.ID)
				}
				mu.Lock()
				runs = append(runs, strings.Join(ids, ","))
				mu.Unlock()
				if n, ok := tt.doneOf[msgs[0].ID]; ok {
					return n, errors.New("failed midway")
				}
				return len(msgs), nil
			}}
			resp := c.Consume(context.Background(), batch())
			slices.Sort(runs)
			if diff := cmp.Diff(tt.wantRuns, runs); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantFailures, failures(resp)); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}

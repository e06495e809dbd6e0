package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/run/runtest"
)

func TestRunConformance(t *testing.T) {
	// One table for the suite (its run ids are random): the shared table
	// grows with every test, and moto copies a table per transaction.
	table := freshTable(t)
	runtest.TestStore(t, func(t *testing.T) runtest.Store { return New(testClient, table).Runs() })
}

// runEvents returns events from..to of runID as a Recorder makes them.
func runEvents(runID string, from, to int64) []run.Event {
	rec := run.NewRecorder(runID, func() time.Time { return time.UnixMilli(1_700_000_000_000) })
	rec.Continue(from - 1)
	for rec.Seq() < to {
		rec.Assistant(fmt.Sprintf("part %d", rec.Seq()+1))
	}
	return rec.Pending()
}

func startedRun() run.Record {
	return run.Record{
		RunID: run.NewID(""), SessionKey: "agent:main:main", SessionID: awstest.Name("sid-"),
		MessageID: awstest.Name("telegram:1:"), StartedAt: 1_700_000_000_000, Model: "zero/echo",
	}
}

// partition returns every item stored under pk "run#<runID>".
func partition(t *testing.T, runID string) []map[string]types.AttributeValue {
	t.Helper()
	out, err := testClient.Query(context.Background(), &dynamodb.QueryInput{
		TableName: &testTable, ConsistentRead: aws.Bool(true),
		KeyConditionExpression:    aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "run#" + runID}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Items
}

func TestRunItemLayout(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	now := time.Unix(1_800_000_000, 0)
	s.now = func() time.Time { return now }
	rs := s.Runs()
	rec := startedRun()
	evs := runEvents(rec.RunID, 1, 2)
	if err := rs.Start(ctx, rec, evs[:1]); err != nil {
		t.Fatal(err)
	}
	if err := rs.Finish(ctx, run.Record{RunID: rec.RunID, Status: run.StatusOK, EndedAt: rec.StartedAt + 5, Usage: run.Usage{Input: 3, Output: 4, Total: 7}}, evs[1:]); err != nil {
		t.Fatal(err)
	}
	ttl := now.Add(RunTTL).Unix()

	r := getItem(t, "run#"+rec.RunID, "record")
	wantS := map[string]string{"status": "ok", "runSessionId": rec.SessionID, "sessionKey": rec.SessionKey, "messageId": rec.MessageID, "model": "zero/echo"}
	for name, want := range wantS {
		if got, _ := attrS(r, name); got != want {
			t.Errorf("record %s = %q; want %q", name, got, want)
		}
	}
	wantN := map[string]int64{"startedAt": rec.StartedAt, "endedAt": rec.StartedAt + 5, "ttl": ttl}
	for name, want := range wantN {
		if got, _ := attrN(r, name); got != want {
			t.Errorf("record %s = %d; want %d", name, got, want)
		}
	}
	if u, ok := r["usage"].(*types.AttributeValueMemberM); !ok || len(u.Value) != 3 {
		t.Errorf("record usage = %#v; want a map of input, output, total", r["usage"])
	}
	// No index key attribute: run records stay out of byAgent and
	// bySessionId; the run id is the key's.
	for _, name := range []string{"sessionId", "agentId", "updatedAt", "runId", "error"} {
		if _, ok := r[name]; ok {
			t.Errorf("record has a %s attribute", name)
		}
	}

	e := getItem(t, "run#"+rec.RunID, "event#0000000002")
	if got, _ := attrS(e, "data"); got != string(evs[1].Data) {
		t.Errorf("event data = %q; want the JSON text %s", got, evs[1].Data)
	}
	if got, _ := attrS(e, "stream"); got != run.StreamAssistant {
		t.Errorf("event stream = %q", got)
	}
	for name, want := range map[string]int64{"seq": 2, "ts": evs[1].TS, "ttl": ttl} {
		if got, _ := attrN(e, name); got != want {
			t.Errorf("event %s = %d; want %d", name, got, want)
		}
	}
	if n := len(partition(t, rec.RunID)); n != 3 {
		t.Errorf("run partition has %d items; want the record and 2 events", n)
	}
}

func TestRunCallsPerOperation(t *testing.T) {
	ctx := context.Background()
	rs := New(testClient, freshTable(t)).Runs() // small: moto copies the table per transaction
	rec := startedRun()
	finishAt := func(r run.Record, status string) run.Record {
		r.Status, r.EndedAt = status, r.StartedAt+100
		return r
	}
	big := startedRun()
	bare := startedRun()
	tests := []struct {
		name string
		call func() error
		want string // counter.String()
	}{
		{"Start", func() error { return rs.Start(ctx, rec, runEvents(rec.RunID, 1, 1)) }, "DynamoDB.TransactWriteItems=1"},
		{"Start again (a retried turn)", func() error { return rs.Start(ctx, rec, runEvents(rec.RunID, 1, 1)) }, "DynamoDB.TransactWriteItems=1"},
		{"Start without events", func() error { return rs.Start(ctx, bare, nil) }, "DynamoDB.UpdateItem=1"},
		{"Start with 130 events", func() error { return rs.Start(ctx, big, runEvents(big.RunID, 1, 130)) }, "DynamoDB.BatchWriteItem=2 DynamoDB.TransactWriteItems=1"},
		{"Append 25", func() error { return rs.Append(ctx, rec.RunID, runEvents(rec.RunID, 2, 26)) }, "DynamoDB.BatchWriteItem=1"},
		{"Append 60", func() error { return rs.Append(ctx, rec.RunID, runEvents(rec.RunID, 27, 86)) }, "DynamoDB.BatchWriteItem=3"},
		{"Append nothing", func() error { return rs.Append(ctx, rec.RunID, nil) }, ""},
		{"Get", func() error { _, err := rs.Get(ctx, rec.RunID); return err }, "DynamoDB.GetItem=1"},
		{"Events", func() error { _, err := rs.Events(ctx, rec.RunID, 10, 50); return err }, "DynamoDB.Query=1"},
		{"Events of all 86", func() error {
			evs, err := rs.Events(ctx, rec.RunID, 0, 0)
			if err == nil && len(evs) != 86 {
				err = fmt.Errorf("%d events; want 86", len(evs))
			}
			return err
		}, "DynamoDB.Query=1"},
		{"LastSeq", func() error {
			last, err := rs.LastSeq(ctx, rec.RunID)
			if err == nil && last != 86 {
				err = fmt.Errorf("LastSeq = %d; want 86", last)
			}
			return err
		}, "DynamoDB.Query=1"},
		{"Finish", func() error { return rs.Finish(ctx, finishAt(rec, run.StatusOK), runEvents(rec.RunID, 87, 88)) }, "DynamoDB.TransactWriteItems=1"},
		// A replay: the failed condition returns the stored record (one
		// more call: the events again).
		{"Finish again", func() error { return rs.Finish(ctx, finishAt(rec, run.StatusOK), runEvents(rec.RunID, 87, 88)) }, "DynamoDB.BatchWriteItem=1 DynamoDB.TransactWriteItems=1"},
		{"Finish as another status", func() error {
			if err := rs.Finish(ctx, finishAt(rec, run.StatusError), runEvents(rec.RunID, 87, 88)); !fault.Is(err, fault.Conflict) {
				return fmt.Errorf("want fault.Conflict, got %v", err)
			}
			return nil
		}, "DynamoDB.TransactWriteItems=1"},
		{"Finish without events", func() error { return rs.Finish(ctx, finishAt(bare, run.StatusAborted), nil) }, "DynamoDB.UpdateItem=1"},
		{"Finish again without events", func() error { return rs.Finish(ctx, finishAt(bare, run.StatusAborted), nil) }, "DynamoDB.UpdateItem=1"},
		{"Finish with 130 events", func() error { return rs.Finish(ctx, finishAt(big, run.StatusOK), runEvents(big.RunID, 131, 260)) }, "DynamoDB.BatchWriteItem=2 DynamoDB.TransactWriteItems=1"},
		{"Finish of an unknown run", func() error {
			if err := rs.Finish(ctx, finishAt(startedRun(), run.StatusOK), nil); !fault.Is(err, fault.NotFound) {
				return fmt.Errorf("want fault.NotFound, got %v", err)
			}
			return nil
		}, "DynamoDB.UpdateItem=1"},
	}
	for _, tc := range tests {
		counter.Reset()
		if err := tc.call(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := counter.String(); got != tc.want {
			t.Errorf("%s made calls %q; want %q", tc.name, got, tc.want)
		}
	}
}

// TestRunReplay runs a whole run twice, as a turn retried after a crash
// at its very end would: the table holds one copy of everything, and the
// record is the first attempt's.
func TestRunReplay(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	rec := startedRun()
	evs := runEvents(rec.RunID, 1, 40)
	done := rec
	done.Status, done.EndedAt = run.StatusOK, rec.StartedAt+900
	for attempt := 1; attempt <= 2; attempt++ {
		s.now = func() time.Time { return time.Unix(1_800_000_000+int64(attempt), 0) }
		rs := s.Runs()
		retry := rec
		retry.StartedAt += int64(attempt - 1) // a retry starts later
		if err := rs.Start(ctx, retry, evs[:1]); err != nil {
			t.Fatalf("attempt %d: Start: %v", attempt, err)
		}
		if err := rs.Append(ctx, rec.RunID, evs[1:38]); err != nil {
			t.Fatalf("attempt %d: Append: %v", attempt, err)
		}
		if err := rs.Finish(ctx, done, evs[38:]); err != nil {
			t.Fatalf("attempt %d: Finish: %v", attempt, err)
		}
	}
	items := partition(t, rec.RunID)
	if len(items) != 1+len(evs) {
		t.Fatalf("run partition has %d items after a replay; want %d (one record, one copy of each event)", len(items), 1+len(evs))
	}
	got, err := s.Runs().Get(ctx, rec.RunID)
	if err != nil || got != done {
		t.Fatalf("Get = %+v, %v; want the first attempt's %+v", got, err, done)
	}
	if ttl, _ := attrN(getItem(t, "run#"+rec.RunID, "record"), "ttl"); ttl != 1_800_000_001+int64(RunTTL/time.Second) {
		t.Errorf("record ttl = %d; want the first Finish's", ttl)
	}
}

// Finish's transaction holds 99 events of the largest size: under
// DynamoDB's 4 MB per transaction.
func TestRunLargestEvents(t *testing.T) {
	ctx := context.Background()
	rs := New(testClient, freshTable(t)).Runs()
	rec := startedRun()
	if err := rs.Start(ctx, rec, nil); err != nil {
		t.Fatal(err)
	}
	data := json.RawMessage(`"` + strings.Repeat("x", run.MaxDataBytes-2) + `"`)
	var evs []run.Event
	for seq := int64(1); seq <= 120; seq++ {
		evs = append(evs, run.Event{Seq: seq, Stream: run.StreamTool, TS: seq, Data: data})
	}
	if err := rs.Finish(ctx, run.Record{RunID: rec.RunID, Status: run.StatusOK, EndedAt: rec.StartedAt + 1}, evs); err != nil {
		t.Fatalf("Finish with 120 events of %d bytes: %v", run.MaxDataBytes, err)
	}
	got, err := rs.Events(ctx, rec.RunID, 0, run.MaxLimit)
	if err != nil || len(got) != 120 {
		t.Fatalf("Events = %d events, %v; want 120 (pages past 1 MB continued)", len(got), err)
	}
	for i, e := range got {
		if e.Seq != int64(i+1) || string(e.Data) != string(data) {
			t.Fatalf("event %d: seq %d, %d bytes of data", i, e.Seq, len(e.Data))
		}
	}
}

// Run records and events never show up in the session indexes.
func TestRunsStayOutOfTheIndexes(t *testing.T) {
	ctx := context.Background()
	rs := New(testClient, testTable).Runs()
	rec := startedRun()
	if err := rs.Start(ctx, rec, runEvents(rec.RunID, 1, 1)); err != nil {
		t.Fatal(err)
	}
	out, err := testClient.Query(ctx, &dynamodb.QueryInput{
		TableName: &testTable, IndexName: aws.String("bySessionId"),
		KeyConditionExpression:    aws.String("sessionId = :s"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": &types.AttributeValueMemberS{Value: rec.SessionID}},
	})
	if err != nil || len(out.Items) != 0 {
		t.Fatalf("bySessionId has %d items for a run's session id (%v); want none", len(out.Items), err)
	}
}

func TestRunErrorClasses(t *testing.T) {
	ctx := context.Background()
	missing := New(testClient, awstest.Name("zero-missing-")).Runs()
	rec := startedRun()
	done := rec
	done.Status, done.EndedAt = run.StatusOK, rec.StartedAt+1
	evs := runEvents(rec.RunID, 1, 1)
	// A missing table is a deployment fault, never "run not found".
	tests := []struct {
		name string
		call func() error
	}{
		{"Start", func() error { return missing.Start(ctx, rec, evs) }},
		{"Start without events", func() error { return missing.Start(ctx, rec, nil) }},
		{"Append", func() error { return missing.Append(ctx, rec.RunID, evs) }},
		{"Finish", func() error { return missing.Finish(ctx, done, evs) }},
		{"Finish without events", func() error { return missing.Finish(ctx, done, nil) }},
		{"Get", func() error { _, err := missing.Get(ctx, rec.RunID); return err }},
		{"Events", func() error { _, err := missing.Events(ctx, rec.RunID, 0, 0); return err }},
		{"LastSeq", func() error { _, err := missing.LastSeq(ctx, rec.RunID); return err }},
	}
	for _, tc := range tests {
		if err := tc.call(); !fault.Is(err, fault.Internal) {
			t.Errorf("%s on a missing table = %v; want fault.Internal", tc.name, err)
		}
	}
}

// TestRunGetMany reads several run records in one BatchGetItem: missing
// runs are left out, duplicates read once, the order is the ids'.
func TestRunGetMany(t *testing.T) {
	ctx := context.Background()
	rs := New(testClient, testTable).Runs()
	a, b := startedRun(), startedRun()
	for _, r := range []run.Record{a, b} {
		if err := rs.Start(ctx, r, nil); err != nil {
			t.Fatal(err)
		}
	}
	done := b
	done.Status, done.EndedAt, done.Usage = run.StatusOK, b.StartedAt+1500, run.Usage{Input: 10, Output: 5}
	if err := rs.Finish(ctx, done, nil); err != nil {
		t.Fatal(err)
	}
	absent := run.NewID("")
	many := make([]string, 101)
	for i := range many {
		many[i] = run.NewID("")
	}
	tests := []struct {
		name      string
		ids       []string
		want      []string // run ids, in order
		wantCalls string
		wantCode  fault.Code // "" : no error
	}{
		{"both, newest first", []string{b.RunID, a.RunID}, []string{b.RunID, a.RunID}, "DynamoDB.BatchGetItem=1", ""},
		{"a missing run is left out", []string{absent, a.RunID}, []string{a.RunID}, "DynamoDB.BatchGetItem=1", ""},
		{"duplicates read once", []string{a.RunID, a.RunID, b.RunID}, []string{a.RunID, b.RunID}, "DynamoDB.BatchGetItem=1", ""},
		{"none: no call", nil, nil, "", ""},
		{"an empty id", []string{""}, nil, "", fault.Invalid},
		{"over 100 ids", many, nil, "", fault.Invalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			counter.Reset()
			recs, err := rs.GetMany(ctx, tc.ids)
			if tc.wantCode != "" {
				if !fault.Is(err, tc.wantCode) {
					t.Fatalf("err = %v; want %s", err, tc.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range recs {
				got = append(got, r.RunID)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("runs %v; want %v", got, tc.want)
			}
			if c := counter.String(); c != tc.wantCalls {
				t.Errorf("calls %q; want %q", c, tc.wantCalls)
			}
		})
	}
	recs, err := rs.GetMany(ctx, []string{b.RunID})
	if err != nil || len(recs) != 1 {
		t.Fatalf("GetMany = %v, %v", recs, err)
	}
	if got := recs[0]; got.Status != run.StatusOK || got.EndedAt != done.EndedAt || got.Usage.Input != 10 || got.SessionID != b.SessionID || got.Model != b.Model {
		t.Errorf("record %+v; want the finished run %+v", got, done)
	}
}

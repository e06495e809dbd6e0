package dynamo

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/run/runtest"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/turn"
	"github.com/zero-gateway/zero/shared/turn/turntest"
)

func TestConformance(t *testing.T) {
	turntest.TestStore(t, func(t *testing.T) turn.Store { return New(testClient, freshTable(t)) })
}

func TestCommitterConformance(t *testing.T) {
	turntest.TestCommitter(t, func(t *testing.T) (turn.Store, runtest.Store) {
		s := New(testClient, testTable) // ids are unique per subtest
		return s, s.Runs()
	})
}

func uniqueIDs(t *testing.T) (key, msg string) {
	s := awstest.Suffix()
	return "agent:main:test:" + s, "test:" + t.Name() + ":" + s
}

func getItem(t *testing.T, pk, sk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := testClient.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: &testTable, Key: key(pk, sk), ConsistentRead: new(true),
	})
	if err != nil {
		t.Fatalf("GetItem %s %s: %v", pk, sk, err)
	}
	return out.Item
}

func attrS(item map[string]types.AttributeValue, name string) (string, bool) {
	s, ok := item[name].(*types.AttributeValueMemberS)
	if !ok {
		return "", false
	}
	return s.Value, true
}

func attrN(item map[string]types.AttributeValue, name string) (int64, bool) {
	n, ok := item[name].(*types.AttributeValueMemberN)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(n.Value, 10, 64)
	return v, err == nil
}

func TestItemLayout(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	now := time.Unix(1_800_000_000, 0)
	s.now = func() time.Time { return now }
	key, msg := uniqueIDs(t)
	e := session.Entry{
		SessionID: "sid", UpdatedAt: 42, Channel: "telegram",
		Origin:          session.Origin{Label: "Ann", From: "telegram:1"},
		DeliveryContext: session.DeliveryContext{Channel: "telegram", To: "1"},
		InputTokens:     7, TranscriptSeq: 1, Version: 1,
	}
	c := sessionstate.ModelContext{SessionID: "sid", Messages: []model.Message{{Role: model.User, Content: "<hi> & \"bye\"\n"}}}
	r := receipt.Receipt{MessageID: msg, SessionKey: key, State: "ignored", Reply: "hello", Delivery: e.DeliveryContext}
	if err := s.Commit(ctx, key, e, c, r); err != nil {
		t.Fatalf("Commit: %v", err)
	}

	entry := getItem(t, "session#"+key, "entry")
	for name, want := range map[string]string{"sessionId": "sid", "channel": "telegram"} {
		if got, _ := attrS(entry, name); got != want {
			t.Errorf("entry %s = %q; want %q", name, got, want)
		}
	}
	for name, want := range map[string]int64{"updatedAt": 42, "inputTokens": 7, "transcriptSeq": 1, "version": 1} {
		if got, _ := attrN(entry, name); got != want {
			t.Errorf("entry %s = %d; want %d", name, got, want)
		}
	}
	origin, ok := entry["origin"].(*types.AttributeValueMemberM)
	if !ok {
		t.Fatalf("entry origin = %#v; want a map", entry["origin"])
	}
	if got, _ := attrS(origin.Value, "label"); got != "Ann" || len(origin.Value) != 2 {
		t.Errorf("origin = %v; want label and from only", origin.Value)
	}
	if _, ok := entry["deliveryContext"].(*types.AttributeValueMemberM); !ok {
		t.Errorf("entry deliveryContext = %#v; want a map", entry["deliveryContext"])
	}
	for _, absent := range []string{"displayName", "outputTokens", "lastEntryId", "ttl"} {
		if _, ok := entry[absent]; ok {
			t.Errorf("entry has empty attribute %s", absent)
		}
	}

	cx := getItem(t, "session#"+key, "context")
	if got, _ := attrS(cx, "messages"); got != `[{"role":"user","content":"<hi> & \"bye\"\n"}]` {
		t.Errorf("context messages = %s", got)
	}

	rec := getItem(t, "msg#"+msg, "record")
	if got, _ := attrS(rec, "state"); got != receipt.Committed {
		t.Errorf("record state = %q; want %q (Commit always stores Committed)", got, receipt.Committed)
	}
	if got, _ := attrN(rec, "ttl"); got != now.Add(RecordTTL).Unix() {
		t.Errorf("record ttl = %d; want now + 30 days = %d", got, now.Add(RecordTTL).Unix())
	}
	if got, _ := attrS(rec, "reply"); got != "hello" {
		t.Errorf("record reply = %q", got)
	}

	if err := s.Finish(ctx, key, msg); err != nil {
		t.Fatalf("Finish: %v", err)
	}
	rec = getItem(t, "msg#"+msg, "record")
	if _, ok := rec["reply"]; ok {
		t.Errorf("Finish kept the reply attribute")
	}
	if got, _ := attrN(rec, "ttl"); got != now.Add(RecordTTL).Unix() {
		t.Errorf("Finish changed ttl to %d", got)
	}
}

func TestZeroEntryRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	key, msg := uniqueIDs(t)
	e := session.Entry{Version: 1} // every other field zero, sessionId empty too
	if err := s.Commit(ctx, key, e, sessionstate.ModelContext{}, receipt.Receipt{MessageID: msg}); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	snap, err := s.Load(ctx, key, msg)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if snap.Entry == nil || !reflect.DeepEqual(*snap.Entry, e) {
		t.Errorf("entry = %+v; want %+v", snap.Entry, e)
	}
	if snap.Context == nil || !reflect.DeepEqual(*snap.Context, sessionstate.ModelContext{}) {
		t.Errorf("context = %+v; want the empty context", snap.Context)
	}
	want := receipt.Receipt{MessageID: msg, State: receipt.Committed}
	if snap.Receipt == nil || !reflect.DeepEqual(*snap.Receipt, want) {
		t.Errorf("record = %+v; want %+v", snap.Receipt, want)
	}
	if _, ok := getItem(t, "session#"+key, "entry")["origin"]; ok {
		t.Errorf("empty origin stored as an attribute")
	}
}

func TestExpiredRecordIsAbsent(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	key, msg := uniqueIDs(t)
	// Commit 31 days ago: the record's ttl passed a day ago, but DynamoDB
	// (and moto) may not have deleted it.
	s.now = func() time.Time { return time.Now().Add(-RecordTTL - 24*time.Hour) }
	if err := s.Commit(ctx, key, session.Entry{SessionID: "a", Version: 1}, sessionstate.ModelContext{}, receipt.Receipt{MessageID: msg, SessionKey: key}); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	s.now = time.Now
	if getItem(t, "msg#"+msg, "record") == nil {
		t.Fatalf("the expired record is not in the table; the test needs it there")
	}
	snap, err := s.Load(ctx, key, msg)
	if err != nil || snap.Receipt != nil || snap.Entry == nil {
		t.Fatalf("Load = %+v, %v; want entry and no record", snap, err)
	}
	if err := s.Finish(ctx, key, msg); !fault.Is(err, fault.NotFound) {
		t.Errorf("Finish of an expired record = %v; want fault.NotFound", err)
	}
	// The message may commit again: its old record counts as absent.
	if err := s.Commit(ctx, key, session.Entry{SessionID: "a", Version: 2}, sessionstate.ModelContext{}, receipt.Receipt{MessageID: msg, SessionKey: key}); err != nil {
		t.Fatalf("Commit over an expired record: %v", err)
	}
	snap, err = s.Load(ctx, key, msg)
	if err != nil || snap.Receipt == nil || snap.Receipt.State != receipt.Committed {
		t.Fatalf("Load after recommit = %+v, %v; want a committed record", snap.Receipt, err)
	}
}

func bigContext(n, size int) sessionstate.ModelContext {
	c := sessionstate.ModelContext{SessionID: "big"}
	for i := range n {
		role := model.User
		if i%2 == 1 {
			role = model.Assistant
		}
		c.Messages = append(c.Messages, model.Message{Role: role, Content: fmt.Sprintf("%06d:", i) + strings.Repeat("é\"x", size/4)})
	}
	return c
}

func TestContext300KB(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	key, msg := uniqueIDs(t)
	c := bigContext(300, 1000) // 300 messages of ~1 KB (multi-byte and escaped characters)
	if err := s.Commit(ctx, key, session.Entry{SessionID: "big", Version: 1}, c, receipt.Receipt{MessageID: msg}); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	snap, err := s.Load(ctx, key, msg)
	if err != nil || snap.Context == nil || !reflect.DeepEqual(*snap.Context, c) {
		t.Fatalf("300 KB context did not round-trip (err %v)", err)
	}
}

// TestOversizeContextRefused: a context too large for one item is refused
// whole and nothing is written — the store never drops messages to make
// it fit (the engine folds long contexts into a base object first).
func TestOversizeContextRefused(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	key, msg := uniqueIDs(t)
	c := bigContext(600, 1000) // ~750 KB of JSON: cannot fit one item
	err := s.Commit(ctx, key, session.Entry{SessionID: "big", Version: 1}, c, receipt.Receipt{MessageID: msg})
	if !fault.Is(err, fault.Invalid) {
		t.Fatalf("Commit of a 750 KB context = %v; want fault.Invalid", err)
	}
	snap, err := s.Load(ctx, key, msg)
	if err != nil || snap.Entry != nil || snap.Context != nil || snap.Receipt != nil {
		t.Fatalf("Load after a refused commit = %+v, %v; want nothing written", snap, err)
	}
}

func TestCallsPerOperation(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	key, msg := uniqueIDs(t)
	step := func(name, wantOp string, f func() error) {
		t.Helper()
		counter.Reset()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := counter.String(); got != "DynamoDB."+wantOp+"=1" {
			t.Errorf("%s made calls %s; want exactly one %s", name, got, wantOp)
		}
	}
	step("Load", "BatchGetItem", func() error { _, err := s.Load(ctx, key, msg); return err })
	step("Commit", "TransactWriteItems", func() error {
		return s.Commit(ctx, key, session.Entry{SessionID: "a", Version: 1}, sessionstate.ModelContext{SessionID: "a"}, receipt.Receipt{MessageID: msg})
	})
	step("Finish", "UpdateItem", func() error { return s.Finish(ctx, key, msg) })
	step("Load after commit", "BatchGetItem", func() error { _, err := s.Load(ctx, key, msg); return err })
}

func TestErrorClasses(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	if _, err := s.Load(ctx, "", "m"); !fault.Is(err, fault.Invalid) {
		t.Errorf("Load with empty key = %v; want fault.Invalid", err)
	}
	if err := s.Commit(ctx, "k", session.Entry{}, sessionstate.ModelContext{}, receipt.Receipt{MessageID: "m"}); !fault.Is(err, fault.Invalid) {
		t.Errorf("Commit of version 0 = %v; want fault.Invalid", err)
	}
	// A missing table is a deployment fault, never "record not found".
	missing := New(testClient, awstest.Name("zero-missing-"))
	if err := missing.Finish(ctx, "k", "m"); fault.Is(err, fault.NotFound) || err == nil {
		t.Errorf("Finish on a missing table = %v; want an error other than fault.NotFound", err)
	}
	if _, err := missing.Load(ctx, "k", "m"); err == nil {
		t.Errorf("Load on a missing table succeeded")
	}
}

func TestCommitConflictNamesTheItem(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	key, msg := uniqueIDs(t)
	e := session.Entry{SessionID: "a", Version: 1}
	if err := s.Commit(ctx, key, e, sessionstate.ModelContext{}, receipt.Receipt{MessageID: msg}); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	e.Version = 2
	err := s.Commit(ctx, key, e, sessionstate.ModelContext{}, receipt.Receipt{MessageID: msg})
	if !fault.Is(err, fault.Conflict) || !strings.Contains(err.Error(), "already committed") {
		t.Errorf("recommit = %v; want fault.Conflict naming the record", err)
	}
	e.Version = 5
	err = s.Commit(ctx, key, e, sessionstate.ModelContext{}, receipt.Receipt{MessageID: msg + "x"})
	if !fault.Is(err, fault.Conflict) || !strings.Contains(err.Error(), "not at version 4") {
		t.Errorf("skipped version = %v; want fault.Conflict naming the entry", err)
	}
}

// BenchmarkTurn runs Load, Commit and Finish of one turn per iteration and
// reports the DynamoDB calls per turn (3: the number that matters; the time
// is moto's).
func BenchmarkTurn(b *testing.B) {
	ctx := context.Background()
	s := New(testClient, testTable)
	key := awstest.Name("agent:main:bench:")
	counter.Reset()
	var version int64
	for i := 0; b.Loop(); i++ {
		msg := fmt.Sprintf("bench:%s:%d", key, i)
		snap, err := s.Load(ctx, key, msg)
		if err != nil {
			b.Fatal(err)
		}
		if snap.Entry != nil {
			version = snap.Entry.Version
		}
		c := sessionstate.ModelContext{SessionID: "b", Messages: []model.Message{{Role: model.User, Content: "hi"}}}
		if err := s.Commit(ctx, key, session.Entry{SessionID: "b", Version: version + 1}, c, receipt.Receipt{MessageID: msg, Reply: "hello"}); err != nil {
			b.Fatal(err)
		}
		if err := s.Finish(ctx, key, msg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(counter.Total())/float64(b.N), "calls/turn")
}

func TestFailuresConformance(t *testing.T) {
	turntest.TestFailures(t, func(t *testing.T) turn.Failures { return New(testClient, freshTable(t)) })
}

package dynamo

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/session/sessiontest"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/turn/turntest"
)

func TestSessionConformance(t *testing.T) {
	sessiontest.TestStore(t, func(t *testing.T) sessiontest.Harness {
		// A table per subtest: moto copies the whole table on every
		// transaction, so a small table keeps the suite fast.
		return turntest.SessionHarness(New(testClient, freshTable(t)))
	})
}

// eventually polls check for up to sessiontest.Eventually: Lookup and List
// read eventually consistent indexes.
func eventually(t *testing.T, check func() error) {
	t.Helper()
	deadline := time.Now().Add(sessiontest.Eventually)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func seedEntry(t *testing.T, s *Store, key string, e session.Entry) {
	t.Helper()
	c := sessionstate.ModelContext{SessionID: e.SessionID, Messages: []model.Message{{Role: model.User, Content: "hi"}}}
	if err := s.Commit(context.Background(), key, e, c, receipt.Receipt{MessageID: "seed:" + key}); err != nil {
		t.Fatalf("seed %s: %v", key, err)
	}
}

func TestSessionCallsPerOperation(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	agent := awstest.Name("calls-")
	key, sid := "agent:"+agent+":main", awstest.Name("sid-")
	seedEntry(t, s, key, session.Entry{SessionID: sid, AgentID: agent, UpdatedAt: 1, Version: 1})
	// Let the indexes catch up first, so each step below is one try.
	eventually(t, func() error { _, _, err := s.Lookup(ctx, sid); return err })
	eventually(t, func() error {
		rows, err := s.List(ctx, session.ListQuery{AgentID: agent})
		if err == nil && len(rows) != 1 {
			err = fmt.Errorf("List = %d rows; want 1", len(rows))
		}
		return err
	})

	to := key + ":moved"
	tests := []struct {
		name string
		call func() error
		want string // counter.String()
	}{
		{"Get", func() error { _, err := s.Get(ctx, key); return err }, "DynamoDB.GetItem=1"},
		{"Get of a missing key", func() error {
			if _, err := s.Get(ctx, key+":none"); !fault.Is(err, fault.NotFound) {
				return fmt.Errorf("want fault.NotFound, got %v", err)
			}
			return nil
		}, "DynamoDB.GetItem=1"},
		{"Lookup", func() error { _, _, err := s.Lookup(ctx, sid); return err }, "DynamoDB.GetItem=1 DynamoDB.Query=1"},
		{"Lookup of an unknown id", func() error {
			if _, _, err := s.Lookup(ctx, sid+"-none"); !fault.Is(err, fault.NotFound) {
				return fmt.Errorf("want fault.NotFound, got %v", err)
			}
			return nil
		}, "DynamoDB.Query=1"},
		{"List", func() error { _, err := s.List(ctx, session.ListQuery{AgentID: agent}); return err }, "DynamoDB.Query=1"},
		{"Update", func() error {
			_, err := s.Update(ctx, key, func(e *session.Entry) error { e.Label = "x"; return nil })
			return err
		}, "DynamoDB.GetItem=1 DynamoDB.PutItem=1"},
		{"Move", func() error {
			return s.Move(ctx, key, 2, to, session.Entry{SessionID: sid, AgentID: agent, Version: 1}, receipt.Receipt{MessageID: "move:" + key})
		}, "DynamoDB.TransactWriteItems=1"},
		{"Delete", func() error { return s.Delete(ctx, to) }, "DynamoDB.TransactWriteItems=1"},
	}
	for _, tc := range tests {
		counter.Reset()
		if err := tc.call(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := counter.String(); got != tc.want {
			t.Errorf("%s made calls %s; want %s", tc.name, got, tc.want)
		}
	}
}

// TestConcurrentWriters races two writers of one entry, each bumping its
// own counter field 10 times: no bump may be lost, the version counts every
// write, and updatedAt never moves back.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	const rounds = 10
	// A writer does its i-th write and returns the version it wrote.
	type writer func(s *Store, key string, i int) (int64, error)

	// update is the API side: Update bumps InputTokens and tries to move
	// updatedAt back, which Update must not allow.
	update := func(s *Store, key string, _ int) (int64, error) {
		got, err := s.Update(ctx, key, func(e *session.Entry) error { e.InputTokens++; e.UpdatedAt = 0; return nil })
		return got.Version, err
	}
	updateOutput := func(s *Store, key string, _ int) (int64, error) {
		got, err := s.Update(ctx, key, func(e *session.Entry) error { e.OutputTokens++; e.UpdatedAt = 0; return nil })
		return got.Version, err
	}
	// commit is the runner: load, then commit the next version with
	// OutputTokens bumped and updatedAt one later. The loser of a race
	// gets fault.Conflict and, as a redelivery would, loads again.
	commit := func(s *Store, key string, i int) (int64, error) {
		msg := fmt.Sprintf("race:%s:%d", key, i)
		for attempt := 1; attempt <= 50; attempt++ {
			snap, err := s.Load(ctx, key, msg)
			if err != nil {
				return 0, err
			}
			e := *snap.Entry
			e.OutputTokens++
			e.Version++
			e.Touch(e.UpdatedAt + 1)
			err = s.Commit(ctx, key, e, sessionstate.ModelContext{SessionID: e.SessionID}, receipt.Receipt{MessageID: msg, SessionKey: key})
			if err == nil {
				return e.Version, nil
			}
			if !fault.Is(err, fault.Conflict) {
				return 0, fmt.Errorf("Commit: %w; a lost race must be fault.Conflict", err)
			}
		}
		return 0, fmt.Errorf("turn %d: still conflicting after 50 attempts", i)
	}

	tests := []struct {
		name        string
		a, b        writer
		wantUpdated func(start int64) int64 // the final updatedAt
	}{
		{"update against update", update, updateOutput, func(start int64) int64 { return start }},
		{"update against turn commits", update, commit, func(start int64) int64 { return start + rounds }},
	}
	// race runs both writers on a fresh table and checks the outcome.
	race := func(t *testing.T, a, b writer, wantUpdated func(int64) int64) {
		// A table of its own: moto copies the whole table on every
		// transaction, so a small one keeps the race tight.
		s := New(testClient, freshTable(t))
		key := awstest.Name("agent:main:race:")
		start := session.Entry{SessionID: "a", UpdatedAt: 1000, Version: 1}
		seedEntry(t, s, key, start)

		var mu sync.Mutex
		written := map[int64]int{} // version -> writes that reported it
		var wg sync.WaitGroup
		errs := make(chan error, 4*rounds)
		for _, w := range []writer{a, b} {
			wg.Go(func() {
				for i := range rounds {
					v, err := w(s, key, i)
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					written[v]++
					mu.Unlock()
					if got, err := s.Get(ctx, key); err == nil && got.UpdatedAt < start.UpdatedAt {
						errs <- fmt.Errorf("updatedAt moved back to %d", got.UpdatedAt)
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for v, n := range written {
			if n > 1 {
				t.Fatalf("%d conditional writes were acknowledged at version %d; exactly one may win", n, v)
			}
		}
		got, err := s.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		want := start
		want.InputTokens, want.OutputTokens = rounds, rounds
		want.Version = 1 + 2*rounds
		want.UpdatedAt = wantUpdated(start.UpdatedAt)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("after 2×%d racing writes: %+v\nwant %+v", rounds, got, want)
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			race(t, tc.a, tc.b, tc.wantUpdated)
		})
	}
}

func TestUpdateGivesUp(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	key := awstest.Name("agent:main:contended:")
	seedEntry(t, s, key, session.Entry{SessionID: "a", Version: 1})
	// fn itself moves the stored version each time, as a writer that
	// always wins would: every conditional put fails.
	calls := 0
	counter.Reset()
	_, err := s.Update(ctx, key, func(e *session.Entry) error {
		calls++
		_, err := testClient.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: &testTable, Key: entryKey(key),
			UpdateExpression:          aws.String("SET version = version + :one"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": number(1)},
		})
		e.Label = "lost"
		return err
	})
	if !fault.Is(err, fault.Conflict) || calls != maxUpdateAttempts {
		t.Fatalf("Update = %v after %d attempts; want fault.Conflict after %d", err, calls, maxUpdateAttempts)
	}
	// The failed puts return the current item: one read in all.
	want := fmt.Sprintf("DynamoDB.GetItem=1 DynamoDB.PutItem=%d DynamoDB.UpdateItem=%d", maxUpdateAttempts, maxUpdateAttempts)
	if got := counter.String(); got != want {
		t.Errorf("calls %s; want %s", got, want)
	}
	got, err := s.Get(ctx, key)
	if err != nil || got.Label != "" || got.Version != 1+maxUpdateAttempts {
		t.Fatalf("stored %+v, %v; want only the other writer's versions", got, err)
	}
}

func TestUpdateOfAnEntryDeletedMeanwhile(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	key := awstest.Name("agent:main:vanishing:")
	seedEntry(t, s, key, session.Entry{SessionID: "a", Version: 1})
	calls := 0
	_, err := s.Update(ctx, key, func(e *session.Entry) error {
		calls++
		return s.Delete(ctx, key)
	})
	if !fault.Is(err, fault.NotFound) || calls != 1 {
		t.Fatalf("Update = %v after %d calls of fn; want fault.NotFound after 1", err, calls)
	}
	if _, err := s.Get(ctx, key); !fault.Is(err, fault.NotFound) {
		t.Fatalf("Update recreated the deleted entry: Get = %v", err)
	}
}

// An entry stored without a version (an import) updates to version 1.
func TestUpdateOfAnUnversionedEntry(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	key := awstest.Name("agent:main:imported:")
	item := entryKey(key)
	item["sessionId"] = &types.AttributeValueMemberS{Value: "imported"}
	item["updatedAt"] = number(5)
	if _, err := testClient.PutItem(ctx, &dynamodb.PutItemInput{TableName: &testTable, Item: item}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Update(ctx, key, func(e *session.Entry) error { e.Label = "x"; return nil })
	if err != nil || got.Version != 1 || got.Label != "x" || got.SessionID != "imported" {
		t.Fatalf("Update = %+v, %v; want version 1 with the label", got, err)
	}
}

func TestMoveConflictNamesTheItem(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	key := awstest.Name("agent:main:telegram:group:")
	seedEntry(t, s, key, session.Entry{SessionID: "a", Version: 1})
	seedEntry(t, s, key+":taken", session.Entry{SessionID: "b", Version: 1})
	tests := []struct {
		name, to string
		version  int64
		want     string
	}{
		{"target exists", key + ":taken", 1, "already exists"},
		{"source moved on", key + ":free", 2, "not at version 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Move(ctx, key, tc.version, tc.to, session.Entry{SessionID: "a", Version: 1}, receipt.Receipt{MessageID: "move:" + tc.to})
			if !fault.Is(err, fault.Conflict) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Move = %v; want fault.Conflict saying %q", err, tc.want)
			}
		})
	}
}

// Context items keep their session id out of the bySessionId index, and
// ones written under the old attribute name still decode.
func TestContextSessionAttribute(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	key, msg := uniqueIDs(t)
	sid := awstest.Name("ctx-")
	seedEntry(t, s, key, session.Entry{SessionID: sid, Version: 1})
	cx := getItem(t, "session#"+key, "context")
	if got, _ := attrS(cx, "contextSessionId"); got != sid {
		t.Errorf("context contextSessionId = %q; want %q", got, sid)
	}
	if _, ok := cx["sessionId"]; ok {
		t.Errorf("context item has a sessionId attribute: it would land in the bySessionId index")
	}
	eventually(t, func() error {
		out, err := testClient.Query(ctx, &dynamodb.QueryInput{
			TableName: &testTable, IndexName: aws.String("bySessionId"),
			KeyConditionExpression:    aws.String("sessionId = :s"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":s": &types.AttributeValueMemberS{Value: sid}},
		})
		if err != nil {
			return err
		}
		if len(out.Items) != 1 || sortKey(out.Items[0]) != skEntry {
			return fmt.Errorf("bySessionId has %d items for %s; want only the entry", len(out.Items), sid)
		}
		return nil
	})

	// A context written before the rename, of the session a reset
	// replaced: it decodes, and its id, which it puts in the index, does
	// not resolve.
	old := awstest.Name("old-")
	legacy := contextKey(key)
	legacy["sessionId"] = &types.AttributeValueMemberS{Value: old}
	legacy["messages"] = &types.AttributeValueMemberS{Value: `[{"role":"user","content":"hi"}]`}
	if _, err := testClient.PutItem(ctx, &dynamodb.PutItemInput{TableName: &testTable, Item: legacy}); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Load(ctx, key, msg)
	if err != nil || snap.Context == nil || snap.Context.SessionID != old || len(snap.Context.Messages) != 1 {
		t.Fatalf("Load of a legacy context = %+v, %v; want session %s with one message", snap.Context, err, old)
	}
	if _, _, err := s.Lookup(ctx, old); !fault.Is(err, fault.NotFound) {
		t.Fatalf("Lookup of a legacy context's session id = %v; want fault.NotFound", err)
	}
}

func TestEmptySessionIDIsNotStored(t *testing.T) {
	s := New(testClient, testTable)
	key, _ := uniqueIDs(t)
	seedEntry(t, s, key, session.Entry{AgentID: "main", Version: 1})
	if _, ok := getItem(t, "session#"+key, "entry")["sessionId"]; ok {
		t.Fatalf("an empty sessionId was stored; DynamoDB rejects empty index keys")
	}
}

func TestSessionErrorClasses(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	missing := New(testClient, awstest.Name("zero-missing-"))
	noop := func(*session.Entry) error { return nil }
	tests := []struct {
		name string
		call func() error
		want fault.Code
	}{
		{"Get without key", func() error { _, err := s.Get(ctx, ""); return err }, fault.Invalid},
		{"Lookup without id", func() error { _, _, err := s.Lookup(ctx, ""); return err }, fault.Invalid},
		{"List without agent", func() error { _, err := s.List(ctx, session.ListQuery{}); return err }, fault.Invalid},
		{"Update without key", func() error { _, err := s.Update(ctx, "", noop); return err }, fault.Invalid},
		{"Delete without key", func() error { return s.Delete(ctx, "") }, fault.Invalid},
		{"Move onto itself", func() error {
			return s.Move(ctx, "k", 1, "k", session.Entry{Version: 1}, receipt.Receipt{MessageID: "m"})
		}, fault.Invalid},
		// A missing table is a deployment fault, never "not found".
		{"Get on a missing table", func() error { _, err := missing.Get(ctx, "k"); return err }, fault.Internal},
		{"Lookup on a missing table", func() error { _, _, err := missing.Lookup(ctx, "s"); return err }, fault.Internal},
		{"List on a missing table", func() error { _, err := missing.List(ctx, session.ListQuery{AgentID: "a"}); return err }, fault.Internal},
		{"Update on a missing table", func() error { _, err := missing.Update(ctx, "k", noop); return err }, fault.Internal},
		{"Delete on a missing table", func() error { return missing.Delete(ctx, "k") }, fault.Internal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !fault.Is(err, tc.want) {
				t.Fatalf("= %v; want fault.%s", err, tc.want)
			}
		})
	}
}

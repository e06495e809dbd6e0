package dynamo

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/receipt"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/sessionstate"
	"github.com/zero-gateway/zero/shared/steer"
	"github.com/zero-gateway/zero/shared/turn"
)

var _ turn.Steering = (*Store)(nil)

// TestSteerRecords: on moto, pending steer messages come back in arrival
// order (not message id order), a rewrite changes nothing, a message
// committed as collected reads as recorded, and dropped ones are gone;
// the session's own items (entry, context) are untouched.
func TestSteerRecords(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	key := awstest.Name("agent:main:steer:")
	other := awstest.Name("agent:main:steer-other:")
	pending := []steer.Pending{
		{MessageID: "tg:9", Text: "first", From: "telegram:7", At: 1000},
		{MessageID: "tg:10", Text: "second", From: "telegram:7", At: 2000},
	}
	for _, p := range append(pending, pending[0]) {
		if err := s.RecordSteer(ctx, key, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RecordSteer(ctx, other, steer.Pending{MessageID: "tg:11", Text: "elsewhere", At: 1500}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordSteer(ctx, key, steer.Pending{Text: "no id"}); err == nil {
		t.Error("a pending message without an id was recorded")
	}
	got, err := s.PendingSteer(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pending, got); diff != "" {
		t.Fatalf("pending (-want +got):\n%s", diff)
	}

	// A turn commits "tg:9" as one of its collected (steered) messages.
	e := session.Entry{SessionID: "s-steer", Version: 1}
	if err := s.Commit(ctx, key, e, sessionstate.ModelContext{SessionID: "s-steer"}, receipt.Receipt{MessageID: "tg:own", SessionKey: key, Collected: []string{"tg:9"}}); err != nil {
		t.Fatal(err)
	}
	recorded, err := s.Recorded(ctx, []string{"tg:9", "tg:10", "tg:own"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]bool{"tg:9": true, "tg:own": true}, recorded); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}

	if err := s.DropSteer(ctx, key, []string{"tg:9", "tg:gone"}); err != nil {
		t.Fatal(err)
	}
	got, err = s.PendingSteer(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pending[1:], got); diff != "" {
		t.Errorf("pending after the drop (-want +got):\n%s", diff)
	}
	snap, err := s.Load(ctx, key, "tg:own")
	if err != nil || snap.Entry == nil || snap.Context == nil || snap.Receipt == nil {
		t.Fatalf("the session's own items after steering: %+v, %v", snap, err)
	}
	if elsewhere, _ := s.PendingSteer(ctx, other); len(elsewhere) != 1 {
		t.Errorf("another session's pending messages: %+v", elsewhere)
	}
}

// TestSessionQueueMode: the door reads a session's own queue mode, "" for
// a session without one or no session at all, with one GetItem.
func TestSessionQueueMode(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	steering, plain, missing := awstest.Name("agent:main:mode-steer:"), awstest.Name("agent:main:mode-plain:"), awstest.Name("agent:main:mode-none:")
	for key, mode := range map[string]string{steering: "steer", plain: ""} {
		e := session.Entry{SessionID: "s-" + key, Version: 1, QueueMode: mode}
		if err := s.Commit(ctx, key, e, sessionstate.ModelContext{SessionID: e.SessionID}, receipt.Receipt{MessageID: "m-" + key, SessionKey: key}); err != nil {
			t.Fatal(err)
		}
	}
	for key, want := range map[string]string{steering: "steer", plain: "", missing: ""} {
		counter.Reset()
		got, err := s.SessionQueueMode(ctx, key)
		if err != nil || got != want {
			t.Errorf("SessionQueueMode(%s) = %q, %v; want %q", key, got, err, want)
		}
		if calls := counter.String(); calls != "DynamoDB.GetItem=1" {
			t.Errorf("SessionQueueMode made %s; want one GetItem", calls)
		}
	}
}

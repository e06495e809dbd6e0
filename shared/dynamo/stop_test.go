package dynamo

import (
	"context"
	"testing"

	"github.com/zero-gateway/zero/shared/turn"
)

func TestStopMark(t *testing.T) {
	ctx := context.Background()
	s := New(testClient, testTable)
	key := "agent:main:stop:" + randomSuffix()
	if m, err := s.StopMark(ctx, key); err != nil || m != nil {
		t.Fatalf("StopMark of an unmarked key = %+v, %v; want nil", m, err)
	}
	if err := s.MarkStop(ctx, key, turn.Stop{MessageID: "stop-1", At: 1000, Pending: true}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		do   func() error
	}{
		{"count an aborted run", func() error { return s.CountStop(ctx, key, "stop-1", true) }},
		{"count a dropped message", func() error { return s.CountStop(ctx, key, "stop-1", false) }},
		{"count another", func() error { return s.CountStop(ctx, key, "stop-1", false) }},
		{"another /stop's count is ignored", func() error { return s.CountStop(ctx, key, "stop-0", true) }},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
	}
	counter.Reset()
	snap, err := s.Load(ctx, key, "some-message")
	if err != nil {
		t.Fatal(err)
	}
	if got := counter.String(); got != "DynamoDB.BatchGetItem=1" {
		t.Fatalf("Load made %s; the stop mark must come in the same call", got)
	}
	want := turn.Stop{MessageID: "stop-1", At: 1000, Pending: true, Aborted: 1, Dropped: 2}
	if snap.Stop == nil || *snap.Stop != want {
		t.Fatalf("stop in the snapshot = %+v; want %+v", snap.Stop, want)
	}
	if err := s.StopDone(ctx, key, "stop-0"); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.StopMark(ctx, key); !m.Pending {
		t.Fatal("another /stop cleared this one's mark")
	}
	if err := s.StopDone(ctx, key, "stop-1"); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.StopMark(ctx, key); m == nil || m.Pending || m.Dropped != 2 {
		t.Fatalf("after StopDone: %+v; want the counts kept and pending cleared", m)
	}
	// A new /stop replaces the mark and starts its counts afresh.
	if err := s.MarkStop(ctx, key, turn.Stop{MessageID: "stop-2", At: 2000, Pending: true}); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.StopMark(ctx, key); m == nil || m.MessageID != "stop-2" || m.Dropped != 0 || !m.Pending {
		t.Fatalf("after a second /stop: %+v", m)
	}
}

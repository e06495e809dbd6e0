package ingesttest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
)

func TestMemQueue(t *testing.T) {
	TestQueue(t, func(*testing.T) Queue {
		q := &MemQueue{}
		return Queue{Queue: q, Receive: q.Receive}
	})
}

func TestMemQueueRefusals(t *testing.T) {
	ctx := context.Background()
	invalid := turn("s1", 1)
	invalid.To = ""
	tests := []struct {
		name     string
		q        *MemQueue
		m        inbound.Message
		wantCode fault.Code
	}{
		{name: "an invalid message, as sqsqueue refuses it", q: &MemQueue{}, m: invalid, wantCode: fault.Invalid},
		{name: "Err fails every call", q: &MemQueue{Err: fault.New(fault.Unavailable, "down")}, m: turn("s1", 1), wantCode: fault.Unavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.q.Enqueue(ctx, tt.m)
			if !fault.Is(err, tt.wantCode) {
				t.Errorf("Enqueue = %v; want %s", err, tt.wantCode)
			}
			if got := tt.q.Pending(); len(got) != 0 {
				t.Errorf("queued %v after a refusal", got)
			}
		})
	}
}

func TestMemQueueTake(t *testing.T) {
	ctx := context.Background()
	q := &MemQueue{}
	for _, m := range []inbound.Message{turn("s1", 1), turn("s2", 1)} {
		if err := q.Enqueue(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	want := []Delivery{{Group: turn("s1", 1).QueueGroup(), Message: turn("s1", 1)}, {Group: turn("s2", 1).QueueGroup(), Message: turn("s2", 1)}}
	if diff := cmp.Diff(want, q.Take()); diff != "" {
		t.Errorf("Take (-want +got):\n%s", diff)
	}
	if got := q.Take(); len(got) != 0 {
		t.Errorf("second Take = %v; want nothing", got)
	}
	if err := q.Enqueue(ctx, turn("s1", 1)); err != nil || len(q.Pending()) != 0 {
		t.Errorf("a taken message's id queued again: %v, pending %v; want it dropped", err, q.Pending())
	}
}

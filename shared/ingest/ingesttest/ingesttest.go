// Package ingesttest holds the conformance suite of the work queue port,
// ingest.Queue (turn.Enqueuer is the same method), which every
// implementation runs (shared/sqsqueue's Queue on the emulator, MemQueue
// here), and MemQueue, an in-memory FIFO work queue for unit tests.
package ingesttest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
)

// Delivery is a queued message as the queue's consumer receives it.
type Delivery struct {
	Group   string // the FIFO message group it was queued on
	Message inbound.Message
}

// Queue is one implementation under test: a fresh, empty queue.
type Queue struct {
	ingest.Queue
	// Receive takes the next n deliveries off the queue, in the order the
	// consumer gets them, failing t when n have not arrived within the
	// implementation's own deadline.
	Receive func(t *testing.T, n int) []Delivery
}

// TestQueue checks the ingest.Queue contract: a nil error means the
// message is queued on its FIFO group (inbound.Message.QueueGroup) and
// arrives whole; one group's messages arrive in the order they were
// queued; a message whose dedup id (inbound.Message.QueueDedup) the queue
// already took is dropped. newQueue must return a fresh queue for each
// case: the cases reuse message ids.
//
// Order across groups is not part of the contract: the suite compares
// each group's sequence on its own. Nor is the deduplication window's
// length: the suite repeats an id right away.
func TestQueue(t *testing.T, newQueue func(t *testing.T) Queue) {
	tests := []struct {
		name string
		send []inbound.Message // enqueued in order
		// want is what arrives: in order within each group (QueueGroup).
		want []inbound.Message
	}{
		{
			name: "one session's turns arrive in order, on the session's group",
			send: []inbound.Message{turn("s1", 1), turn("s1", 2), turn("s1", 3), turn("s1", 4), turn("s1", 5)},
			want: []inbound.Message{turn("s1", 1), turn("s1", 2), turn("s1", 3), turn("s1", 4), turn("s1", 5)},
		},
		{
			name: "interleaved sessions: each group keeps its own order",
			send: []inbound.Message{turn("s1", 1), turn("s2", 1), turn("s1", 2), turn("s3", 1), turn("s2", 2), turn("s1", 3), turn("s3", 2)},
			want: []inbound.Message{turn("s1", 1), turn("s2", 1), turn("s1", 2), turn("s3", 1), turn("s2", 2), turn("s1", 3), turn("s3", 2)},
		},
		{
			// A duplicate would arrive before the group's last message.
			name: "a repeated message id is delivered once, as first queued",
			send: []inbound.Message{turn("s1", 1), withText(turn("s1", 1), "a retry with other text"), turn("s1", 2), turn("s1", 1), turn("s1", 3)},
			want: []inbound.Message{turn("s1", 1), turn("s1", 2), turn("s1", 3)},
		},
		{
			name: "ids outside the queue's alphabet or length are deduplicated by the whole id",
			send: []inbound.Message{
				withID(turn("s1", 1), "telegram:ü:1"), withID(turn("s1", 2), "telegram:ü:2"), withID(turn("s1", 3), "telegram:ü:1"),
				withID(turn("s1", 4), strings.Repeat("x", 130)+"a"), withID(turn("s1", 5), strings.Repeat("x", 130)+"b"),
				withID(turn("s1", 6), "with space 1"), withID(turn("s1", 7), "with space 2"),
			},
			want: []inbound.Message{
				withID(turn("s1", 1), "telegram:ü:1"), withID(turn("s1", 2), "telegram:ü:2"),
				withID(turn("s1", 4), strings.Repeat("x", 130)+"a"), withID(turn("s1", 5), strings.Repeat("x", 130)+"b"),
				withID(turn("s1", 6), "with space 1"), withID(turn("s1", 7), "with space 2"),
			},
		},
		{
			name: "session keys outside the queue's alphabet or length keep their order apart",
			send: []inbound.Message{
				turn("ä b", 1), turn(strings.Repeat("k", 130)+"1", 1), turn("ä b", 2), turn(strings.Repeat("k", 130)+"2", 1), turn("ä b", 3),
			},
			want: []inbound.Message{
				turn("ä b", 1), turn(strings.Repeat("k", 130)+"1", 1), turn("ä b", 2), turn(strings.Repeat("k", 130)+"2", 1), turn("ä b", 3),
			},
		},
		{
			name: "deliveries go on their outbox item's group, apart from the session's",
			send: []inbound.Message{turn("s1", 1), deliver("o1", "s1"), turn("s1", 2), deliver("o2", "s1")},
			want: []inbound.Message{turn("s1", 1), deliver("o1", "s1"), turn("s1", 2), deliver("o2", "s1")},
		},
		{
			name: "every field arrives as queued",
			send: []inbound.Message{full()},
			want: []inbound.Message{full()},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			q := newQueue(t)
			for _, m := range tt.send {
				if err := q.Enqueue(ctx, m); err != nil {
					t.Fatalf("Enqueue %s: %v", m.ID, err)
				}
			}
			got := q.Receive(t, len(tt.want))
			for _, d := range got {
				if want := d.Message.QueueGroup(); d.Group != want {
					t.Errorf("message %s arrived on group %q; want %q", d.Message.ID, d.Group, want)
				}
			}
			if diff := cmp.Diff(byGroup(tt.want), byGroup(deliveries(got))); diff != "" {
				t.Errorf("arrivals by group, in order (-want +got):\n%s", diff)
			}
		})
	}
}

// turn is message seq of session (its key "agent:main:test:<session>").
func turn(session string, seq int) inbound.Message {
	return inbound.Message{
		ID: fmt.Sprintf("test:%s:%d", session, seq), AgentID: "main", SessionKey: "agent:main:test:" + session,
		Channel: "telegram", ChatType: inbound.Direct, To: "42", Text: fmt.Sprint("turn ", seq), ReceivedAt: 1_700_000_000_000 + int64(seq),
	}
}

// deliver is the KindDeliver message of outbox item id, announced to session.
func deliver(id, session string) inbound.Message {
	m := turn(session, 0)
	m.ID, m.Kind, m.OutboxID, m.Text = "deliver:"+id, inbound.KindDeliver, id, ""
	return m
}

func withText(m inbound.Message, text string) inbound.Message { m.Text = text; return m }
func withID(m inbound.Message, id string) inbound.Message     { m.ID = id; return m }

// full sets every field, with text that is hard to carry.
func full() inbound.Message {
	return inbound.Message{
		ID: "discord:1:full", AgentID: "ops", SessionKey: "agent:ops:discord:group:g1", Channel: "discord", AccountID: "acct",
		ChatType: inbound.Group, From: "discord:7", To: "c1", ThreadID: "t1", GroupID: "g1", Subject: "Ops <team>",
		SenderName: "Zoë", Text: "<b>&</b> \x00\x1f \ufffe\uffff \u2028 😀 \"quoted\"\n", ReceivedAt: 1_700_000_000_123,
		ReplyToken: "tok", Kind: inbound.KindMigrate, MigrateFrom: "agent:ops:discord:group:g0",
		ExtraSystemPrompt: "be brief", TimeoutSeconds: 30, Label: "lbl", SpawnedBy: "agent:main:main", Model: "openai/gpt-test",
		Flow: &inbound.Flow{Kind: inbound.FlowSubagent, ID: "f1", Round: 2, MaxTurns: 5, Requester: "agent:main:main",
			RequesterAgent: "main", RequesterChannel: "telegram", Target: "agent:ops:subagent:x", TargetAgent: "ops",
			Request: "do it", FirstReply: "one", LastReply: "two", Route: &inbound.Route{Channel: "telegram", To: "42", AccountID: "a", ThreadID: "9"},
			Label: "child", Cleanup: "keep", StartedAt: 1_700_000_000_000},
		Attachments: []inbound.Attachment{{Kind: inbound.AttachmentImage, FileID: "file-1", URL: "https://cdn.example/x.png", MimeType: "image/png", Size: 1234}},
	}
}

func deliveries(ds []Delivery) []inbound.Message {
	out := make([]inbound.Message, len(ds))
	for i, d := range ds {
		out[i] = d.Message
	}
	return out
}

// byGroup splits ms by QueueGroup, keeping their order within each.
func byGroup(ms []inbound.Message) map[string][]inbound.Message {
	out := map[string][]inbound.Message{}
	for _, m := range ms {
		out[m.QueueGroup()] = append(out[m.QueueGroup()], m)
	}
	return out
}

// MemQueue is an in-memory FIFO work queue: Enqueue validates the
// message as sqsqueue.Queue does (fault.Invalid), drops a dedup id it took
// before (its window never ends) and keeps the rest in order. Safe for
// concurrent use.
type MemQueue struct {
	mu      sync.Mutex
	seen    map[string]bool
	pending []Delivery
	// Err, when set, fails every Enqueue, which then queues nothing.
	Err error
}

var _ ingest.Queue = (*MemQueue)(nil)

// Enqueue implements ingest.Queue.
func (q *MemQueue) Enqueue(_ context.Context, m inbound.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.Err != nil {
		return q.Err
	}
	if err := m.Validate(); err != nil {
		return err
	}
	if q.seen == nil {
		q.seen = map[string]bool{}
	}
	if q.seen[m.QueueDedup()] {
		return nil
	}
	q.seen[m.QueueDedup()] = true
	q.pending = append(q.pending, Delivery{Group: m.QueueGroup(), Message: m})
	return nil
}

// Pending is what is queued and not yet taken, in queue order.
func (q *MemQueue) Pending() []inbound.Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	return deliveries(q.pending)
}

// Take removes and returns everything queued, in queue order.
func (q *MemQueue) Take() []Delivery {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.pending
	q.pending = nil
	return out
}

// Receive is a Queue.Receive for the suite: the next n deliveries, at
// once (fewer fail t).
func (q *MemQueue) Receive(t *testing.T, n int) []Delivery {
	t.Helper()
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pending) < n {
		t.Fatalf("%d messages queued; want %d", len(q.pending), n)
	}
	out := q.pending[:n:n]
	q.pending = q.pending[n:]
	return out
}

package devstack

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zero-gateway/zero/cmd/zero/devstack/iampolicy"
	"github.com/zero-gateway/zero/shared/config"
)

// Per-record completion (docs/queues.md): the runner deletes a finished
// session's records itself, so a slow turn no longer holds back the next
// message of every other session whose message shared its batch.

const (
	completionChats = 8               // sessions in the burst
	completionSlow  = 2               // of which the first two have a slow model
	completionDelay = 8 * time.Second // the slow sessions' model delay
	// completionWant bounds the wait of an instant session's second
	// message, from its post to its reply. Without per-record completion
	// it waits for the slow turns: about completionDelay.
	completionWant = 3 * time.Second
)

// TestPerRecordCompletion sends one message from each of 8 sessions at
// once, held so that they reach the runner in one batch; 2 sessions' model
// takes 8 s, the others answer at once. Each instant session then sends a
// second message, which must be answered within 3 s, before the slow
// sessions' replies: its session's first record was deleted when its turn
// ended, not when the batch did. Every message is answered once, in order.
func TestPerRecordCompletion(t *testing.T) {
	needRIE(t)
	p := loadParams{
		chats: completionChats, messages: 2, queueMode: config.QueueCollect, senders: completionChats, timeout: 2 * time.Minute,
		delayOf: func(chat int) time.Duration {
			if chat < completionSlow {
				return completionDelay
			}
			return 0
		},
	}
	rig := startLoadRig(t, "complete", p)
	ctx, cancel := context.WithTimeout(t.Context(), p.timeout)
	defer cancel()

	rig.sendBurst(t, ctx)
	instant := make([]int, 0, completionChats-completionSlow)
	for chat := completionSlow; chat < completionChats; chat++ {
		instant = append(instant, chat)
	}
	rig.waitReplies(t, ctx, instant, 1)
	sentAt := rig.postAll(t, ctx, instant, 2)
	rig.waitReplies(t, ctx, instant, 2)
	if err := rig.waitCovered(ctx, completionChats+len(instant)); err != nil {
		rig.logProblems(t)
		t.Fatalf("%d of %d messages answered: %v", rig.telegram.coveredCount(), completionChats+len(instant), err)
	}
	time.Sleep(loadSettle)

	replies, _ := rig.telegram.snapshot()
	firstSlow := time.Time{}
	for chat := range completionSlow {
		at, _ := replyAt(replies, chat, 1)
		if firstSlow.IsZero() || at.Before(firstSlow) {
			firstSlow = at
		}
	}
	var waits []time.Duration
	for _, chat := range instant {
		at, _ := replyAt(replies, chat, 2)
		waits = append(waits, at.Sub(sentAt[chat]))
		if !at.Before(firstSlow) {
			t.Errorf("chat %d's second message answered at %s, after the first slow reply (%s): the slow turns held it",
				chat, at.Format("15:04:05.000"), firstSlow.Format("15:04:05.000"))
		}
	}
	worst := slices.Max(waits)
	burst := rig.burstBatch(t)
	t.Logf("BENCH per_record_completion second_message_wait max=%s mean=%s (want <= %s; slow model %s) burst_batch records=%d runner_ops=%q",
		worst.Round(time.Millisecond), mean(waits).Round(time.Millisecond), completionWant, completionDelay, burst.Records, burst.AWSOps)
	if worst > completionWant {
		t.Errorf("an instant session's second message waited %s for its reply; want at most %s (waits %v)", worst.Round(time.Millisecond), completionWant, waits)
	}
	checkCompletionReplies(t, rig, p)
	checkCompletionIAM(t, rig.stack)
}

// checkCompletionIAM: the runner deleted records itself, on the work
// queue, and every call the functions made is one their template role
// allows (the early deletes as sqs:DeleteMessage).
func checkCompletionIAM(t *testing.T, st *Stack) {
	t.Helper()
	queue := st.Resources.Queues["WorkQueue"].ARN
	if !slices.ContainsFunc(st.AWSCalls(), func(c iampolicy.Call) bool {
		return c.Function == "Runner" && c.Operation == "SQS.DeleteMessageBatch" && c.Action == "sqs:DeleteMessage" && c.Resource == queue
	}) {
		t.Errorf("no runner SQS.DeleteMessageBatch (as sqs:DeleteMessage) on %s recorded", queue)
	}
	if err := st.CheckIAM(); err != nil {
		t.Error(err)
	}
}

// sendBurst posts every chat's first message while the event source
// mapping's receives are held, then lets them through: the first receive
// takes the whole burst as one batch.
func (r *loadRig) sendBurst(t *testing.T, ctx context.Context) {
	t.Helper()
	holdCtx, cancel := context.WithTimeout(ctx, 30*time.Second) // a long poll's wait is 5 s here
	defer cancel()
	open, err := r.proxy.holdReceives(holdCtx)
	if err != nil {
		t.Fatalf("holding the receives: %v", err)
	}
	defer open()
	chats := make([]int, completionChats)
	for i := range chats {
		chats[i] = i
	}
	r.postAll(t, ctx, chats, 1)
}

// postAll posts message seq of each chat at once and returns when each
// post was answered.
func (r *loadRig) postAll(t *testing.T, ctx context.Context, chats []int, seq int) map[int]time.Time {
	t.Helper()
	var (
		mu   sync.Mutex
		sent = map[int]time.Time{}
		wg   sync.WaitGroup
	)
	for _, chat := range chats {
		wg.Go(func() {
			if err := r.post(ctx, chat, seq); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			sent[chat] = time.Now()
			mu.Unlock()
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return sent
}

// waitReplies waits until message seq of every chat was answered.
func (r *loadRig) waitReplies(t *testing.T, ctx context.Context, chats []int, seq int) {
	t.Helper()
	for {
		replies, _ := r.telegram.snapshot()
		missing := 0
		for _, chat := range chats {
			if _, ok := replyAt(replies, chat, seq); !ok {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		select {
		case <-ctx.Done():
			r.logProblems(t)
			t.Fatalf("%d chats' message %d not answered: %v", missing, seq, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// burstBatch is the runner's invocation that took the burst: the largest
// batch. It fails the test unless the whole burst shared it.
func (r *loadRig) burstBatch(t *testing.T) invocation {
	t.Helper()
	batches, _ := r.output.calls.snapshot()
	var burst invocation
	for _, b := range batches {
		if b.Records > burst.Records {
			burst = b
		}
	}
	if burst.Records != completionChats {
		t.Fatalf("the largest runner batch held %d records; want the whole burst of %d (the test needs them to share a batch)", burst.Records, completionChats)
	}
	return burst
}

// checkCompletionReplies: each message sent answered once, in order (the
// slow chats sent one message, the others two), and nothing else went
// wrong.
func checkCompletionReplies(t *testing.T, rig *loadRig, p loadParams) {
	t.Helper()
	tl := rig.tally(p)
	sent := completionChats + (completionChats - completionSlow)
	unsent := p.chats*p.messages - sent
	if tl.answered != sent || tl.lost != unsent || tl.faults()-tl.lost != 0 {
		printCorrectness("COMPLETION", p, tl)
		rig.logProblems(t)
		t.Fatalf("answered %d of %d sent; duplicated=%d out_of_order=%d misrouted=%d without_id=%d refused=%d; want all answered once, in order",
			tl.answered, sent, tl.duplicated, tl.outOfOrder, tl.misrouted, tl.withoutID, tl.refused)
	}
}

// replyAt is when the reply covering message seq of chat arrived.
func replyAt(replies map[int64][]chatReply, chat, seq int) (time.Time, bool) {
	id := fmt.Sprintf("c%d-m%d", chat, seq)
	for _, reply := range replies[loadChatBase+int64(chat)] {
		for _, got := range loadMessageID.FindAllString(reply.text, -1) {
			if strings.EqualFold(got, id) {
				return reply.at, true
			}
		}
	}
	return time.Time{}, false
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(max(len(ds), 1))
}

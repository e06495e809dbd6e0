package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/inbound"
)

// TestBatchOfSessionsOnRealStores runs one SQS batch of three sessions'
// messages through the runner's own consumer on DynamoDB and S3: every
// message is answered once, each session's in order, while the sessions
// run concurrently (run it with -race).
func TestBatchOfSessionsOnRealStores(t *testing.T) {
	_, _, tg := newRunner(t, "zero/echo", nil) // the environment and the fake Telegram
	app, err := setup(context.Background(), slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	app.consumer.MaxRun = 1 // one turn per message, so the replies show the order
	var ev events.SQSEvent
	want := map[string][]string{}
	sessions := []inbound.Message{message(t, ""), message(t, ""), message(t, "")}
	for i := range 2 {
		for s, base := range sessions {
			m := base
			m.ID = fmt.Sprintf("%s-%d", base.ID, i)
			m.Text = fmt.Sprintf("session %d turn %d", s, i)
			body, _ := json.Marshal(m)
			ev.Records = append(ev.Records, events.SQSMessage{MessageId: "m-" + m.ID, Body: string(body),
				Attributes: map[string]string{"ApproximateReceiveCount": "1", "MessageGroupId": m.QueueGroup()}})
			want[m.SessionKey] = append(want[m.SessionKey], "echo: "+m.Text)
		}
	}
	if resp := app.consumer.Consume(context.Background(), ev); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %+v", resp.BatchItemFailures)
	}
	got := map[string][]string{}
	for _, text := range tg.Texts() {
		for _, s := range sessions {
			if slices.Contains(want[s.SessionKey], text) {
				got[s.SessionKey] = append(got[s.SessionKey], text)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("replies per session (-want +got):\n%s", diff)
	}
}

package telegram

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/turn"
)

// The client is the runner's messenger for Telegram.
var _ turn.Messenger = (*Client)(nil)

// wantCall is a Bot API request a test expects: the method and its JSON body.
type wantCall struct {
	Method string
	Body   string
}

// bodies turns the fake's calls into wantCalls with canonical JSON bodies.
func bodies(t *testing.T, calls []botCall) []wantCall {
	t.Helper()
	var out []wantCall
	for _, c := range calls {
		raw, err := json.Marshal(c.Params)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, wantCall{c.Method, string(raw)})
	}
	return out
}

func canonical(t *testing.T, calls []wantCall) []wantCall {
	t.Helper()
	var out []wantCall
	for _, c := range calls {
		var v map[string]json.RawMessage
		if err := json.Unmarshal([]byte(c.Body), &v); err != nil {
			t.Fatalf("want body %s: %v", c.Body, err)
		}
		raw, _ := json.Marshal(v)
		out = append(out, wantCall{c.Method, string(raw)})
	}
	return out
}

func TestMessengerActions(t *testing.T) {
	chat := session.DeliveryContext{Channel: Channel, To: "-100123"}
	topic := session.DeliveryContext{Channel: Channel, To: "-100123", ThreadID: "7"}
	tests := []struct {
		name    string
		act     turn.MessageAction
		replies []string
		want    []wantCall
		result  turn.MessageResult
		wantErr string
	}{
		{name: "send with reply, topic and silent",
			act:     turn.MessageAction{Action: turn.ActionSend, To: topic, Text: "**hi** <there>", ReplyTo: "55", Silent: true},
			replies: []string{`200 {"ok":true,"result":{"message_id":901}}`},
			want: []wantCall{{"sendMessage", `{"chat_id":-100123,"message_thread_id":7,"text":"<b>hi</b> &lt;there&gt;","parse_mode":"HTML",` +
				`"reply_parameters":{"message_id":55},"disable_notification":true}`}},
			result: turn.MessageResult{Did: "sent 1 message(s) to chat -100123", MessageIDs: []string{"901"}}},
		{name: "send falls back to plain text",
			act: turn.MessageAction{Action: turn.ActionSend, To: chat, Text: "a `b`"},
			replies: []string{`400 {"ok":false,"error_code":400,"description":"Bad Request: can't parse entities: x"}`,
				`200 {"ok":true,"result":{"message_id":902}}`},
			want: []wantCall{{"sendMessage", `{"chat_id":-100123,"text":"a <code>b</code>","parse_mode":"HTML"}`},
				{"sendMessage", `{"chat_id":-100123,"text":"a b"}`}},
			result: turn.MessageResult{Did: "sent 1 message(s) to chat -100123", MessageIDs: []string{"902"}}},
		{name: "react", act: turn.MessageAction{Action: turn.ActionReact, To: chat, MessageID: "55", Emoji: "👍"},
			replies: []string{`200 {"ok":true,"result":true}`},
			want:    []wantCall{{"setMessageReaction", `{"chat_id":-100123,"message_id":55,"reaction":[{"type":"emoji","emoji":"👍"}]}`}},
			result:  turn.MessageResult{Did: "reacted 👍 to message 55", MessageIDs: []string{"55"}}},
		{name: "remove reaction", act: turn.MessageAction{Action: turn.ActionReact, To: chat, MessageID: "55", Remove: true},
			replies: []string{`200 {"ok":true,"result":true}`},
			want:    []wantCall{{"setMessageReaction", `{"chat_id":-100123,"message_id":55,"reaction":[]}`}},
			result:  turn.MessageResult{Did: "removed the reaction from message 55", MessageIDs: []string{"55"}}},
		{name: "edit", act: turn.MessageAction{Action: turn.ActionEdit, To: chat, MessageID: "55", Text: "new"},
			replies: []string{`200 {"ok":true,"result":{"message_id":55}}`},
			want:    []wantCall{{"editMessageText", `{"chat_id":-100123,"message_id":55,"text":"new","parse_mode":"HTML"}`}},
			result:  turn.MessageResult{Did: "edited message 55", MessageIDs: []string{"55"}}},
		{name: "edit that changes nothing is done", act: turn.MessageAction{Action: turn.ActionEdit, To: chat, MessageID: "55", Text: "new"},
			replies: []string{`400 {"ok":false,"error_code":400,"description":"Bad Request: message is not modified"}`},
			want:    []wantCall{{"editMessageText", `{"chat_id":-100123,"message_id":55,"text":"new","parse_mode":"HTML"}`}},
			result:  turn.MessageResult{Did: "edited message 55", MessageIDs: []string{"55"}}},
		{name: "delete", act: turn.MessageAction{Action: turn.ActionDelete, To: chat, MessageID: "55"},
			replies: []string{`200 {"ok":true,"result":true}`},
			want:    []wantCall{{"deleteMessage", `{"chat_id":-100123,"message_id":55}`}},
			result:  turn.MessageResult{Did: "deleted message 55", MessageIDs: []string{"55"}}},
		{name: "pin silently", act: turn.MessageAction{Action: turn.ActionPin, To: chat, MessageID: "55", Silent: true},
			replies: []string{`200 {"ok":true,"result":true}`},
			want:    []wantCall{{"pinChatMessage", `{"chat_id":-100123,"message_id":55,"disable_notification":true}`}},
			result:  turn.MessageResult{Did: "pinned message 55", MessageIDs: []string{"55"}}},
		{name: "unpin", act: turn.MessageAction{Action: turn.ActionUnpin, To: chat, MessageID: "55"},
			replies: []string{`200 {"ok":true,"result":true}`},
			want:    []wantCall{{"unpinChatMessage", `{"chat_id":-100123,"message_id":55}`}},
			result:  turn.MessageResult{Did: "unpinned message 55", MessageIDs: []string{"55"}}},
		{name: "poll in a topic",
			act:     turn.MessageAction{Action: turn.ActionPoll, To: topic, Question: "Lunch?", Options: []string{"pizza", " sushi "}, Multiple: true},
			replies: []string{`200 {"ok":true,"result":{"message_id":903,"poll":{"id":"1"}}}`},
			want: []wantCall{{"sendPoll", `{"chat_id":-100123,"message_thread_id":7,"question":"Lunch?",` +
				`"options":[{"text":"pizza"},{"text":"sushi"}],"allows_multiple_answers":true}`}},
			result: turn.MessageResult{Did: "sent a poll with 2 options as message 903", MessageIDs: []string{"903"}}},
		{name: "bad message id", act: turn.MessageAction{Action: turn.ActionDelete, To: chat, MessageID: "abc"},
			wantErr: "not a positive number"},
		{name: "message gone", act: turn.MessageAction{Action: turn.ActionDelete, To: chat, MessageID: "55"},
			replies: []string{`400 {"ok":false,"error_code":400,"description":"Bad Request: message to delete not found"}`},
			want:    []wantCall{{"deleteMessage", `{"chat_id":-100123,"message_id":55}`}},
			wantErr: "message to delete not found"},
		{name: "no such action here", act: turn.MessageAction{Action: turn.ActionListPins, To: chat}, wantErr: "no message action"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bot, c := newFakeBot(t, tt.replies...)
			res, err := c.Do(context.Background(), tt.act)
			if diff := cmp.Diff(canonical(t, tt.want), bodies(t, bot.received())); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Do = %+v, %v; want an error with %q", res, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.result, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMessengerSupports(t *testing.T) {
	c := NewClient("", "", nil)
	var got []string
	for _, a := range turn.MessageActions {
		if c.Supports(a) {
			got = append(got, a)
		}
	}
	want := []string{"send", "react", "edit", "delete", "pin", "unpin", "poll"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("supported actions (-want +got):\n%s", diff)
	}
}

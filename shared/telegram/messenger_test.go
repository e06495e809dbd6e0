package telegram

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/chataction"
	"github.com/zero-gateway/zero/shared/session"
)

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
		act     chataction.Action
		replies []string
		want    []wantCall
		result  chataction.Result
		wantErr string
	}{
		{name: "send with reply, topic and silent",
			act:     chataction.Action{Action: chataction.Send, To: topic, Text: "**hi** <there>", ReplyTo: "55", Silent: true},
			replies: []string{`200 {"ok":true,"result":{"message_id":901}}`},
			want: []wantCall{{"sendMessage", `{"chat_id":-100123,"message_thread_id":7,"text":"<b>hi</b> &lt;there&gt;","parse_mode":"HTML",` +
				`"reply_parameters":{"message_id":55},"disable_notification":true}`}},
			result: chataction.Result{Did: "sent 1 message(s) to chat -100123", MessageIDs: []string{"901"}}},
		{name: "send falls back to plain text",
			act: chataction.Action{Action: chataction.Send, To: chat, Text: "a `b`"},
			replies: []string{`400 {"ok":false,"error_code":400,"description":"Bad Request: can't parse entities: x"}`,
				`200 {"ok":true,"result":{"message_id":902}}`},
			want: []wantCall{{"sendMessage", `{"chat_id":-100123,"text":"a <code>b</code>","parse_mode":"HTML"}`},
				{"sendMessage", `{"chat_id":-100123,"text":"a b"}`}},
			result: chataction.Result{Did: "sent 1 message(s) to chat -100123", MessageIDs: []string{"902"}}},
		{name: "react", act: chataction.Action{Action: chataction.React, To: chat, MessageID: "55", Emoji: "👍"},
			replies: []string{`200 {"ok":true,"result":true}`},
			want:    []wantCall{{"setMessageReaction", `{"chat_id":-100123,"message_id":55,"reaction":[{"type":"emoji","emoji":"👍"}]}`}},
			result:  chataction.Result{Did: "reacted 👍 to message 55", MessageIDs: []string{"55"}}},
		{name: "remove reaction", act: chataction.Action{Action: chataction.React, To: chat, MessageID: "55", Remove: true},
			replies: []string{`200 {"ok":true,"result":true}`},
			want:    []wantCall{{"setMessageReaction", `{"chat_id":-100123,"message_id":55,"reaction":[]}`}},
			result:  chataction.Result{Did: "removed the reaction from message 55", MessageIDs: []string{"55"}}},
		{name: "edit", act: chataction.Action{Action: chataction.Edit, To: chat, MessageID: "55", Text: "new"},
			replies: []string{`200 {"ok":true,"result":{"message_id":55}}`},
			want:    []wantCall{{"editMessageText", `{"chat_id":-100123,"message_id":55,"text":"new","parse_mode":"HTML"}`}},
			result:  chataction.Result{Did: "edited message 55", MessageIDs: []string{"55"}}},
		{name: "edit that changes nothing is done", act: chataction.Action{Action: chataction.Edit, To: chat, MessageID: "55", Text: "new"},
			replies: []string{`400 {"ok":false,"error_code":400,"description":"Bad Request: message is not modified"}`},
			want:    []wantCall{{"editMessageText", `{"chat_id":-100123,"message_id":55,"text":"new","parse_mode":"HTML"}`}},
			result:  chataction.Result{Did: "edited message 55", MessageIDs: []string{"55"}}},
		{name: "delete", act: chataction.Action{Action: chataction.Delete, To: chat, MessageID: "55"},
			replies: []string{`200 {"ok":true,"result":true}`},
			want:    []wantCall{{"deleteMessage", `{"chat_id":-100123,"message_id":55}`}},
			result:  chataction.Result{Did: "deleted message 55", MessageIDs: []string{"55"}}},
		{name: "pin silently", act: chataction.Action{Action: chataction.Pin, To: chat, MessageID: "55", Silent: true},
			replies: []string{`200 {"ok":true,"result":true}`},
			want:    []wantCall{{"pinChatMessage", `{"chat_id":-100123,"message_id":55,"disable_notification":true}`}},
			result:  chataction.Result{Did: "pinned message 55", MessageIDs: []string{"55"}}},
		{name: "unpin", act: chataction.Action{Action: chataction.Unpin, To: chat, MessageID: "55"},
			replies: []string{`200 {"ok":true,"result":true}`},
			want:    []wantCall{{"unpinChatMessage", `{"chat_id":-100123,"message_id":55}`}},
			result:  chataction.Result{Did: "unpinned message 55", MessageIDs: []string{"55"}}},
		{name: "poll in a topic",
			act:     chataction.Action{Action: chataction.Poll, To: topic, Question: "Lunch?", Options: []string{"pizza", " sushi "}, Multiple: true},
			replies: []string{`200 {"ok":true,"result":{"message_id":903,"poll":{"id":"1"}}}`},
			want: []wantCall{{"sendPoll", `{"chat_id":-100123,"message_thread_id":7,"question":"Lunch?",` +
				`"options":[{"text":"pizza"},{"text":"sushi"}],"allows_multiple_answers":true}`}},
			result: chataction.Result{Did: "sent a poll with 2 options as message 903", MessageIDs: []string{"903"}}},
		{name: "bad message id", act: chataction.Action{Action: chataction.Delete, To: chat, MessageID: "abc"},
			wantErr: "not a positive number"},
		{name: "message gone", act: chataction.Action{Action: chataction.Delete, To: chat, MessageID: "55"},
			replies: []string{`400 {"ok":false,"error_code":400,"description":"Bad Request: message to delete not found"}`},
			want:    []wantCall{{"deleteMessage", `{"chat_id":-100123,"message_id":55}`}},
			wantErr: "message to delete not found"},
		{name: "no such action here", act: chataction.Action{Action: chataction.ListPins, To: chat}, wantErr: "no message action"},
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
	for _, a := range chataction.All {
		if c.Supports(a) {
			got = append(got, a)
		}
	}
	want := []string{"send", "react", "edit", "delete", "pin", "unpin", "poll"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("supported actions (-want +got):\n%s", diff)
	}
}

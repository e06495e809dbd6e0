package discord_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/chataction"
	"github.com/zero-gateway/zero/shared/discord"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/session"
)

// js parses a JSON object for a wanted request body.
func js(t *testing.T, s string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad want body %s: %v", s, err)
	}
	return v
}

func TestMessengerActions(t *testing.T) {
	const bot = "Bot bot-token"
	to := session.DeliveryContext{Channel: discord.Channel, To: "100"}
	noMention := `"allowed_mentions":{"parse":[]}`
	chanInfo := answer{200, `{"id":"100","type":0,"guild_id":"9","name":"general","topic":"t","last_message_id":"5"}`}
	tests := []struct {
		name     string
		act      chataction.Action
		answers  []answer
		want     []call // Body as JSON text in wantBody
		wantBody []string
		result   chataction.Result
		data     string
		wantErr  string
	}{
		{name: "send with reply and silent", act: chataction.Action{Action: chataction.Send, To: to, Text: "hi @everyone", ReplyTo: "55", Silent: true},
			answers:  []answer{{200, `{"id":"201","channel_id":"100"}`}},
			want:     []call{{Method: "POST", Path: "/channels/100/messages", Auth: bot}},
			wantBody: []string{`{"content":"hi @everyone",` + noMention + `,"message_reference":{"message_id":"55","fail_if_not_exists":false},"flags":4096}`},
			result:   chataction.Result{Did: "sent 1 message(s) to channel 100", MessageIDs: []string{"201"}}},
		{name: "react", act: chataction.Action{Action: chataction.React, To: to, MessageID: "55", Emoji: "👍"},
			answers: []answer{{204, ``}},
			want:    []call{{Method: "PUT", Path: "/channels/100/messages/55/reactions/%F0%9F%91%8D/@me", Auth: bot}},
			result:  chataction.Result{Did: "reacted 👍 to message 55", MessageIDs: []string{"55"}}},
		{name: "remove a reaction", act: chataction.Action{Action: chataction.React, To: to, MessageID: "55", Emoji: "party:77", Remove: true},
			answers: []answer{{204, ``}},
			want:    []call{{Method: "DELETE", Path: "/channels/100/messages/55/reactions/party:77/@me", Auth: bot}},
			result:  chataction.Result{Did: "removed the reaction party:77 from message 55", MessageIDs: []string{"55"}}},
		{name: "reactions", act: chataction.Action{Action: chataction.Reactions, To: to, MessageID: "55"},
			answers: []answer{{200, `{"id":"55","content":"x","reactions":[{"count":2,"me":true,"emoji":{"id":null,"name":"👍"}}]}`}},
			want:    []call{{Method: "GET", Path: "/channels/100/messages/55", Auth: bot}},
			result:  chataction.Result{Did: "read the reactions of message 55"},
			data:    `[{"count":2,"me":true,"emoji":{"name":"👍"}}]`},
		{name: "edit", act: chataction.Action{Action: chataction.Edit, To: to, MessageID: "55", Text: "new"},
			answers:  []answer{{200, `{"id":"55"}`}},
			want:     []call{{Method: "PATCH", Path: "/channels/100/messages/55", Auth: bot}},
			wantBody: []string{`{"content":"new",` + noMention + `}`},
			result:   chataction.Result{Did: "edited message 55", MessageIDs: []string{"55"}}},
		{name: "delete", act: chataction.Action{Action: chataction.Delete, To: to, MessageID: "55"},
			answers: []answer{{204, ``}},
			want:    []call{{Method: "DELETE", Path: "/channels/100/messages/55", Auth: bot}},
			result:  chataction.Result{Did: "deleted message 55", MessageIDs: []string{"55"}}},
		{name: "pin", act: chataction.Action{Action: chataction.Pin, To: to, MessageID: "55"},
			answers: []answer{{204, ``}},
			want:    []call{{Method: "PUT", Path: "/channels/100/pins/55", Auth: bot}},
			result:  chataction.Result{Did: "pinned message 55", MessageIDs: []string{"55"}}},
		{name: "unpin", act: chataction.Action{Action: chataction.Unpin, To: to, MessageID: "55"},
			answers: []answer{{204, ``}},
			want:    []call{{Method: "DELETE", Path: "/channels/100/pins/55", Auth: bot}},
			result:  chataction.Result{Did: "unpinned message 55", MessageIDs: []string{"55"}}},
		{name: "list pins", act: chataction.Action{Action: chataction.ListPins, To: to},
			answers: []answer{{200, `[{"id":"55","channel_id":"100","content":"pinned","author":{"id":"3","username":"ana"},"timestamp":"2026-11-25T12:00:00Z","tts":false}]`}},
			want:    []call{{Method: "GET", Path: "/channels/100/pins", Auth: bot}},
			result:  chataction.Result{Did: "listed the pinned messages"},
			data:    `[{"id":"55","channel_id":"100","author":{"id":"3","username":"ana"},"content":"pinned","timestamp":"2026-11-25T12:00:00Z"}]`},
		{name: "poll", act: chataction.Action{Action: chataction.Poll, To: to, Question: "Lunch?", Options: []string{"pizza", "sushi"}, Multiple: true, Hours: 2},
			answers: []answer{{200, `{"id":"202"}`}},
			want:    []call{{Method: "POST", Path: "/channels/100/messages", Auth: bot}},
			wantBody: []string{`{` + noMention + `,"poll":{"question":{"text":"Lunch?"},"answers":[{"poll_media":{"text":"pizza"}},{"poll_media":{"text":"sushi"}}],` +
				`"duration":2,"allow_multiselect":true}}`},
			result: chataction.Result{Did: "sent a poll with 2 answers as message 202", MessageIDs: []string{"202"}}},
		{name: "thread from a message", act: chataction.Action{Action: chataction.ThreadCreate, To: to, MessageID: "55", Name: "plans"},
			answers:  []answer{{201, `{"id":"300","type":11,"parent_id":"100","name":"plans"}`}},
			want:     []call{{Method: "POST", Path: "/channels/100/messages/55/threads", Auth: bot}},
			wantBody: []string{`{"name":"plans"}`},
			result:   chataction.Result{Did: `created thread "plans" (300)`, ThreadID: "300"}},
		{name: "thread without a message", act: chataction.Action{Action: chataction.ThreadCreate, To: to, Name: "plans"},
			answers:  []answer{{201, `{"id":"301","type":11,"parent_id":"100","name":"plans"}`}},
			want:     []call{{Method: "POST", Path: "/channels/100/threads", Auth: bot}},
			wantBody: []string{`{"name":"plans","type":11}`},
			result:   chataction.Result{Did: `created thread "plans" (301)`, ThreadID: "301"}},
		{name: "thread list: the channel's threads only", act: chataction.Action{Action: chataction.ThreadList, To: to},
			answers: []answer{chanInfo, {200, `{"threads":[{"id":"300","type":11,"parent_id":"100","name":"plans"},{"id":"400","type":11,"parent_id":"999","name":"other"}],"members":[]}`}},
			want:    []call{{Method: "GET", Path: "/channels/100", Auth: bot}, {Method: "GET", Path: "/guilds/9/threads/active", Auth: bot}},
			result:  chataction.Result{Did: "listed 1 active thread(s)"},
			data:    `[{"id":"300","type":11,"parent_id":"100","name":"plans"}]`},
		{name: "thread reply", act: chataction.Action{Action: chataction.ThreadReply, To: session.DeliveryContext{Channel: discord.Channel, To: "100", ThreadID: "300"}, Text: "in thread"},
			answers:  []answer{{200, `{"id":"300","type":11,"parent_id":"100"}`}, {200, `{"id":"203"}`}},
			want:     []call{{Method: "GET", Path: "/channels/300", Auth: bot}, {Method: "POST", Path: "/channels/300/messages", Auth: bot}},
			wantBody: []string{"", `{"content":"in thread",` + noMention + `}`},
			result:   chataction.Result{Did: "sent 1 message(s) to channel 300", MessageIDs: []string{"203"}, ThreadID: "300"}},
		{name: "thread reply to another channel's thread", act: chataction.Action{Action: chataction.ThreadReply, To: session.DeliveryContext{Channel: discord.Channel, To: "100", ThreadID: "400"}, Text: "x"},
			answers: []answer{{200, `{"id":"400","type":11,"parent_id":"999"}`}},
			want:    []call{{Method: "GET", Path: "/channels/400", Auth: bot}},
			wantErr: "not a thread of channel 100"},
		{name: "channel info", act: chataction.Action{Action: chataction.ChannelInfo, To: to},
			answers: []answer{chanInfo},
			want:    []call{{Method: "GET", Path: "/channels/100", Auth: bot}},
			result:  chataction.Result{Did: "read channel 100"},
			data:    `{"id":"100","type":0,"guild_id":"9","name":"general","topic":"t"}`},
		{name: "channel list", act: chataction.Action{Action: chataction.ChannelList, To: to},
			answers: []answer{chanInfo, {200, `[{"id":"100","type":0,"name":"general","position":1,"permission_overwrites":[]}]`}},
			want:    []call{{Method: "GET", Path: "/channels/100", Auth: bot}, {Method: "GET", Path: "/guilds/9/channels", Auth: bot}},
			result:  chataction.Result{Did: "listed the channels of server 9"},
			data:    `[{"id":"100","type":0,"name":"general","position":1}]`},
		{name: "member info in a named server", act: chataction.Action{Action: chataction.MemberInfo, To: to, UserID: "3", GuildID: "8"},
			answers: []answer{{200, `{"user":{"id":"3","username":"ana"},"nick":"Ana","roles":["r1"],"joined_at":"2026-01-01T00:00:00Z","deaf":false}`}},
			want:    []call{{Method: "GET", Path: "/guilds/8/members/3", Auth: bot}},
			result:  chataction.Result{Did: "read member 3"},
			data:    `{"user":{"id":"3","username":"ana"},"nick":"Ana","roles":["r1"],"joined_at":"2026-01-01T00:00:00Z"}`},
		{name: "missing permission", act: chataction.Action{Action: chataction.Pin, To: to, MessageID: "55"},
			answers: []answer{{403, `{"message":"Missing Permissions","code":50013}`}},
			want:    []call{{Method: "PUT", Path: "/channels/100/pins/55", Auth: bot}},
			wantErr: "403 Missing Permissions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeDiscord{answers: tt.answers}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			c := discord.NewClient(discord.ClientConfig{BaseURL: srv.URL, BotToken: "bot-token", HTTPClient: srv.Client()})
			res, err := c.Do(context.Background(), tt.act)
			for i := range tt.want {
				if i < len(tt.wantBody) && tt.wantBody[i] != "" {
					tt.want[i].Body = js(t, tt.wantBody[i])
				}
			}
			if diff := cmp.Diff(tt.want, fake.calls); diff != "" {
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
			if string(res.Data) != tt.data {
				t.Errorf("data = %s\nwant   %s", res.Data, tt.data)
			}
			res.Data = nil
			if diff := cmp.Diff(tt.result, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMessengerNeedsBotToken(t *testing.T) {
	c := discord.NewClient(discord.ClientConfig{BaseURL: "http://127.0.0.1:1"})
	_, err := c.Do(context.Background(), chataction.Action{Action: chataction.Send, To: session.DeliveryContext{Channel: discord.Channel, To: "1"}, Text: "x"})
	if err == nil || !strings.Contains(err.Error(), "bot token") {
		t.Fatalf("Do = %v; want a missing bot token error", err)
	}
	for _, a := range chataction.All {
		if !c.Supports(a) {
			t.Errorf("Supports(%q) = false", a)
		}
	}
}

// TestMessengerRefusesBadIDs: an id that goes into a request path must be
// a snowflake (1-20 digits); anything else, ".." above all (path
// escaping lets it through, and it would send the request to another
// route), is fault.Invalid before any request.
func TestMessengerRefusesBadIDs(t *testing.T) {
	to := session.DeliveryContext{Channel: discord.Channel, To: "100"}
	thread := func(id string) session.DeliveryContext {
		return session.DeliveryContext{Channel: discord.Channel, To: "100", ThreadID: id}
	}
	tests := []struct {
		name      string
		act       chataction.Action
		answers   []answer
		wantCalls int
		wantErr   string
	}{
		{name: "a message id of ..", act: chataction.Action{Action: chataction.Delete, To: to, MessageID: ".."}, wantErr: `message id ".."`},
		{name: "a message id climbing two levels", act: chataction.Action{Action: chataction.Edit, To: to, MessageID: "../..", Text: "x"}, wantErr: `message id "../.."`},
		{name: "no message id where one is needed", act: chataction.Action{Action: chataction.Pin, To: to}, wantErr: `message id ""`},
		{name: "a 21-digit message id", act: chataction.Action{Action: chataction.React, To: to, MessageID: "123456789012345678901", Emoji: "x"}, wantErr: "not a Discord id"},
		{name: "a thread-create message id", act: chataction.Action{Action: chataction.ThreadCreate, To: to, MessageID: "..", Name: "n"}, wantErr: `message id ".."`},
		{name: "a channel id of ..", act: chataction.Action{Action: chataction.Send, To: session.DeliveryContext{Channel: discord.Channel, To: ".."}, Text: "x"}, wantErr: `channel id ".."`},
		{name: "a channel id with a query", act: chataction.Action{Action: chataction.ChannelInfo, To: session.DeliveryContext{Channel: discord.Channel, To: "100?x=1"}}, wantErr: `channel id "100?x=1"`},
		{name: "a thread id of ..", act: chataction.Action{Action: chataction.ThreadReply, To: thread(".."), Text: "x"}, wantErr: `thread id ".."`},
		{name: "a reply-to id", act: chataction.Action{Action: chataction.Send, To: to, Text: "x", ReplyTo: "abc"}, wantErr: `reply-to message id "abc"`},
		{name: "a server id", act: chataction.Action{Action: chataction.ChannelList, To: to, GuildID: ".."}, wantErr: `server id ".."`},
		{name: "a user id", act: chataction.Action{Action: chataction.MemberInfo, To: to, UserID: "..", GuildID: "8"}, wantErr: `user id ".."`},
		{name: "an emoji of ..", act: chataction.Action{Action: chataction.React, To: to, MessageID: "55", Emoji: ".."}, wantErr: `".." is not an emoji`},
		{name: "a server id Discord answers with", act: chataction.Action{Action: chataction.ChannelList, To: to},
			answers: []answer{{200, `{"id":"100","type":0,"guild_id":"../9"}`}}, wantCalls: 1, wantErr: `server id "../9"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeDiscord{answers: tt.answers}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			c := discord.NewClient(discord.ClientConfig{BaseURL: srv.URL, BotToken: "bot-token", HTTPClient: srv.Client()})
			_, err := c.Do(context.Background(), tt.act)
			if !fault.Is(err, fault.Invalid) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Do = %v; want fault.Invalid containing %q", err, tt.wantErr)
			}
			if len(fake.calls) != tt.wantCalls {
				t.Errorf("requests = %+v; want %d", fake.calls, tt.wantCalls)
			}
		})
	}
}

// TestPostPartRefusesABadChannelID: a reply through the bot token goes to
// /channels/{id}/messages only for a snowflake id.
func TestPostPartRefusesABadChannelID(t *testing.T) {
	for _, id := range []string{"..", "../../users/@me", "1 2", "123456789012345678901"} {
		t.Run(id, func(t *testing.T) {
			fake := &fakeDiscord{}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			c := discord.NewClient(discord.ClientConfig{BaseURL: srv.URL, BotToken: "bot-token", HTTPClient: srv.Client()})
			err := c.PostPart(context.Background(), session.DeliveryContext{Channel: discord.Channel, To: id}, 0, "hi")
			if !fault.Is(err, fault.Invalid) || !strings.Contains(err.Error(), "not a Discord id") {
				t.Errorf("PostPart = %v; want fault.Invalid naming the bad channel id", err)
			}
			if len(fake.calls) != 0 {
				t.Errorf("requests = %+v; want none", fake.calls)
			}
		})
	}
}

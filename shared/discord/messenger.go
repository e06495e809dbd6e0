package discord

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/zero-gateway/zero/shared/chataction"
	"github.com/zero-gateway/zero/shared/fault"
)

// flagSuppressNotifications is the message flag of a silent send.
const flagSuppressNotifications = 1 << 12

// Supports reports the message tool actions on Discord: all of
// chataction.All (Client is the runner's messenger for channel discord;
// every action goes through the bot token).
func (c *Client) Supports(action string) bool {
	for _, a := range chataction.All {
		if a == action {
			return true
		}
	}
	return false
}

// Do carries out one message tool action with the bot token in channel
// a.To.To. Messages are sent with allowed_mentions {parse: []}, so the
// agent never pings anyone. Guild-wide reads (thread-list, channel-list,
// member-info) use a.GuildID or else the channel's server; thread-list
// without a.GuildID lists only the channel's threads. thread-reply posts
// only to a thread whose parent is a.To.To. Every id that goes into a
// path must be a snowflake (checkIDs), else the call is fault.Invalid and
// no request is made. Errors are classified as call's; no bot token is
// fault.Invalid.
func (c *Client) Do(ctx context.Context, a chataction.Action) (chataction.Result, error) {
	if c.botToken == "" {
		return chataction.Result{}, fault.New(fault.Invalid, "discord: the message tool needs the bot token (secret discord-bot-token)")
	}
	if err := checkIDs(a); err != nil {
		return chataction.Result{}, err
	}
	ch := "/channels/" + url.PathEscape(a.To.To)
	msg := ch + "/messages/" + url.PathEscape(a.MessageID)
	switch a.Action {
	case chataction.Send:
		return c.sendText(ctx, ch, a.Text, a.ReplyTo, a.Silent)
	case chataction.ThreadReply:
		return c.threadReply(ctx, a)
	case chataction.Poll:
		return c.sendPoll(ctx, ch, a)
	case chataction.Edit:
		return c.edit(ctx, msg, a)
	case chataction.React:
		return c.react(ctx, msg, a)
	case chataction.Reactions:
		return c.reactions(ctx, msg, a.MessageID)
	case chataction.Delete:
		return c.bare(ctx, http.MethodDelete, msg, "deleted message "+a.MessageID, a.MessageID)
	case chataction.Pin:
		return c.bare(ctx, http.MethodPut, ch+"/pins/"+url.PathEscape(a.MessageID), "pinned message "+a.MessageID, a.MessageID)
	case chataction.Unpin:
		return c.bare(ctx, http.MethodDelete, ch+"/pins/"+url.PathEscape(a.MessageID), "unpinned message "+a.MessageID, a.MessageID)
	case chataction.ListPins:
		return c.read(ctx, ch+"/pins", &[]apiMessage{}, "listed the pinned messages")
	case chataction.ThreadCreate:
		return c.threadCreate(ctx, ch, a)
	case chataction.ChannelInfo:
		return c.read(ctx, ch, &apiChannel{}, "read channel "+a.To.To)
	}
	return c.guildAction(ctx, a)
}

// guildAction runs the actions that read the channel's server.
func (c *Client) guildAction(ctx context.Context, a chataction.Action) (chataction.Result, error) {
	guild, err := c.guildOf(ctx, a)
	if err != nil {
		return chataction.Result{}, err
	}
	g := "/guilds/" + url.PathEscape(guild)
	switch a.Action {
	case chataction.ChannelList:
		return c.read(ctx, g+"/channels", &[]apiChannel{}, "listed the channels of server "+guild)
	case chataction.MemberInfo:
		return c.read(ctx, g+"/members/"+url.PathEscape(a.UserID), &apiMember{}, "read member "+a.UserID)
	case chataction.ThreadList:
		return c.threadList(ctx, g, a)
	}
	return chataction.Result{}, fault.New(fault.Invalid, "discord has no message action %q", a.Action)
}

// apiMessage, apiChannel and apiMember are the fields of Discord's objects the
// tool reports (the rest is left out to keep answers small).
type apiMessage struct {
	ID        string   `json:"id"`
	ChannelID string   `json:"channel_id,omitempty"`
	Author    *apiUser `json:"author,omitempty"`
	Content   string   `json:"content"`
	Timestamp string   `json:"timestamp,omitempty"`
	Reactions []struct {
		Count int  `json:"count"`
		Me    bool `json:"me"`
		Emoji struct {
			ID   string `json:"id,omitempty"`
			Name string `json:"name"`
		} `json:"emoji"`
	} `json:"reactions,omitempty"`
}

type apiUser struct {
	ID         string `json:"id"`
	Username   string `json:"username"`
	GlobalName string `json:"global_name,omitempty"`
	Bot        bool   `json:"bot,omitempty"`
}

type apiChannel struct {
	ID       string `json:"id"`
	Type     int    `json:"type"`
	GuildID  string `json:"guild_id,omitempty"`
	ParentID string `json:"parent_id,omitempty"`
	Name     string `json:"name,omitempty"`
	Topic    string `json:"topic,omitempty"`
	Position int    `json:"position,omitempty"`
	NSFW     bool   `json:"nsfw,omitempty"`
}

type apiMember struct {
	User     *apiUser `json:"user,omitempty"`
	Nick     string   `json:"nick,omitempty"`
	Roles    []string `json:"roles"`
	JoinedAt string   `json:"joined_at,omitempty"`
}

// outgoing is a channel message the tool creates.
type outgoing struct {
	Content          string          `json:"content,omitempty"`
	AllowedMentions  allowedMentions `json:"allowed_mentions"`
	MessageReference *reference      `json:"message_reference,omitempty"`
	Flags            int             `json:"flags,omitempty"`
	Poll             *poll           `json:"poll,omitempty"`
}

type reference struct {
	MessageID       string `json:"message_id"`
	FailIfNotExists bool   `json:"fail_if_not_exists"`
}

func (c *Client) bot() string { return "Bot " + c.botToken }

// sendText posts text (split at MaxMessageLength) to the channel at path
// ch, replying to replyTo with the first message.
func (c *Client) sendText(ctx context.Context, ch, text, replyTo string, silent bool) (chataction.Result, error) {
	body := outgoing{AllowedMentions: noMentions()}
	if replyTo != "" {
		body.MessageReference = &reference{MessageID: replyTo}
	}
	if silent {
		body.Flags = flagSuppressNotifications
	}
	var res chataction.Result
	pieces := c.Render(text)
	for i, piece := range pieces {
		body.Content = piece
		var sent apiMessage
		if err := c.callInto(ctx, "send", http.MethodPost, ch+"/messages", c.bot(), body, &sent); err != nil {
			return res, fmt.Errorf("discord send: message %d of %d (the ones before were sent: %v): %w", i+1, len(pieces), res.MessageIDs, err)
		}
		res.MessageIDs = append(res.MessageIDs, sent.ID)
		body.MessageReference = nil
	}
	res.Did = fmt.Sprintf("sent %d message(s) to channel %s", len(pieces), strings.TrimPrefix(ch, "/channels/"))
	return res, nil
}

// threadReply posts to a.To.ThreadID after checking it is a thread of
// channel a.To.To.
func (c *Client) threadReply(ctx context.Context, a chataction.Action) (chataction.Result, error) {
	var th apiChannel
	if err := c.callInto(ctx, "thread", http.MethodGet, "/channels/"+url.PathEscape(a.To.ThreadID), c.bot(), nil, &th); err != nil {
		return chataction.Result{}, err
	}
	if th.ParentID != a.To.To {
		return chataction.Result{}, fault.New(fault.Invalid, "discord thread-reply: %s is not a thread of channel %s", a.To.ThreadID, a.To.To)
	}
	res, err := c.sendText(ctx, "/channels/"+url.PathEscape(a.To.ThreadID), a.Text, a.ReplyTo, a.Silent)
	res.ThreadID = a.To.ThreadID
	return res, err
}

type poll struct {
	Question struct {
		Text string `json:"text"`
	} `json:"question"`
	Answers          []pollAnswer `json:"answers"`
	Duration         int          `json:"duration"`
	AllowMultiselect bool         `json:"allow_multiselect"`
}

type pollAnswer struct {
	PollMedia struct {
		Text string `json:"text"`
	} `json:"poll_media"`
}

// sendPoll posts a poll lasting a.Hours (default 24).
func (c *Client) sendPoll(ctx context.Context, ch string, a chataction.Action) (chataction.Result, error) {
	p := &poll{Duration: a.Hours, AllowMultiselect: a.Multiple}
	if p.Duration == 0 {
		p.Duration = 24
	}
	p.Question.Text = a.Question
	for _, o := range a.Options {
		var ans pollAnswer
		ans.PollMedia.Text = strings.TrimSpace(o)
		p.Answers = append(p.Answers, ans)
	}
	body := outgoing{AllowedMentions: noMentions(), Poll: p}
	if a.Silent {
		body.Flags = flagSuppressNotifications
	}
	var sent apiMessage
	if err := c.callInto(ctx, "poll", http.MethodPost, ch+"/messages", c.bot(), body, &sent); err != nil {
		return chataction.Result{}, err
	}
	return chataction.Result{Did: fmt.Sprintf("sent a poll with %d answers as message %s", len(a.Options), sent.ID), MessageIDs: []string{sent.ID}}, nil
}

// edit replaces a message's content; it must fit one message.
func (c *Client) edit(ctx context.Context, msg string, a chataction.Action) (chataction.Result, error) {
	pieces := c.Render(a.Text)
	if len(pieces) != 1 {
		return chataction.Result{}, fault.New(fault.Invalid, "discord edit: the text must fit one message (%d characters)", MaxMessageLength)
	}
	body := outgoing{Content: pieces[0], AllowedMentions: noMentions()}
	if err := c.callInto(ctx, "edit", http.MethodPatch, msg, c.bot(), body, nil); err != nil {
		return chataction.Result{}, err
	}
	return chataction.Result{Did: "edited message " + a.MessageID, MessageIDs: []string{a.MessageID}}, nil
}

// react adds (or, with a.Remove, removes) the bot's reaction a.Emoji.
func (c *Client) react(ctx context.Context, msg string, a chataction.Action) (chataction.Result, error) {
	if a.Emoji == "" {
		return chataction.Result{}, fault.New(fault.Invalid, "discord react: name the emoji to add or remove")
	}
	path := msg + "/reactions/" + url.PathEscape(a.Emoji) + "/@me"
	if a.Remove {
		return c.bare(ctx, http.MethodDelete, path, "removed the reaction "+a.Emoji+" from message "+a.MessageID, a.MessageID)
	}
	return c.bare(ctx, http.MethodPut, path, "reacted "+a.Emoji+" to message "+a.MessageID, a.MessageID)
}

// reactions reads a message's reaction counts.
func (c *Client) reactions(ctx context.Context, msg, id string) (chataction.Result, error) {
	var m apiMessage
	if err := c.callInto(ctx, "reactions", http.MethodGet, msg, c.bot(), nil, &m); err != nil {
		return chataction.Result{}, err
	}
	return report("read the reactions of message "+id, m.Reactions)
}

// threadCreate starts a thread from a.MessageID, or a public thread
// (type 11) without one.
func (c *Client) threadCreate(ctx context.Context, ch string, a chataction.Action) (chataction.Result, error) {
	path, body := ch+"/threads", map[string]any{"name": a.Name, "type": 11}
	if a.MessageID != "" {
		path, body = ch+"/messages/"+url.PathEscape(a.MessageID)+"/threads", map[string]any{"name": a.Name}
	}
	var th apiChannel
	if err := c.callInto(ctx, "thread-create", http.MethodPost, path, c.bot(), body, &th); err != nil {
		return chataction.Result{}, err
	}
	return chataction.Result{Did: fmt.Sprintf("created thread %q (%s)", th.Name, th.ID), ThreadID: th.ID}, nil
}

// threadList lists the server's active threads: only channel a.To.To's
// unless a.GuildID named the server.
func (c *Client) threadList(ctx context.Context, g string, a chataction.Action) (chataction.Result, error) {
	var ans struct {
		Threads []apiChannel `json:"threads"`
	}
	if err := c.callInto(ctx, "thread-list", http.MethodGet, g+"/threads/active", c.bot(), nil, &ans); err != nil {
		return chataction.Result{}, err
	}
	threads := []apiChannel{}
	for _, th := range ans.Threads {
		if a.GuildID != "" || th.ParentID == a.To.To {
			threads = append(threads, th)
		}
	}
	return report(fmt.Sprintf("listed %d active thread(s)", len(threads)), threads)
}

// guildOf is a.GuildID, else the server of channel a.To.To.
func (c *Client) guildOf(ctx context.Context, a chataction.Action) (string, error) {
	if a.GuildID != "" {
		return a.GuildID, nil
	}
	var ch apiChannel
	if err := c.callInto(ctx, "channel", http.MethodGet, "/channels/"+url.PathEscape(a.To.To), c.bot(), nil, &ch); err != nil {
		return "", err
	}
	if ch.GuildID == "" {
		return "", fault.New(fault.Invalid, "discord %s: channel %s is not in a server", a.Action, a.To.To)
	}
	return ch.GuildID, snowflake("server", ch.GuildID)
}

// bare sends a request without a body whose answer is empty (204).
func (c *Client) bare(ctx context.Context, method, path, did, id string) (chataction.Result, error) {
	if err := c.callInto(ctx, did, method, path, c.bot(), nil, nil); err != nil {
		return chataction.Result{}, err
	}
	return chataction.Result{Did: did, MessageIDs: []string{id}}, nil
}

// read GETs path into v (a pointer to the reported fields) and reports it.
func (c *Client) read(ctx context.Context, path string, v any, did string) (chataction.Result, error) {
	if err := c.callInto(ctx, did, http.MethodGet, path, c.bot(), nil, v); err != nil {
		return chataction.Result{}, err
	}
	return report(did, v)
}

// report is a read action's result with v as its data.
func report(did string, v any) (chataction.Result, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return chataction.Result{}, fault.Wrap(fault.Internal, err, "discord: encoding %s", did)
	}
	return chataction.Result{Did: did, Data: data}, nil
}

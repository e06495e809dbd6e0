package telegram

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/zero-gateway/zero/shared/chataction"
	"github.com/zero-gateway/zero/shared/fault"
)

// Supports reports the message tool actions the Bot API offers here:
// send, react, edit, delete, pin, unpin and poll (Client is the runner's
// messaging.Messenger for channel telegram). The Bot API cannot list a
// message's reactions or pins, and has no threads or member lookups of
// the Discord kind.
func (c *Client) Supports(action string) bool {
	switch action {
	case chataction.Send, chataction.React, chataction.Edit, chataction.Delete, chataction.Pin, chataction.Unpin, chataction.Poll:
		return true
	}
	return false
}

// Do carries out one message tool action in a.To's chat (and forum topic,
// for send and poll): sendMessage, setMessageReaction, editMessageText,
// deleteMessage, pinChatMessage, unpinChatMessage, sendPoll. Text is sent
// in parse mode HTML (Render) with the plain-text fallback of Post; a send
// longer than one message becomes several, replyTo on the first.
// Errors are classified as call's; an action Supports lacks is
// fault.Invalid.
func (c *Client) Do(ctx context.Context, a chataction.Action) (chataction.Result, error) {
	base, err := sendParams(a.To)
	if err != nil {
		return chataction.Result{}, err
	}
	target := messageTarget{ChatID: base.ChatID}
	if a.Action != chataction.Send && a.Action != chataction.Poll && a.MessageID != "" {
		if target.MessageID, err = messageID(a.MessageID); err != nil {
			return chataction.Result{}, err
		}
	}
	switch a.Action {
	case chataction.Send:
		return c.sendText(ctx, base, a)
	case chataction.Poll:
		return c.sendPoll(ctx, base, a)
	case chataction.Edit:
		return c.editText(ctx, target, a.Text)
	case chataction.React:
		return c.react(ctx, target, a.Emoji, a.Remove)
	case chataction.Delete:
		return c.simple(ctx, "deleteMessage", target, target.MessageID, "deleted message %d")
	case chataction.Pin:
		return c.simple(ctx, "pinChatMessage", pinParams{target, a.Silent}, target.MessageID, "pinned message %d")
	case chataction.Unpin:
		return c.simple(ctx, "unpinChatMessage", target, target.MessageID, "unpinned message %d")
	}
	return chataction.Result{}, fault.New(fault.Invalid, "telegram has no message action %q", a.Action)
}

// messageTarget names one message of a chat.
type messageTarget struct {
	ChatID    any   `json:"chat_id"`
	MessageID int64 `json:"message_id"`
}

type pinParams struct {
	messageTarget
	DisableNotification bool `json:"disable_notification,omitempty"`
}

// messageID parses a Bot API message id.
func messageID(s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || id <= 0 {
		return 0, fault.New(fault.Invalid, "telegram: message id %q is not a positive number", s)
	}
	return id, nil
}

// sentMessage is the part of a Bot API Message ZERO reads.
type sentMessage struct {
	MessageID int64 `json:"message_id"`
}

// toolSendParams is sendMessage with the message tool's options.
type toolSendParams struct {
	sendMessageParams
	ReplyParameters     *replyParameters `json:"reply_parameters,omitempty"`
	DisableNotification bool             `json:"disable_notification,omitempty"`
}

type replyParameters struct {
	MessageID int64 `json:"message_id"`
}

// sendText sends a.Text as one or more messages.
func (c *Client) sendText(ctx context.Context, base sendMessageParams, a chataction.Action) (chataction.Result, error) {
	params := toolSendParams{sendMessageParams: base, DisableNotification: a.Silent}
	if a.ReplyTo != "" {
		id, err := messageID(a.ReplyTo)
		if err != nil {
			return chataction.Result{}, err
		}
		params.ReplyParameters = &replyParameters{MessageID: id}
	}
	var res chataction.Result
	pieces := c.Render(a.Text)
	for i, piece := range pieces {
		params.Text = piece
		id, err := c.sendHTML(ctx, params)
		if err != nil {
			return res, fmt.Errorf("telegram send: message %d of %d (the ones before were sent: %v): %w", i+1, len(pieces), res.MessageIDs, err)
		}
		res.MessageIDs = append(res.MessageIDs, strconv.FormatInt(id, 10))
		params.ReplyParameters = nil
	}
	res.Did = fmt.Sprintf("sent %d message(s) to chat %v", len(pieces), base.ChatID)
	return res, nil
}

// sendHTML sends one HTML message, once more as plain text when Telegram
// cannot parse its entities (as Post does), and returns its id.
func (c *Client) sendHTML(ctx context.Context, params toolSendParams) (int64, error) {
	resp, err := c.call(ctx, "sendMessage", params)
	if resp != nil && cantParseEntities(resp) {
		params.ParseMode, params.Text = "", plainText(params.Text)
		resp, err = c.call(ctx, "sendMessage", params)
	}
	if err != nil {
		return 0, err
	}
	return decodeMessage("sendMessage", resp)
}

func decodeMessage(method string, resp *apiResponse) (int64, error) {
	var m sentMessage
	if err := json.Unmarshal(resp.Result, &m); err != nil || m.MessageID == 0 {
		return 0, fault.New(fault.Unavailable, "telegram %s: the answer has no message id", method)
	}
	return m.MessageID, nil
}

// editText replaces a message's text; it must fit one message.
func (c *Client) editText(ctx context.Context, target messageTarget, text string) (chataction.Result, error) {
	pieces := c.Render(text)
	if len(pieces) != 1 {
		return chataction.Result{}, fault.New(fault.Invalid, "telegram edit: the text must fit one message (%d characters)", maxMessageLength)
	}
	params := struct {
		messageTarget
		Text      string `json:"text"`
		ParseMode string `json:"parse_mode"`
	}{target, pieces[0], "HTML"}
	resp, err := c.call(ctx, "editMessageText", params)
	if err != nil && !notModified(resp) {
		return chataction.Result{}, err
	}
	id := strconv.FormatInt(target.MessageID, 10)
	return chataction.Result{Did: "edited message " + id, MessageIDs: []string{id}}, nil
}

// notModified reports Telegram's answer to an edit that changes nothing
// (as a repeated edit does): the message already says it.
func notModified(r *apiResponse) bool {
	return r != nil && r.ErrorCode == 400 && strings.Contains(strings.ToLower(r.Description), "message is not modified")
}

// react sets (or, with remove, clears) the bot's reaction on a message.
func (c *Client) react(ctx context.Context, target messageTarget, emoji string, remove bool) (chataction.Result, error) {
	type reaction struct {
		Type  string `json:"type"`
		Emoji string `json:"emoji"`
	}
	params := struct {
		messageTarget
		Reaction []reaction `json:"reaction"`
	}{target, []reaction{}}
	did := "removed the reaction from message %d"
	if !remove {
		params.Reaction, did = []reaction{{Type: "emoji", Emoji: emoji}}, "reacted "+emoji+" to message %d"
	}
	return c.simple(ctx, "setMessageReaction", params, target.MessageID, did)
}

// simple calls a method whose answer is only true, on message id; did
// names it (%d) in the report.
func (c *Client) simple(ctx context.Context, method string, params any, id int64, did string) (chataction.Result, error) {
	if _, err := c.call(ctx, method, params); err != nil {
		return chataction.Result{}, err
	}
	return chataction.Result{Did: fmt.Sprintf(did, id), MessageIDs: []string{strconv.FormatInt(id, 10)}}, nil
}

// sendPoll sends a poll to the chat (and topic).
func (c *Client) sendPoll(ctx context.Context, base sendMessageParams, a chataction.Action) (chataction.Result, error) {
	type option struct {
		Text string `json:"text"`
	}
	params := struct {
		ChatID                any      `json:"chat_id"`
		MessageThreadID       int64    `json:"message_thread_id,omitempty"`
		Question              string   `json:"question"`
		Options               []option `json:"options"`
		AllowsMultipleAnswers bool     `json:"allows_multiple_answers,omitempty"`
		DisableNotification   bool     `json:"disable_notification,omitempty"`
	}{ChatID: base.ChatID, MessageThreadID: base.MessageThreadID, Question: a.Question, AllowsMultipleAnswers: a.Multiple, DisableNotification: a.Silent}
	for _, o := range a.Options {
		params.Options = append(params.Options, option{Text: strings.TrimSpace(o)})
	}
	resp, err := c.call(ctx, "sendPoll", params)
	if err != nil {
		return chataction.Result{}, err
	}
	id, err := decodeMessage("sendPoll", resp)
	if err != nil {
		return chataction.Result{}, err
	}
	s := strconv.FormatInt(id, 10)
	return chataction.Result{Did: fmt.Sprintf("sent a poll with %d options as message %s", len(a.Options), s), MessageIDs: []string{s}}, nil
}

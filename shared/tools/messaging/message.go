// Package messaging is the message tool: actions on the chat channels
// (Telegram, Discord) through the channel messengers the deployment has
// (Messenger). It sees a run through tools.Run; whether the run's reply
// repeats what the tool already sent is the turn engine's to decide, from
// the recorded call (SentOwnText).
package messaging

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zero-gateway/zero/shared/chataction"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/model"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/tools"
)

// Name is the tool's name.
const Name = "message"

// Limits of one message tool call.
const (
	MaxMessageText    = 4000             // characters of text (send, edit, thread-reply)
	MaxPollOptions    = 10               // poll options (at least 2)
	MaxMessageField   = 300              // characters of a question, option, name or emoji
	messageCallBudget = 20 * time.Second // the time one call may take
)

// Messenger carries out message tool actions on one channel (the runner's
// are the Telegram and Discord clients). Do is called only for actions
// Supports reports, with the arguments each action needs already checked.
// Errors are fault errors the model may read (fault.Invalid: refused by
// the channel; fault.NotFound: no such chat or message, or no access;
// fault.Unavailable: try again later).
type Messenger interface {
	Supports(action string) bool
	Do(ctx context.Context, a chataction.Action) (chataction.Result, error)
}

// NewTool is the message tool of run over messengers (by channel). It
// is bound to the session's own chat when the run belongs to an active
// chat session (a delivery context with a chat); a sub-agent without a
// chat of its own acts for its requester's chat, so without
// tools.message.crossContext it may not name one.
func NewTool(run tools.Run, messengers map[string]Messenger) Tool {
	var bound session.DeliveryContext
	if d := run.Entry.DeliveryContext; d.Channel != "" && d.Channel != inbound.Internal && d.To != "" {
		bound = session.DeliveryContext{Channel: d.Channel, To: d.To, AccountID: d.AccountID, ThreadID: d.ThreadID}
	}
	orphan := bound.Channel == "" && session.IsSubagent(run.Message.SessionKey)
	// Other chats are the owner's, or everyone's with crossContext; the
	// run's gate has already refused anyone else (Reach).
	cross := run.Config.Tools.Message.CrossContext || run.Provenance == inbound.Owner
	return Tool{messengers: messengers, bound: bound, cross: cross, orphan: orphan}
}

// Tool is message: channel actions on Telegram and Discord. A call
// bound to a chat session targets that chat by default and, unless
// tools.message.crossContext, only that chat (its topic may differ).
type Tool struct {
	messengers map[string]Messenger
	bound      session.DeliveryContext // zero: not bound to a chat
	cross      bool
	orphan     bool // a sub-agent's run without a chat: refused unless cross
}

// messageArgs are the tool's arguments as the model gives them.
type messageArgs struct {
	Action        string   `json:"action"`
	Channel       string   `json:"channel"`
	Target        string   `json:"target"`
	ThreadID      string   `json:"threadId"`
	Topic         string   `json:"topic"`
	Text          string   `json:"text"`
	MessageID     string   `json:"messageId"`
	ReplyTo       string   `json:"replyTo"`
	Silent        bool     `json:"silent"`
	Emoji         string   `json:"emoji"`
	Remove        bool     `json:"remove"`
	Question      string   `json:"question"`
	Options       []string `json:"options"`
	Multiple      bool     `json:"multiple"`
	DurationHours int      `json:"durationHours"`
	Name          string   `json:"name"`
	UserID        string   `json:"userId"`
	GuildID       string   `json:"guildId"`
}

// Spec implements tools.Tool.
func (m Tool) Spec() model.ToolSpec {
	return model.ToolSpec{
		Name: Name,
		Description: "Act on a chat channel (Telegram, Discord): send a message (reply, topic, silent), react, edit, delete, pin/unpin, polls; " +
			"on Discord also reactions, list-pins, threads, channel and member info. Defaults to this session's chat; " +
			"other chats only when the configuration allows. Text you send here to this chat is not repeated by your final reply, " +
			"so do not repeat it. The answer says what was done (message ids).",
		Schema: json.RawMessage(messageSchema),
	}
}

var messageSchema = `{"type":"object","properties":{` +
	`"action":{"type":"string","enum":["` + strings.Join(chataction.All, `","`) + `"]},` +
	`"channel":{"type":"string","enum":["telegram","discord"],"description":"default: this session's channel"},` +
	`"target":{"type":"string","description":"chat id (Telegram) or channel id (Discord); default: this session's chat"},` +
	`"threadId":{"type":"string","description":"Telegram forum topic (send, poll); Discord thread (thread-reply)"},` +
	`"topic":{"type":"string","description":"same as threadId"},` +
	`"text":{"type":"string","maxLength":4000,"description":"send, edit, thread-reply"},` +
	`"messageId":{"type":"string","description":"the message acted on; thread-create: start the thread from it"},` +
	`"replyTo":{"type":"string","description":"send: message id to reply to"},` +
	`"silent":{"type":"boolean","description":"send, poll, pin: without a notification"},` +
	`"emoji":{"type":"string","description":"react: a unicode emoji (Discord also name:id)"},` +
	`"remove":{"type":"boolean","description":"react: remove the reaction"},` +
	`"question":{"type":"string","description":"poll"},` +
	`"options":{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":10,"description":"poll answers"},` +
	`"multiple":{"type":"boolean","description":"poll: allow several answers"},` +
	`"durationHours":{"type":"integer","minimum":1,"maximum":768,"description":"Discord poll duration (default 24)"},` +
	`"name":{"type":"string","description":"thread-create: the thread's name"},` +
	`"userId":{"type":"string","description":"member-info"},` +
	`"guildId":{"type":"string","description":"Discord server (default: the target channel's)"}` +
	`},"required":["action"],"additionalProperties":false}`

// Run checks the arguments, resolves and scopes the target, and runs the
// action through the channel's Messenger within messageCallBudget. The
// answer is JSON: {action, channel, target, ownChat, did, messageIds,
// threadId}, then any read data inside the untrusted-content envelope.
func (m Tool) Run(ctx context.Context, raw json.RawMessage) (string, error) {
	var a messageArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fault.Wrap(fault.Invalid, err, "the arguments must match the message tool's schema: %v", err)
	}
	act, err := m.resolve(a)
	if err != nil {
		return "", err
	}
	ms := m.messengers[act.To.Channel]
	if ms == nil {
		return "", fault.New(fault.Invalid, "message: channel %q is not connected here", act.To.Channel)
	}
	if !ms.Supports(act.Action) {
		return "", fault.New(fault.Invalid, "message: %s does not support the action %q", act.To.Channel, act.Action)
	}
	ctx, cancel := context.WithTimeout(ctx, messageCallBudget)
	defer cancel()
	res, err := ms.Do(ctx, act)
	if err != nil {
		return "", fmt.Errorf("message %s on %s: %w", act.Action, act.To.Channel, err)
	}
	return m.answer(act, res)
}

// answer renders a result for the model.
func (m Tool) answer(act chataction.Action, res chataction.Result) (string, error) {
	head := messageReport{Action: act.Action, Channel: act.To.Channel, Target: act.To.To, OwnChat: m.ownChat(act.To) && act.To.ThreadID == m.bound.ThreadID, Result: res}
	data, err := json.Marshal(head)
	if err != nil {
		return "", fault.Wrap(fault.Internal, err, "message: encoding the result")
	}
	if len(res.Data) == 0 {
		return string(data), nil
	}
	return tools.FitUntrusted(string(data), "message "+act.Action+" on "+act.To.Channel, string(res.Data), tools.ResultBudget), nil
}

// messageReport is the JSON head of a message tool answer. OwnChat marks
// an action in the session's own chat and topic, where its reply goes:
// the reply step reads it back from the transcript (duplicate
// suppression).
type messageReport struct {
	Action  string `json:"action"`
	Channel string `json:"channel"`
	Target  string `json:"target"`
	OwnChat bool   `json:"ownChat"`
	chataction.Result
}

// ownChat reports whether to is the bound session's chat.
func (m Tool) ownChat(to session.DeliveryContext) bool {
	return m.bound.Channel != "" && to.Channel == m.bound.Channel && to.To == m.bound.To
}

// resolve checks a's fields for its action and fills the target from the
// bound session; a bound call elsewhere is refused unless cross.
func (m Tool) resolve(a messageArgs) (chataction.Action, error) {
	act := chataction.Action{Action: strings.TrimSpace(a.Action), Text: a.Text, MessageID: strings.TrimSpace(a.MessageID),
		ReplyTo: strings.TrimSpace(a.ReplyTo), Silent: a.Silent, Emoji: strings.TrimSpace(a.Emoji), Remove: a.Remove,
		Question: strings.TrimSpace(a.Question), Options: a.Options, Multiple: a.Multiple, Hours: a.DurationHours,
		Name: strings.TrimSpace(a.Name), UserID: strings.TrimSpace(a.UserID), GuildID: strings.TrimSpace(a.GuildID)}
	if !slices.Contains(chataction.All, act.Action) {
		return act, fault.New(fault.Invalid, "message: unknown action %q; one of %s", a.Action, strings.Join(chataction.All, ", "))
	}
	to, err := m.target(a)
	if err != nil {
		return act, err
	}
	act.To = to
	if act.GuildID != "" && m.bound.Channel != "" && !m.cross {
		return act, fault.New(fault.Invalid, "message: guildId needs tools.message.crossContext; the target channel's server is used by default")
	}
	return act, checkMessageArgs(act)
}

// target is the chat a call acts in: the arguments' channel, target and
// thread over the bound session's.
func (m Tool) target(a messageArgs) (session.DeliveryContext, error) {
	thread := strings.TrimSpace(a.ThreadID)
	if thread == "" {
		thread = strings.TrimSpace(a.Topic)
	}
	to := session.DeliveryContext{Channel: strings.TrimSpace(a.Channel), To: strings.TrimSpace(a.Target), ThreadID: thread}
	if to.Channel == "" {
		to.Channel = m.bound.Channel
	}
	if to.To == "" && to.Channel == m.bound.Channel {
		to.To = m.bound.To
		if thread == "" {
			to.ThreadID = m.bound.ThreadID
		}
	}
	switch {
	case m.orphan && !m.cross:
		return to, fault.New(fault.Invalid, "message: a sub-agent has no chat of its own; tools.message.crossContext lets it name one")
	case to.Channel == "":
		return to, fault.New(fault.Invalid, "message: this run has no chat of its own: give channel and target")
	case to.To == "":
		return to, fault.New(fault.Invalid, "message: give a target (a chat or channel id) on %s", to.Channel)
	case m.bound.Channel != "" && !m.cross && !m.ownChat(to):
		return to, fault.New(fault.Invalid, "message: this session may act only in its own chat (%s %s); "+
			"tools.message.crossContext allows other chats", m.bound.Channel, m.bound.To)
	}
	if m.bound.Channel != "" && m.ownChat(to) {
		to.AccountID = m.bound.AccountID
	}
	return to, nil
}

// checkMessageArgs checks the fields act.Action needs and the size limits.
func checkMessageArgs(act chataction.Action) error {
	need := func(ok bool, what string) error {
		if ok {
			return nil
		}
		return fault.New(fault.Invalid, "message %s needs %s", act.Action, what)
	}
	var err error
	switch act.Action {
	case chataction.Send, chataction.ThreadReply:
		err = need(strings.TrimSpace(act.Text) != "", "text")
		if err == nil && act.Action == chataction.ThreadReply {
			err = need(act.To.ThreadID != "", "threadId (the thread)")
		}
	case chataction.Edit:
		err = need(act.MessageID != "" && strings.TrimSpace(act.Text) != "", "messageId and text")
	case chataction.React:
		err = need(act.MessageID != "" && (act.Emoji != "" || act.Remove), "messageId and emoji")
	case chataction.Reactions, chataction.Delete, chataction.Pin, chataction.Unpin:
		err = need(act.MessageID != "", "messageId")
	case chataction.Poll:
		err = checkPoll(act)
	case chataction.ThreadCreate:
		err = need(act.Name != "", "name")
	case chataction.MemberInfo:
		err = need(act.UserID != "", "userId")
	}
	if err != nil {
		return err
	}
	return checkMessageSizes(act)
}

func checkPoll(act chataction.Action) error {
	if act.Question == "" || len(act.Options) < 2 || len(act.Options) > MaxPollOptions {
		return fault.New(fault.Invalid, "message poll needs a question and 2-%d options", MaxPollOptions)
	}
	for i, o := range act.Options {
		if strings.TrimSpace(o) == "" {
			return fault.New(fault.Invalid, "message poll: option %d is empty", i+1)
		}
	}
	if act.Hours < 0 || act.Hours > 768 {
		return fault.New(fault.Invalid, "message poll: durationHours must be 1-768")
	}
	return nil
}

func checkMessageSizes(act chataction.Action) error {
	if n := utf8.RuneCountInString(act.Text); n > MaxMessageText {
		return fault.New(fault.Invalid, "message: text has %d characters; at most %d per call", n, MaxMessageText)
	}
	for _, f := range append([]string{act.Question, act.Name, act.Emoji}, act.Options...) {
		if utf8.RuneCountInString(f) > MaxMessageField {
			return fault.New(fault.Invalid, "message: a question, option, name or emoji is longer than %d characters", MaxMessageField)
		}
	}
	return nil
}

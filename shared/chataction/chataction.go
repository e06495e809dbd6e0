// Package chataction is the vocabulary of the message tool's actions on a
// chat (send, react, edit, pin, poll, threads, ...): the checked Action a
// channel's messenger carries out and the Result it reports. The engine
// declares the Messenger port that takes them; the channel adapters
// (shared/telegram, shared/discord) implement it with these types, without
// importing the engine.
//
// It is domain: the standard library and the domain package session.
package chataction

import (
	"encoding/json"

	"github.com/zero-gateway/zero/shared/session"
)

// The actions. A channel offers a subset (the messenger's Supports).
const (
	Send         = "send"
	React        = "react"
	Reactions    = "reactions"
	Edit         = "edit"
	Delete       = "delete"
	Pin          = "pin"
	Unpin        = "unpin"
	ListPins     = "list-pins"
	Poll         = "poll"
	ThreadCreate = "thread-create"
	ThreadList   = "thread-list"
	ThreadReply  = "thread-reply"
	ChannelInfo  = "channel-info"
	ChannelList  = "channel-list"
	MemberInfo   = "member-info"
)

// All lists every action the message tool knows, in schema order.
var All = []string{Send, React, Reactions, Edit, Delete, Pin, Unpin,
	ListPins, Poll, ThreadCreate, ThreadList, ThreadReply, ChannelInfo, ChannelList, MemberInfo}

// Action is one message tool call, checked and resolved: To is the chat it
// acts in (Channel, To = chat or channel id, ThreadID = a Telegram forum
// topic or, for thread-reply, the Discord thread).
type Action struct {
	Action    string // one of All
	To        session.DeliveryContext
	Text      string
	MessageID string   // the message acted on (react, edit, delete, pin, ...)
	ReplyTo   string   // send: the message replied to
	Silent    bool     // send, poll, pin: no notification
	Emoji     string   // react
	Remove    bool     // react: remove the reaction instead
	Question  string   // poll
	Options   []string // poll, 2 to the tool's maximum
	Multiple  bool     // poll: several answers allowed
	Hours     int      // poll: Discord's duration in hours (0: 24)
	Name      string   // thread-create
	UserID    string   // member-info
	GuildID   string   // Discord: the server of channel-list, thread-list, member-info ("" : the target channel's)
}

// Result is what an action did. Did is one line for the model; MessageIDs
// the messages it created or touched; Data, for read actions, the
// channel's own JSON (untrusted: written by chat members).
type Result struct {
	Did        string          `json:"did"`
	MessageIDs []string        `json:"messageIds,omitempty"`
	ThreadID   string          `json:"threadId,omitempty"`
	Data       json.RawMessage `json:"-"`
}

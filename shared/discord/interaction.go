package discord

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/session"
)

// Interaction types ZERO reads.
const (
	TypePing               = 1
	TypeApplicationCommand = 2
)

// Interaction response types ZERO sends.
const (
	ResponsePong                     = 1
	ResponseChannelMessage           = 4
	ResponseDeferredChannelMessage   = 5
	flagEphemeral                    = 64
	discordEpochMS                   = 1420070400000
	threadAnnouncement, threadPublic = 10, 11
	threadPrivate                    = 12
)

// TokenLifetime is how long an interaction token can edit its response
// and add follow-ups.
const TokenLifetime = 15 * time.Minute

// interaction is the part of a Discord interaction ZERO reads.
type interaction struct {
	ID            string       `json:"id"`
	ApplicationID string       `json:"application_id"`
	Type          int          `json:"type"`
	Token         string       `json:"token"`
	GuildID       string       `json:"guild_id"`
	ChannelID     string       `json:"channel_id"`
	Channel       *channel     `json:"channel"`
	Member        *member      `json:"member"`
	User          *user        `json:"user"`
	Data          *commandData `json:"data"`
}

type channel struct {
	ID       string `json:"id"`
	Type     int    `json:"type"`
	Name     string `json:"name"`
	ParentID string `json:"parent_id"`
}

type member struct {
	User *user  `json:"user"`
	Nick string `json:"nick"`
}

type user struct {
	ID         string `json:"id"`
	Username   string `json:"username"`
	GlobalName string `json:"global_name"`
}

type commandData struct {
	Name     string    `json:"name"`
	Options  []option  `json:"options"`
	Resolved *resolved `json:"resolved"`
}

type option struct {
	Name  string          `json:"name"`
	Type  int             `json:"type"`
	Value json.RawMessage `json:"value"`
}

// Commands maps each slash command ZERO registers to the text command of
// the runner's registry it stands for; "ask" is an ordinary turn. It is
// derived from the table ApplicationCommands registers (commands.go).
var Commands = textCommands()

// decodeInteraction parses a verified body.
func decodeInteraction(body []byte) (interaction, error) {
	var in interaction
	if err := json.Unmarshal(body, &in); err != nil {
		return interaction{}, fault.Wrap(fault.Invalid, err, "discord interaction: malformed JSON")
	}
	if in.Type == 0 {
		return interaction{}, fault.New(fault.Invalid, "discord interaction: type is required")
	}
	return in, nil
}

// ParseInteraction maps an application command interaction to the request
// for the ingest door, or says why it is skipped (not a command ZERO
// knows). The session is keyed as the seeds say: a guild channel (or a
// thread, by its own channel id) as agent:<id>:discord:channel:<channelId>,
// a DM by session.dmScope with the user as the peer; the account is the
// application. The message carries the interaction token (ReplyToken) so
// the runner can answer it, and /ask's attachment as an image reference
// (see attachmentsOf; one not passed on is a note before the text).
func ParseInteraction(body []byte) (ingest.Request, string, error) {
	in, err := decodeInteraction(body)
	if err != nil {
		return ingest.Request{}, "", err
	}
	r, skip := in.toRequest()
	return r, skip, nil
}

func (in interaction) toRequest() (ingest.Request, string) {
	if in.Type != TypeApplicationCommand || in.Data == nil {
		return ingest.Request{}, "unhandled interaction type " + strconv.Itoa(in.Type)
	}
	text, skip := commandText(in.Data)
	if skip != "" {
		return ingest.Request{}, skip
	}
	if in.ID == "" || in.ChannelID == "" || in.Token == "" {
		return ingest.Request{}, "interaction without id, channel or token"
	}
	u := in.User
	if in.Member != nil && in.Member.User != nil {
		u = in.Member.User
	}
	r := ingest.Request{
		Route: session.Route{Channel: Channel, AccountID: in.ApplicationID, GuildID: in.GuildID},
		Message: inbound.Message{
			ID:         Channel + ":" + in.ApplicationID + ":" + in.ID,
			Channel:    Channel,
			AccountID:  in.ApplicationID,
			To:         in.ChannelID,
			ReceivedAt: snowflakeMS(in.ID),
			ReplyToken: in.Token,
		},
	}
	m := &r.Message
	var notes []string
	m.Attachments, notes = attachmentsOf(in.Data)
	if text != "" {
		notes = append(notes, text)
	}
	m.Text = strings.Join(notes, "\n")
	if u != nil {
		m.From = Channel + ":" + u.ID
		m.SenderName = u.GlobalName
		if in.Member != nil && in.Member.Nick != "" {
			m.SenderName = in.Member.Nick
		}
		if m.SenderName == "" {
			m.SenderName = u.Username
		}
	}
	if in.GuildID == "" {
		// A DM (or a group DM): keyed by the user under dmScope.
		if u == nil {
			return ingest.Request{}, "direct message without a user"
		}
		r.Route.ChatType, r.Route.PeerID = inbound.Direct, u.ID
		m.ChatType = inbound.Direct
		return r, ""
	}
	// A guild channel, or a thread by its own channel id.
	r.Route.ChatType, r.Route.PeerID = inbound.Channel, in.ChannelID
	m.ChatType, m.GroupID = inbound.Channel, in.ChannelID
	if c := in.Channel; c != nil {
		m.Subject = c.Name
		if c.Type == threadAnnouncement || c.Type == threadPublic || c.Type == threadPrivate {
			m.ThreadID = in.ChannelID
		}
	}
	return r, ""
}

// commandText is the text a command stands for: /ask's message, or the
// registry command followed by the options' values (attachment options
// are not text: see attachmentsOf).
func commandText(d *commandData) (string, string) {
	cmd, ok := Commands[strings.ToLower(d.Name)]
	if !ok {
		return "", "unknown command " + strconv.Quote(d.Name)
	}
	words := []string{}
	if cmd != "" {
		words = append(words, cmd)
	}
	for _, o := range d.Options {
		if o.Type == OptionTypeAttachment {
			continue
		}
		var s string
		if json.Unmarshal(o.Value, &s) != nil {
			s = strings.TrimSpace(string(o.Value)) // a number or boolean option as written
		}
		if s = strings.TrimSpace(s); s != "" {
			words = append(words, s)
		}
	}
	return strings.Join(words, " "), ""
}

// snowflakeMS is the creation time of a Discord id in epoch ms (0 when id
// is not a snowflake).
func snowflakeMS(id string) int64 {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		return 0
	}
	return int64(n>>22) + discordEpochMS
}

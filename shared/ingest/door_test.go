package ingest_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
	"github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/stopmark"
)

// openDoor admits everyone on telegram, as `zero dev` does by default.
const openDoor = `{channels: {telegram: {allowFrom: ["*"]}}}`

var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fixed serves one parsed config, or err.
type fixed struct {
	cfg *config.Config
	err error
}

func (f fixed) Current(context.Context) (*config.Config, error) { return f.cfg, f.err }

// recordingQueue keeps what is enqueued; err fails every Enqueue.
type recordingQueue struct {
	mu   sync.Mutex
	msgs []inbound.Message
	err  error
}

func (q *recordingQueue) Enqueue(_ context.Context, m inbound.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return q.err
	}
	q.msgs = append(q.msgs, m)
	return nil
}

// recordingStops keeps the marks by session key; err fails every MarkStop.
type recordingStops struct {
	mu    sync.Mutex
	marks map[string]stopmark.Mark
	err   error
}

func (s *recordingStops) MarkStop(_ context.Context, key string, st stopmark.Mark) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if s.marks == nil {
		s.marks = map[string]stopmark.Mark{}
	}
	s.marks[key] = st
	return nil
}

// harness is a door over recording fakes.
type harness struct {
	door  *ingest.Door
	queue *recordingQueue
	stops *recordingStops
}

func newHarness(t *testing.T, doc string) *harness {
	t.Helper()
	h := &harness{queue: &recordingQueue{}, stops: &recordingStops{}}
	h.door = ingest.NewDoor(ingest.Deps{Settings: fixed{cfg: mustConfig(t, doc)}, Queue: h.queue, Stops: h.stops,
		Now: func() time.Time { return testNow }})
	return h
}

// mustConfig parses a zero.json document; "" means the defaults.
func mustConfig(t *testing.T, doc string) *config.Config {
	t.Helper()
	if doc == "" {
		return config.Default()
	}
	cfg, err := config.Parse([]byte(doc))
	if err != nil {
		t.Fatalf("config.Parse(%s): %v", doc, err)
	}
	return cfg
}

// Routes and requests as a channel adapter maps them.
var (
	privateRoute = session.Route{Channel: "telegram", ChatType: inbound.Direct, PeerID: "123456789"}
	groupRoute   = session.Route{Channel: "telegram", ChatType: inbound.Group, PeerID: "-1009876543210"}
	topicRoute   = session.Route{Channel: "telegram", ChatType: inbound.Group, PeerID: "-1009876543210", ThreadID: "42"}
	channelRoute = session.Route{Channel: "telegram", ChatType: inbound.Channel, PeerID: "-1001112223334"}
)

func private(text string) ingest.Request {
	return ingest.Request{Route: privateRoute, Message: inbound.Message{
		ID: "telegram:7000000001:815000001", Channel: "telegram", ChatType: inbound.Direct,
		From: "telegram:123456789", To: "123456789", Text: text, ReceivedAt: 1767225600000,
	}}
}

func inGroup(route session.Route, from string) ingest.Request {
	return ingest.Request{Route: route, Message: inbound.Message{
		ID: "telegram:7000000001:815000008", Channel: "telegram", ChatType: route.ChatType,
		From: from, To: route.PeerID, GroupID: route.PeerID, ThreadID: route.ThreadID, Text: "a question",
	}}
}

func migration() ingest.Request {
	return ingest.Request{
		Route:       session.Route{Channel: "telegram", ChatType: inbound.Group, PeerID: "-1004012345678"},
		MigrateFrom: session.Route{Channel: "telegram", ChatType: inbound.Group, PeerID: "-4012345678"},
		Message: inbound.Message{ID: "telegram:7000000001:migrate:-4012345678:-1004012345678", Kind: inbound.KindMigrate,
			Channel: "telegram", ChatType: inbound.Group, To: "-1004012345678", GroupID: "-1004012345678"},
	}
}

// operator is a message whose caller named the session, as the gateway's
// agent does.
func operator(key, agentID, text string) ingest.Request {
	return ingest.Request{Origin: ingest.Operator, Message: inbound.Message{
		ID: "api:k1", AgentID: agentID, SessionKey: key, Channel: inbound.Internal, ChatType: inbound.Direct, To: "api", Text: text,
	}}
}

func with(r ingest.Request, edit func(*ingest.Request)) ingest.Request {
	edit(&r)
	return r
}

// address is the part of a queued message the door fills in.
type address struct {
	AgentID, SessionKey, MigrateFrom string
}

// TestAcceptRouting: the door picks the agent (bindings) and the session
// key (dmScope, mainKey, identityLinks, scope) of a routed message, and
// keeps a session its caller named.
func TestAcceptRouting(t *testing.T) {
	const agents = `agents: {list: [{id: "main", default: true}, {id: "work"}]}`
	tests := []struct {
		name   string
		config string // added to openDoor's channels
		req    ingest.Request
		want   address
	}{
		{"private chat maps to the main key", "", private("hi"), address{"main", "agent:main:main", ""}},
		{"private chat with custom main key", `session: {mainKey: "home"}`, private("hi"), address{"main", "agent:main:home", ""}},
		{"private chat per peer", `session: {dmScope: "per-peer"}`, private("hi"), address{"main", "agent:main:dm:123456789", ""}},
		{"private chat per channel peer", `session: {dmScope: "per-channel-peer"}`, private("hi"),
			address{"main", "agent:main:telegram:dm:123456789", ""}},
		{"identity link names the peer", `session: {dmScope: "per-peer", identityLinks: {ada: ["telegram:123456789"]}}`, private("hi"),
			address{"main", "agent:main:dm:ada", ""}},
		{"global scope", `session: {scope: "global"}`, private("hi"), address{"main", "global", ""}},
		{"group", "", inGroup(groupRoute, "telegram:1"), address{"main", "agent:main:telegram:group:-1009876543210", ""}},
		{"forum topic has its own session", "", inGroup(topicRoute, "telegram:1"),
			address{"main", "agent:main:telegram:group:-1009876543210:topic:42", ""}},
		{"channel post", "", inGroup(channelRoute, "telegram:-1001112223334"),
			address{"main", "agent:main:telegram:channel:-1001112223334", ""}},
		{"peer binding routes to its agent", agents + `, bindings: [{agentId: "work", match: {channel: "telegram", peer: {kind: "group", id: "-1009876543210"}}}]`,
			inGroup(groupRoute, "telegram:1"), address{"work", "agent:work:telegram:group:-1009876543210", ""}},
		{"channel binding routes a direct chat", agents + `, bindings: [{agentId: "work", match: {channel: "telegram"}}]`,
			private("hi"), address{"work", "agent:work:main", ""}},
		{"migration keys the old and the new chat", "", migration(),
			address{"main", "agent:main:telegram:group:-1004012345678", "agent:main:telegram:group:-4012345678"}},
		{"named key is kept as it is", `session: {mainKey: "home"}`, operator("agent:main:main", "", "hi"),
			address{"main", "agent:main:main", ""}},
		{"named key gives its agent", agents, operator("agent:work:main", "", "hi"), address{"work", "agent:work:main", ""}},
		{"named key without an agent goes to the default agent", agents, operator("cron:nightly", "", "hi"),
			address{"main", "cron:nightly", ""}},
		{"named key and agent are both kept", agents, operator("cron:nightly", "work", "hi"), address{"work", "cron:nightly", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := `{channels: {telegram: {allowFrom: ["*"]}}}`
			if tt.config != "" {
				doc = `{channels: {telegram: {allowFrom: ["*"]}}, ` + tt.config + `}`
			}
			h := newHarness(t, doc)
			out, err := h.door.Accept(context.Background(), tt.req)
			if err != nil {
				t.Fatalf("Accept: %v", err)
			}
			q, ok := out.(ingest.Queued)
			if !ok {
				t.Fatalf("outcome %#v; want Queued", out)
			}
			got := address{q.Message.AgentID, q.Message.SessionKey, q.Message.MigrateFrom}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("address (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]inbound.Message{q.Message}, h.queue.msgs); diff != "" {
				t.Errorf("queued (-want the outcome's message +got):\n%s", diff)
			}
		})
	}
}

// verdict is what an admission case checks.
type verdict struct {
	Outcome string // Queued, Refused or Ignored
	Reason  ingest.Reason
	Hint    string
	Queued  int
}

func verdictOf(out ingest.Outcome, queued int) verdict {
	switch o := out.(type) {
	case ingest.Queued:
		return verdict{Outcome: "Queued", Queued: queued}
	case ingest.Refused:
		return verdict{Outcome: "Refused", Reason: o.Reason, Hint: o.Hint, Queued: queued}
	case ingest.Ignored:
		return verdict{Outcome: "Ignored", Reason: o.Reason, Queued: queued}
	}
	return verdict{Outcome: "none", Queued: queued}
}

// TestAcceptAdmission: a peer starts turns only when
// channels.<channel>.allowFrom lists the sender, the group or channel chat,
// or "*"; the rest are refused with a hint and never queued. Operators and
// migrations are not screened; blank text is ignored.
func TestAcceptAdmission(t *testing.T) {
	const hint = `add the user id (or the group's chat id, or "*") to channels.telegram.allowFrom in zero.json`
	queued := verdict{Outcome: "Queued", Queued: 1}
	refused := verdict{Outcome: "Refused", Reason: ingest.NotAdmitted, Hint: hint}
	tests := []struct {
		name   string
		config string
		req    ingest.Request
		want   verdict
	}{
		{"no config admits nobody", "", private("hi"), refused},
		{"empty allowFrom admits nobody", `{channels: {telegram: {allowFrom: []}}}`, private("hi"), refused},
		{"star admits everyone", openDoor, private("hi"), queued},
		{"listed sender", `{channels: {telegram: {allowFrom: [123456789]}}}`, private("hi"), queued},
		{"listed sender with channel prefix", `{channels: {telegram: {allowFrom: ["telegram:123456789"]}}}`, private("hi"), queued},
		{"other sender", `{channels: {telegram: {allowFrom: ["42"]}}}`, private("hi"), refused},
		{"other channel's list does not count", `{channels: {discord: {allowFrom: ["*"]}}}`, private("hi"), refused},
		{"a direct chat is not admitted by its chat id", `{channels: {telegram: {allowFrom: ["-5"]}}}`,
			with(private("hi"), func(r *ingest.Request) { r.Message.From, r.Message.To = "telegram:7", "-5" }), refused},
		{"group admitted by its chat id", `{channels: {telegram: {allowFrom: ["-1009876543210"]}}}`, inGroup(groupRoute, "telegram:1"), queued},
		{"group member listed", `{channels: {telegram: {allowFrom: ["1"]}}}`, inGroup(groupRoute, "telegram:1"), queued},
		{"group member not listed", `{channels: {telegram: {allowFrom: ["42"]}}}`, inGroup(groupRoute, "telegram:1"), refused},
		{"channel admitted by its chat id", `{channels: {telegram: {allowFrom: ["-1001112223334"]}}}`, inGroup(channelRoute, ""), queued},
		{"a sender with no id is not admitted by a list", `{channels: {telegram: {allowFrom: ["1"]}}}`,
			with(private("hi"), func(r *ingest.Request) { r.Message.From = "" }), refused},
		{"a migration needs no admission", "", migration(), queued},
		{"an operator needs no admission", "", operator("agent:main:main", "main", "hi"), queued},
		{"an operator delivering to a channel needs no admission", "",
			with(operator("agent:main:main", "main", "hi"), func(r *ingest.Request) { r.Message.Channel, r.Message.To = "telegram", "42" }), queued},
		{"blank text is ignored", openDoor, private(" \n\t"), verdict{Outcome: "Ignored", Reason: ingest.NoText}},
		{"blank text is ignored before admission", "", private(""), verdict{Outcome: "Ignored", Reason: ingest.NoText}},
		{"a picture without text is queued", openDoor, with(private(""), func(r *ingest.Request) {
			r.Message.Attachments = []inbound.Attachment{{Kind: inbound.AttachmentImage, FileID: "AgAC"}}
		}), queued},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.config)
			out, err := h.door.Accept(context.Background(), tt.req)
			if err != nil {
				t.Fatalf("Accept: %v", err)
			}
			if diff := cmp.Diff(tt.want, verdictOf(out, len(h.queue.msgs))); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			if len(h.stops.marks) != 0 && tt.want.Outcome != "Queued" {
				t.Errorf("marks %v for a message that was not queued", h.stops.marks)
			}
		})
	}
}

// TestAcceptStopMarks: a /stop, or any ordinary message when the
// channel's queue mode is interrupt, marks its session before it is
// queued (the run it stops holds the queue group); the message is queued
// too, and the outcome says so.
func TestAcceptStopMarks(t *testing.T) {
	const interrupt = `{messages: {queue: {byChannel: {telegram: "interrupt"}}}, channels: {telegram: {allowFrom: ["*"]}}}`
	const everywhere = `{messages: {queue: {mode: "interrupt"}}}`
	privateMark := map[string]stopmark.Mark{"agent:main:main": {MessageID: "telegram:7000000001:815000001", At: testNow.UnixMilli(), Pending: true}}
	apiMark := map[string]stopmark.Mark{"agent:main:main": {MessageID: "api:k1", At: testNow.UnixMilli(), Pending: true}}
	tests := []struct {
		name      string
		config    string
		req       ingest.Request
		wantMarks map[string]stopmark.Mark
		wantMode  string
	}{
		{"stop alone", openDoor, private("/stop"), privateMark, "collect"},
		{"stop addressed to the bot", openDoor, private("/stop@ZeroBot"), privateMark, "collect"},
		{"stop in capitals with blanks", openDoor, private("  /STOP "), privateMark, "collect"},
		{"stop with text is a message", openDoor, private("/stop the music"), nil, "collect"},
		{"plain text", openDoor, private("hello"), nil, "collect"},
		{"queue mode interrupt marks every message", interrupt, private("hello"), privateMark, "interrupt"},
		{"another channel's interrupt does not count", `{messages: {queue: {byChannel: {discord: "interrupt"}}}, channels: {telegram: {allowFrom: ["*"]}}}`,
			private("hello"), nil, "collect"},
		{"a migration never marks", interrupt, migration(), nil, "interrupt"},
		{"an operator's stop marks", "", operator("agent:main:main", "main", "/stop"), apiMark, "collect"},
		{"an operator's message in interrupt mode marks", everywhere, operator("agent:main:main", "main", "hi"), apiMark, "interrupt"},
		{"an agent-to-agent reply round never interrupts", everywhere, systemMade(func(m *inbound.Message) { m.Flow = &inbound.Flow{Kind: inbound.FlowReply} }), nil, "interrupt"},
		{"a cron system event never interrupts", everywhere, systemMade(func(m *inbound.Message) { m.From = "cron" }), nil, "interrupt"},
		{"a hook wake never interrupts", everywhere, systemMade(func(m *inbound.Message) { m.From, m.Provenance = "hook", inbound.Untrusted }), nil, "interrupt"},
		{"a hook's /stop stops nothing", "", systemMade(func(m *inbound.Message) { m.From, m.Provenance, m.Text = "hook", inbound.Untrusted, "/stop" }), nil, "collect"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.config)
			out, err := h.door.Accept(context.Background(), tt.req)
			if err != nil {
				t.Fatalf("Accept: %v", err)
			}
			q, ok := out.(ingest.Queued)
			if !ok {
				t.Fatalf("outcome %#v; want Queued (the /stop itself is queued too)", out)
			}
			if diff := cmp.Diff(tt.wantMarks, h.stops.marks); diff != "" {
				t.Errorf("marks (-want +got):\n%s", diff)
			}
			if q.Stopping != (tt.wantMarks != nil) || q.Mode != tt.wantMode {
				t.Errorf("outcome stopping %v mode %q; want %v %q", q.Stopping, q.Mode, tt.wantMarks != nil, tt.wantMode)
			}
			if len(h.queue.msgs) != 1 {
				t.Errorf("queued %d; want 1", len(h.queue.msgs))
			}
		})
	}
}

// systemMade is an operator request for the main session changed by edit
// into one the system made for itself.
func systemMade(edit func(m *inbound.Message)) ingest.Request {
	r := operator("agent:main:main", "main", "hi")
	edit(&r.Message)
	return r
}

// TestAcceptWithoutStopMarker: with no StopMarker a /stop is queued like
// any message and the outcome does not claim a mark.
func TestAcceptWithoutStopMarker(t *testing.T) {
	queue := &recordingQueue{}
	door := ingest.NewDoor(ingest.Deps{Settings: fixed{cfg: mustConfig(t, openDoor)}, Queue: queue})
	out, err := door.Accept(context.Background(), private("/stop"))
	if err != nil {
		t.Fatal(err)
	}
	if q, ok := out.(ingest.Queued); !ok || q.Stopping || len(queue.msgs) != 1 {
		t.Fatalf("outcome %#v, queued %d; want Queued without stopping, 1 queued", out, len(queue.msgs))
	}
}

// TestAcceptQueued: the whole outcome of a queued message.
func TestAcceptQueued(t *testing.T) {
	h := newHarness(t, openDoor)
	req := private("hello")
	out, err := h.door.Accept(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	msg := req.Message
	msg.AgentID, msg.SessionKey = "main", "agent:main:main"
	want := ingest.Queued{Message: msg, RunID: run.NewID(msg.ID), Mode: config.QueueCollect}
	if diff := cmp.Diff(ingest.Outcome(want), out); diff != "" {
		t.Errorf("outcome (-want +got):\n%s", diff)
	}
}

// TestAcceptIdempotent: a redelivered request queues the same message id
// (the queue deduplicates it) and rewrites the same mark.
func TestAcceptIdempotent(t *testing.T) {
	h := newHarness(t, openDoor)
	for range 2 {
		if _, err := h.door.Accept(context.Background(), private("/stop")); err != nil {
			t.Fatal(err)
		}
	}
	if len(h.queue.msgs) != 2 || !cmp.Equal(h.queue.msgs[0], h.queue.msgs[1]) {
		t.Fatalf("queued %+v; want the same message twice", h.queue.msgs)
	}
	if h.queue.msgs[0].QueueDedup() != "telegram:7000000001:815000001" || h.queue.msgs[0].QueueGroup() != "agent:main:main" {
		t.Errorf("dedup %q group %q", h.queue.msgs[0].QueueDedup(), h.queue.msgs[0].QueueGroup())
	}
	if len(h.stops.marks) != 1 {
		t.Errorf("marks %v; want one", h.stops.marks)
	}
}

// TestAcceptErrors: when the door cannot decide or cannot queue it
// returns an error (the caller has the event delivered again) and queues
// nothing.
func TestAcceptErrors(t *testing.T) {
	unavailable := fault.Wrap(fault.Unavailable, errors.New("down"), "store")
	tests := []struct {
		name      string
		settings  ingest.Settings
		stopErr   error
		queueErr  error
		req       ingest.Request
		wantCode  fault.Code
		wantMarks int
	}{
		{name: "config unavailable", settings: fixed{err: fault.New(fault.Unavailable, "ssm: throttled")}, req: private("hi"), wantCode: fault.Unavailable},
		{name: "stop mark fails", stopErr: unavailable, req: private("/stop"), wantCode: fault.Unavailable},
		{name: "enqueue fails after the mark", queueErr: unavailable, req: private("/stop"), wantCode: fault.Unavailable, wantMarks: 1},
		{name: "message without an id", req: with(private("hi"), func(r *ingest.Request) { r.Message.ID = "" }), wantCode: fault.Invalid},
		{name: "message without a channel", req: with(private("hi"), func(r *ingest.Request) { r.Message.Channel = "" }), wantCode: fault.Invalid},
		{name: "migration without an old route", req: with(migration(), func(r *ingest.Request) { r.MigrateFrom = session.Route{} }), wantCode: fault.Invalid},
		{name: "routed message without a route", req: with(private("hi"), func(r *ingest.Request) { r.Route = session.Route{} }), wantCode: fault.Invalid},
		{name: "unknown origin", req: with(private("hi"), func(r *ingest.Request) { r.Origin = 7 }), wantCode: fault.Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			settings := tt.settings
			if settings == nil {
				settings = fixed{cfg: mustConfig(t, openDoor)}
			}
			queue, stops := &recordingQueue{err: tt.queueErr}, &recordingStops{err: tt.stopErr}
			door := ingest.NewDoor(ingest.Deps{Settings: settings, Queue: queue, Stops: stops})
			out, err := door.Accept(context.Background(), tt.req)
			if out != nil || !fault.Is(err, tt.wantCode) {
				t.Fatalf("Accept = %#v, %v; want no outcome and a %s error", out, err, tt.wantCode)
			}
			if len(queue.msgs) != 0 || len(stops.marks) != tt.wantMarks {
				t.Errorf("queued %d, marked %d; want 0 and %d", len(queue.msgs), len(stops.marks), tt.wantMarks)
			}
		})
	}
}

func TestNewDoorNeedsQueue(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewDoor without a Queue did not panic")
		}
	}()
	ingest.NewDoor(ingest.Deps{})
}

// TestAcceptAddressedCommands: a command addressed "/cmd@name" is this
// bot's in a direct chat, and in a group only when name is
// channels.<channel>.botUsername (any case): the door drops "@name" and a
// /stop marks. Addressed to another bot, or in a group where no username
// is configured, it stays as written: no mark, plain text for the runner.
func TestAcceptAddressedCommands(t *testing.T) {
	const named = `{channels: {telegram: {allowFrom: ["*"], botUsername: "ZeroBot"}}}`
	groupMark := map[string]stopmark.Mark{"agent:main:telegram:group:-1009876543210": {MessageID: "telegram:7000000001:815000008", At: testNow.UnixMilli(), Pending: true}}
	privateMark := map[string]stopmark.Mark{"agent:main:main": {MessageID: "telegram:7000000001:815000001", At: testNow.UnixMilli(), Pending: true}}
	group := func(text string) ingest.Request {
		return with(inGroup(groupRoute, "telegram:1"), func(r *ingest.Request) { r.Message.Text = text })
	}
	tests := []struct {
		name      string
		config    string
		req       ingest.Request
		wantText  string
		wantMarks map[string]stopmark.Mark
	}{
		{"group: our name", named, group("/stop@ZeroBot"), "/stop", groupMark},
		{"group: our name in another case", named, group("  /stop@zerobot "), "  /stop ", groupMark},
		{"group: another bot's stop", named, group("/stop@OtherBot"), "/stop@OtherBot", nil},
		{"group: no username configured", openDoor, group("/stop@ZeroBot"), "/stop@ZeroBot", nil},
		{"group: an empty name", named, group("/stop@"), "/stop@", nil},
		{"group: a reset with text for us", named, group("/new@ZeroBot tell me a joke"), "/new tell me a joke", nil},
		{"group: a reset for another bot", named, group("/new@OtherBot tell me a joke"), "/new@OtherBot tell me a joke", nil},
		{"group: a plain stop", named, group("/stop"), "/stop", groupMark},
		{"group: a mention is no command", named, group("@ZeroBot /stop"), "@ZeroBot /stop", nil},
		{"direct: any name is ours", openDoor, private("/stop@OtherBot"), "/stop", privateMark},
		{"direct: a command on a line of its own", openDoor, private("/status@ZeroBot\nplease"), "/status\nplease", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.config)
			if _, err := h.door.Accept(context.Background(), tt.req); err != nil {
				t.Fatalf("Accept: %v", err)
			}
			if len(h.queue.msgs) != 1 || h.queue.msgs[0].Text != tt.wantText {
				t.Fatalf("queued %+v; want one message with text %q", h.queue.msgs, tt.wantText)
			}
			if diff := cmp.Diff(tt.wantMarks, h.stops.marks); diff != "" {
				t.Errorf("marks (-want +got):\n%s", diff)
			}
		})
	}
}

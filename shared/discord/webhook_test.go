package discord_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/discord"
	"github.com/zero-gateway/zero/shared/inbound"
	"github.com/zero-gateway/zero/shared/ingest"
)

var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// keyPair is a fixed test key (RFC 8032's first test vector seed).
var (
	seed, _         = hex.DecodeString("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
	priv            = ed25519.NewKeyFromSeed(seed)
	pubHex          = hex.EncodeToString(priv.Public().(ed25519.PublicKey))
	_, otherPriv, _ = ed25519.GenerateKey(nil)
)

func sign(key ed25519.PrivateKey, ts string, body []byte) string {
	return hex.EncodeToString(ed25519.Sign(key, append([]byte(ts), body...)))
}

func TestVerify(t *testing.T) {
	body := []byte(`{"type":1}`)
	now := strconv.FormatInt(testNow.Unix(), 10)
	stale := strconv.FormatInt(testNow.Add(-6*time.Minute).Unix(), 10)
	future := strconv.FormatInt(testNow.Add(6*time.Minute).Unix(), 10)
	v, err := discord.NewVerifier(pubHex, func() time.Time { return testNow })
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, sig, ts string
		body          []byte
		want          string
	}{
		{"valid", sign(priv, now, body), now, body, ""},
		{"valid within skew", sign(priv, strconv.FormatInt(testNow.Add(-4*time.Minute).Unix(), 10), body), strconv.FormatInt(testNow.Add(-4*time.Minute).Unix(), 10), body, ""},
		{"wrong key", sign(otherPriv, now, body), now, body, "bad signature"},
		{"tampered body", sign(priv, now, body), now, []byte(`{"type":2}`), "bad signature"},
		{"timestamp swapped", sign(priv, now, body), strconv.FormatInt(testNow.Unix()-1, 10), body, "bad signature"},
		{"stale timestamp", sign(priv, stale, body), stale, body, "stale timestamp"},
		{"future timestamp", sign(priv, future, body), future, body, "stale timestamp"},
		{"missing signature", "", now, body, "missing signature headers"},
		{"missing timestamp", sign(priv, now, body), "", body, "missing signature headers"},
		{"signature not hex", "zz" + sign(priv, now, body)[2:], now, body, "malformed signature"},
		{"signature short", sign(priv, now, body)[:100], now, body, "malformed signature"},
		{"timestamp not a number", sign(priv, "x", body), "x", body, "malformed timestamp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := v.Verify(tc.sig, tc.ts, tc.body); got != tc.want {
				t.Errorf("Verify = %q; want %q", got, tc.want)
			}
		})
	}
}

func TestNewVerifierRejectsBadKeys(t *testing.T) {
	for _, key := range []string{"", "abc", strings.Repeat("0", 62), strings.Repeat("g", 64)} {
		if _, err := discord.NewVerifier(key, nil); err == nil {
			t.Errorf("NewVerifier(%q) accepted", key)
		}
	}
}

type fixedConfig struct{ cfg *config.Config }

func (f fixedConfig) Current(context.Context) (*config.Config, error) { return f.cfg, nil }

type recordingQueue struct {
	mu   sync.Mutex
	msgs []inbound.Message
}

func (q *recordingQueue) Enqueue(_ context.Context, m inbound.Message) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.msgs = append(q.msgs, m)
	return nil
}

// interaction ids: snowflakes whose time is testNow.
var interactionID = strconv.FormatUint(uint64(testNow.UnixMilli()-1420070400000)<<22, 10)

func command(guild, channelID string, channelType int, name string, options string) string {
	user := `{"id":"555","username":"ada","global_name":"Ada"}`
	who := `"member":{"user":` + user + `}`
	if guild == "" {
		who = `"user":` + user
	} else {
		who += `,"guild_id":"` + guild + `"`
	}
	return `{"id":"` + interactionID + `","application_id":"999","type":2,"token":"tok-abc",` + who +
		`,"channel_id":"` + channelID + `","channel":{"id":"` + channelID + `","type":` + strconv.Itoa(channelType) + `,"name":"general"}` +
		`,"data":{"id":"1","name":"` + name + `","type":1,"options":[` + options + `]}}`
}

func TestInteractions(t *testing.T) {
	const ask = `{"name":"message","type":3,"value":"hello there"}`
	tests := []struct {
		name       string
		body       string
		config     string
		badSig     bool
		stale      bool
		wantStatus int
		wantBody   string
		wantQueued []inbound.Message
	}{
		{name: "ping", body: `{"id":"1","application_id":"999","type":1,"token":"t"}`, wantStatus: 200, wantBody: `{"type":1}`},
		{name: "bad signature", body: `{"type":1}`, badSig: true, wantStatus: 401, wantBody: `{"error":"invalid request signature"}`},
		{name: "stale command", body: command("77", "123", 0, "ask", ask), stale: true, wantStatus: 401, wantBody: `{"error":"invalid request signature"}`},
		{name: "malformed", body: `{"type":`, wantStatus: 400},
		{
			name: "ask in a guild channel", body: command("77", "123", 0, "ask", ask), wantStatus: 200, wantBody: `{"type":5}`,
			wantQueued: []inbound.Message{{
				ID: "discord:999:" + interactionID, AgentID: "main", SessionKey: "agent:main:discord:channel:123",
				Channel: "discord", AccountID: "999", ChatType: "channel", From: "discord:555", To: "123", GroupID: "123",
				Subject: "general", SenderName: "Ada", Text: "hello there", ReceivedAt: testNow.UnixMilli(), ReplyToken: "tok-abc",
			}},
		},
		{
			name: "ask in a thread keys the thread", body: command("77", "456", 11, "ask", ask), wantStatus: 200, wantBody: `{"type":5}`,
			wantQueued: []inbound.Message{{
				ID: "discord:999:" + interactionID, AgentID: "main", SessionKey: "agent:main:discord:channel:456",
				Channel: "discord", AccountID: "999", ChatType: "channel", From: "discord:555", To: "456", GroupID: "456", ThreadID: "456",
				Subject: "general", SenderName: "Ada", Text: "hello there", ReceivedAt: testNow.UnixMilli(), ReplyToken: "tok-abc",
			}},
		},
		{
			name: "DM by dmScope per-channel-peer", body: command("", "888", 1, "ask", ask), wantStatus: 200, wantBody: `{"type":5}`,
			config: `{session: {dmScope: "per-channel-peer"}, channels: {discord: {allowFrom: ["*"]}}}`,
			wantQueued: []inbound.Message{{
				ID: "discord:999:" + interactionID, AgentID: "main", SessionKey: "agent:main:discord:dm:555",
				Channel: "discord", AccountID: "999", ChatType: "direct", From: "discord:555", To: "888",
				SenderName: "Ada", Text: "hello there", ReceivedAt: testNow.UnixMilli(), ReplyToken: "tok-abc",
			}},
		},
		{
			name: "DM identity link", body: command("", "888", 1, "ask", ask), wantStatus: 200, wantBody: `{"type":5}`,
			config: `{session: {dmScope: "per-peer", identityLinks: {ada: ["telegram:42", "discord:555"]}}, channels: {discord: {allowFrom: ["*"]}}}`,
			wantQueued: []inbound.Message{{
				ID: "discord:999:" + interactionID, AgentID: "main", SessionKey: "agent:main:dm:ada",
				Channel: "discord", AccountID: "999", ChatType: "direct", From: "discord:555", To: "888",
				SenderName: "Ada", Text: "hello there", ReceivedAt: testNow.UnixMilli(), ReplyToken: "tok-abc",
			}},
		},
		{
			name: "status maps to the text command", body: command("77", "123", 0, "status", ""), wantStatus: 200, wantBody: `{"type":5}`,
			wantQueued: []inbound.Message{{
				ID: "discord:999:" + interactionID, AgentID: "main", SessionKey: "agent:main:discord:channel:123",
				Channel: "discord", AccountID: "999", ChatType: "channel", From: "discord:555", To: "123", GroupID: "123",
				Subject: "general", SenderName: "Ada", Text: "/status", ReceivedAt: testNow.UnixMilli(), ReplyToken: "tok-abc",
			}},
		},
		{
			name: "queue with its mode", body: command("77", "123", 0, "queue", `{"name":"mode","type":3,"value":"collect"}`), wantStatus: 200, wantBody: `{"type":5}`,
			wantQueued: []inbound.Message{{
				ID: "discord:999:" + interactionID, AgentID: "main", SessionKey: "agent:main:discord:channel:123",
				Channel: "discord", AccountID: "999", ChatType: "channel", From: "discord:555", To: "123", GroupID: "123",
				Subject: "general", SenderName: "Ada", Text: "/queue collect", ReceivedAt: testNow.UnixMilli(), ReplyToken: "tok-abc",
			}},
		},
		{
			name: "not admitted", body: command("77", "123", 0, "ask", ask), config: `{}`, wantStatus: 200,
			wantBody: `{"type":4,"data":{"content":"You are not allowed to talk to this assistant here.","flags":64,"allowed_mentions":{"parse":[]}}}`,
		},
		{
			name: "unknown command", body: command("77", "123", 0, "dance", ""), wantStatus: 200,
			wantBody: `{"type":4,"data":{"content":"ZERO does not handle this interaction.","flags":64,"allowed_mentions":{"parse":[]}}}`,
		},
		{
			name: "ask with nothing", body: command("77", "123", 0, "ask", ""), wantStatus: 200,
			wantBody: `{"type":4,"data":{"content":"Nothing to answer: give /ask a message.","flags":64,"allowed_mentions":{"parse":[]}}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.config
			if doc == "" {
				doc = `{channels: {discord: {allowFrom: ["*"]}}}`
			}
			cfg, err := config.Parse([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			q := &recordingQueue{}
			door := ingest.NewDoor(ingest.Deps{Settings: fixedConfig{cfg}, Queue: q})
			h := discord.NewInteractions(discord.InteractionsConfig{
				PublicKey: pubHex, Door: door, Now: func() time.Time { return testNow },
				Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			})
			ts := testNow
			if tc.stale {
				ts = ts.Add(-10 * time.Minute)
			}
			tsStr := strconv.FormatInt(ts.Unix(), 10)
			key := priv
			if tc.badSig {
				key = otherPriv
			}
			req := httptest.NewRequest(http.MethodPost, "/webhooks/discord", strings.NewReader(tc.body))
			req.Header.Set(discord.SignatureHeader, sign(key, tsStr, []byte(tc.body)))
			req.Header.Set(discord.TimestampHeader, tsStr)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.wantStatus {
				t.Fatalf("status = %d; want %d (body %s)", rec.Code, tc.wantStatus, rec.Body)
			}
			if tc.wantBody != "" {
				if diff := cmp.Diff(canon(t, tc.wantBody), canon(t, rec.Body.String())); diff != "" {
					t.Errorf("body (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tc.wantQueued, q.msgs); diff != "" {
				t.Errorf("queued (-want +got):\n%s", diff)
			}
		})
	}
}

func canon(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %s", s)
	}
	return v
}

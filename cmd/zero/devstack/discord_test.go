package devstack

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/cmd/zero/devstack/iampolicy"
	"github.com/zero-gateway/zero/shared/telegram/telegramtest"
)

// fakeDiscordAPI records the interaction webhook calls the runner makes.
type fakeDiscordAPI struct {
	*httptest.Server
	mu    sync.Mutex
	calls []discordCall
}

type discordCall struct {
	Method, Path, Content string
	Parse                 []string
}

func newFakeDiscordAPI(t *testing.T) *fakeDiscordAPI {
	f := &fakeDiscordAPI{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Content         string `json:"content"`
			AllowedMentions struct {
				Parse []string `json:"parse"`
			} `json:"allowed_mentions"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.calls = append(f.calls, discordCall{r.Method, r.URL.EscapedPath(), body.Content, body.AllowedMentions.Parse})
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"1"}`)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeDiscordAPI) wait(t *testing.T, n int) []discordCall {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		f.mu.Lock()
		got := slices.Clone(f.calls)
		f.mu.Unlock()
		if len(got) >= n {
			return got
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("fake Discord got fewer than %d calls", n)
	return nil
}

// TestDiscordEndToEnd runs the DiscordInteractions function through the
// real bootstrap under the RIE and the front: a bad signature is 401 and
// queues nothing, PING is PONG, /ask is answered deferred, and the runner
// edits @original on a fake Discord API. The stack's IAM check (startStack)
// covers the DiscordInteractions role and the runner's.
func TestDiscordEndToEnd(t *testing.T) {
	need(t, "AWS emulator", emuErr)
	needRIE(t)
	tg := telegramtest.New(t, e2eToken)
	api := newFakeDiscordAPI(t)
	_, priv, _ := ed25519.GenerateKey(nil)
	_, otherKey, _ := ed25519.GenerateKey(nil)
	pub := hex.EncodeToString(priv.Public().(ed25519.PublicKey))
	st := startStack(t, Options{
		Template: translatedTemplate(t),
		Prefix:   uniquePrefix(t, "discord"),
		Params: map[string]string{
			"TelegramBotId": "123456", "TelegramAPIBaseURL": tg.URL, "ZeroModel": "zero/echo",
			"DiscordPublicKey": pub, "DiscordApplicationId": "999", "DiscordAPIBaseURL": api.URL + "/api/v10",
		},
		Secrets: map[string]string{
			"telegram-bot-token": e2eToken, "telegram-webhook-secret": e2eSecret, "gateway-token": e2eGatewayToken,
			"hooks-token": e2eHooksToken, "discord-bot-token": "discord-e2e-bot-token",
		},
		Config:   []byte(`{channels: {discord: {allowFrom: ["*"]}}}`),
		PollWait: time.Second,
		Output:   &invocationLog{},
	})
	post := func(key ed25519.PrivateKey, body string) (int, string) {
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		req, _ := http.NewRequest(http.MethodPost, st.FrontURL+"/webhooks/discord", bytes.NewReader([]byte(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Signature-Timestamp", ts)
		req.Header.Set("X-Signature-Ed25519", hex.EncodeToString(ed25519.Sign(key, []byte(ts+body))))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST /webhooks/discord: %v", err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	id := strconv.FormatUint(uint64(time.Now().UnixMilli()-1420070400000)<<22, 10)
	ask := `{"id":"` + id + `","application_id":"999","type":2,"token":"e2e-tok","guild_id":"77","channel_id":"123",` +
		`"member":{"user":{"id":"555","username":"ada"}},"data":{"name":"ask","options":[{"name":"message","type":3,"value":"hello @everyone"}]}}`

	if code, _ := post(otherKey, ask); code != http.StatusUnauthorized {
		t.Fatalf("wrong key: %d; want 401", code)
	}
	if n := queueDepth(t, st); n != 0 {
		t.Fatalf("queue holds %d messages after a rejected request; want 0", n)
	}
	if code, body := post(priv, `{"id":"1","application_id":"999","type":1,"token":"x"}`); code != 200 || body != `{"type":1}` {
		t.Fatalf("PING = %d %s; want 200 {\"type\":1}", code, body)
	}
	if code, body := post(priv, ask); code != 200 || body != `{"type":5}` {
		t.Fatalf("/ask = %d %s; want 200 {\"type\":5}", code, body)
	}
	got := api.wait(t, 1)
	want := []discordCall{{Method: "PATCH", Path: "/api/v10/webhooks/999/e2e-tok/messages/@original", Content: "echo: hello @everyone", Parse: []string{}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Discord calls (-want +got):\n%s", diff)
	}
	calls := st.AWSCalls()
	queue := st.Resources.Queues["WorkQueue"].ARN
	if !slices.ContainsFunc(calls, func(c iampolicy.Call) bool {
		return c.Function == "DiscordInteractions" && c.Request.Action == "sqs:SendMessage" && c.Request.Resource == queue
	}) {
		t.Errorf("no recorded DiscordInteractions sqs:SendMessage; recorded:\n%s", callKeys(calls))
	}
}

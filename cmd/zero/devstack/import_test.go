package devstack

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/sqlitedb"
	"github.com/zero-gateway/zero/shared/sqlitedb/sqlitedbtest"
	"github.com/zero-gateway/zero/shared/telegram/telegramtest"
	"github.com/zero-gateway/zero/shared/upstream/upstreamtest"
)

// recordingModel is an OpenAI-compatible Chat Completions server that
// answers "reply to: <last message>" and keeps every request's messages,
// to show what the model was sent. It checks the API key and the shape.
type recordingModel struct {
	*httptest.Server
	mu       sync.Mutex
	requests [][]string // each request's message texts, in order
}

const recordingModelKey = "sk-import-test-0123456789"

func newRecordingModel(t *testing.T) *recordingModel {
	m := &recordingModel{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req chatRequest
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+recordingModelKey ||
			json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) == 0 {
			t.Errorf("recording model: unexpected request %s %s", r.Method, r.URL.Path)
			http.Error(w, `{"error":{"message":"unexpected request","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		var texts []string
		for _, msg := range req.Messages {
			texts = append(texts, contentText(msg.Content))
		}
		m.mu.Lock()
		m.requests = append(m.requests, texts)
		m.mu.Unlock()
		reply, _ := json.Marshal(map[string]string{"role": "assistant", "content": "reply to: " + texts[len(texts)-1]})
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-imp","object":"chat.completion","created":1767225600,"model":%q,"choices":[{"index":0,"message":%s,"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`, req.Model, reply)
	}))
	t.Cleanup(m.Close)
	return m
}

// requestWith is the first request whose last message contains text.
func (m *recordingModel) requestWith(text string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.requests {
		if strings.Contains(r[len(r)-1], text) {
			return r
		}
	}
	return nil
}

// TestImportEndToEnd imports, with the built zero binary, an upstream
// store of each layout built as the upstream program writes it (2026.9.6:
// SQLite, STRICT tables, WAL, zstd rows, direct keys; 2026.1.30:
// sessions.json with absolute sessionFile paths, JSONL, an entry without
// transcript) into a local stack: both exit 0 and count every message read
// as written; a second import keeps everything; chat.history shows every
// message; the next Telegram message of each imported private sender
// continues the conversation (its model request holds the imported turns);
// and `zero export` writes every message back out.
func TestImportEndToEnd(t *testing.T) {
	need(t, "AWS emulator", emuErr)
	needRIE(t)
	bin := filepath.Join(t.TempDir(), "zero")
	built := make(chan error, 1)
	go func() {
		out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput()
		if err != nil {
			err = fmt.Errorf("%v\n%s", err, out)
		}
		built <- err
	}()
	tg := telegramtest.New(t, e2eToken)
	m := newRecordingModel(t)
	st := startStack(t, Options{
		Template: translatedTemplate(t),
		Prefix:   uniquePrefix(t, "imp"),
		Params: map[string]string{
			"TelegramBotId": "123456", "TelegramAPIBaseURL": tg.URL,
			"ZeroModel": "openai/gpt-4o-mini", "OpenAIBaseURL": m.URL + "/v1",
		},
		Secrets: map[string]string{
			"telegram-bot-token": e2eToken, "telegram-webhook-secret": e2eSecret,
			"gateway-token": e2eGatewayToken, "openai-api-key": recordingModelKey,
		},
		// The upstream stores' private-chat keys are per channel and peer.
		Config:   []byte(`{session: {dmScope: "per-channel-peer"}, channels: {telegram: {allowFrom: ["*"], owners: ["*"]}}}`),
		PollWait: time.Second,
	})
	if err := <-built; err != nil {
		t.Fatalf("build zero: %v", err)
	}
	zero := zeroCLI(t, st, bin)

	now := time.Now()
	sqliteState, jsonlState := t.TempDir(), t.TempDir()
	sqliteSessions := upstreamtest.Chats(upstreamtest.Release20260906, now)
	db, compressed := sqlitedbtest.Write(t, sqlitedb.Path(sqliteState, "main"), sqliteSessions)
	db.Close()
	if compressed == 0 {
		t.Fatal("the 2026.9.6 store has no zstd rows")
	}
	jsonlSessions := upstreamtest.Chats(upstreamtest.Release20260130, now)
	upstreamtest.WriteJSONL(t, jsonlState, "main", jsonlSessions)

	for _, tt := range []struct{ state, want string }{
		{sqliteState, "3 sessions from " + sqliteState + ": 3 imported, 0 extended, 0 kept, 0 conflict, 0 skipped; messages: 10 read, 10 written, 10 in ZERO"},
		{jsonlState, "4 sessions from " + jsonlState + ": 4 imported, 0 extended, 0 kept, 0 conflict, 0 skipped; messages: 10 read, 10 written, 10 in ZERO"},
		{sqliteState, "3 sessions from " + sqliteState + ": 0 imported, 0 extended, 3 kept, 0 conflict, 0 skipped; messages: 10 read, 0 written, 10 in ZERO"},
	} {
		out, err := zero("import", "--from", tt.state)
		if err != nil || !strings.Contains(out, tt.want) {
			t.Fatalf("zero import --from %s = %v\n%s\nwant %q", tt.state, err, out, tt.want)
		}
		t.Log(out)
	}

	all := append(append([]upstreamtest.Session(nil), sqliteSessions...), jsonlSessions...)
	for _, s := range all {
		key := strings.Replace(s.Key, ":direct:", ":dm:", 1)
		history := historyText(t, st, key)
		for _, msg := range s.Messages {
			if !strings.Contains(history, msg) {
				t.Errorf("chat.history of %s lacks %.60q", key, msg)
			}
		}
	}

	update := 9100
	for _, s := range all {
		if s.ChatType != "direct" || s.Chat == 0 {
			continue
		}
		update++
		next := fmt.Sprintf("next from %d", s.Chat)
		chatSay(t, st, update, s.Chat, next)
		sentTo(t, tg, s.Chat, "reply to: "+next)
		sent := strings.Join(m.requestWith(next), "\n")
		for _, msg := range s.Messages {
			if !strings.Contains(sent, msg) {
				t.Errorf("the model request of %d's next message lacks the imported %.60q", s.Chat, msg)
			}
		}
	}

	out := t.TempDir()
	if msg, err := zero("export", "--to", out); err != nil {
		t.Fatalf("zero export: %v\n%s", err, msg)
	}
	for _, s := range all {
		file := filepath.Join(out, "agents", "main", "sessions", s.SessionID()+".jsonl")
		raw, _ := os.ReadFile(file)
		for _, msg := range s.Messages {
			if !strings.Contains(string(raw), msg) {
				t.Errorf("the export of %s (%s) lacks %.60q", s.Key, file, msg)
			}
		}
	}
}

// zeroCLI runs the zero binary at bin against st's table and bucket, with
// the stack's AWS configuration, and returns its output (stdout and
// stderr) and error.
func zeroCLI(t *testing.T, st *Stack, bin string) func(args ...string) (string, error) {
	creds, err := st.AWSConfig.Credentials.Retrieve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "AWS_ENDPOINT_URL="+st.EndpointURL, "AWS_REGION="+st.AWSConfig.Region,
		"AWS_ACCESS_KEY_ID="+creds.AccessKeyID, "AWS_SECRET_ACCESS_KEY="+creds.SecretAccessKey)
	for _, o := range st.Outputs() {
		switch o.Name {
		case "SessionTableName":
			env = append(env, "ZERO_TABLE="+o.Value)
		case "TranscriptBucketName":
			env = append(env, "ZERO_BUCKET="+o.Value)
		}
	}
	return func(args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
}

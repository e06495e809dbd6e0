package devstack

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/telegram/telegramtest"
)

// toolsModel is an OpenAI-compatible Chat Completions server that
// scripts the session tools sessions_yield, subagents and the filtered
// sessions_history:
//   - "spawnyield {json}" calls sessions_spawn with the JSON, then, on
//     the spawn's result, sessions_yield;
//   - "spawn {json}", "subagents {json}", "history {json}" call
//     sessions_spawn, subagents, sessions_history with the JSON; the
//     result comes back as "tool said: <result>";
//   - a message holding "[sub-agent result]" (a yielded session's wake)
//     is answered "relayed: <message>";
//   - "think about …" is answered with a <think> block and a visible
//     answer; a message saying "slowly" is answered "slow reply" after
//     slow; anything else "reply to: <message>".
//
// It checks the API key and the request's shape.
func newToolsModel(t *testing.T, slow time.Duration) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+a2aModelKey ||
			json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) == 0 {
			t.Errorf("tools model: unexpected request %s %s", r.Method, r.URL.Path)
			http.Error(w, `{"error":{"message":"unexpected request","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		last, prompt := req.Messages[len(req.Messages)-1], ""
		for _, m := range req.Messages {
			if m.Role == "user" {
				prompt = contentText(m.Content)
			}
		}
		msg, finish := toolsAnswer(last.Role, contentText(last.Content), prompt, slow)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-tools","object":"chat.completion","created":1767225600,"model":%q,"choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`, req.Model, msg, finish)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// toolsAnswer is the assistant message (JSON) and finish reason for a
// request whose last message has role and text, in a run whose user
// message is prompt.
func toolsAnswer(role, text, prompt string, slow time.Duration) (string, string) {
	say := func(s string) (string, string) {
		out, _ := json.Marshal(map[string]string{"role": "assistant", "content": s})
		return string(out), "stop"
	}
	call := func(name, args string) (string, string) {
		out, _ := json.Marshal(map[string]any{"role": "assistant", "content": nil, "tool_calls": []map[string]any{{
			"id": "call_" + name, "type": "function", "function": map[string]string{"name": name, "arguments": args},
		}}})
		return string(out), "tool_calls"
	}
	tools := map[string]string{"spawnyield": "sessions_spawn", "spawn": "sessions_spawn", "subagents": "subagents", "history": "sessions_history"}
	head, args, _ := strings.Cut(text, " ")
	switch {
	case role == "tool" && strings.HasPrefix(prompt, "spawnyield ") && strings.Contains(text, `"childSessionKey"`):
		return call("sessions_yield", `{"message":"waiting for the child"}`)
	case role == "tool":
		return say("tool said: " + text)
	case strings.Contains(text, "[sub-agent result]"):
		return say("relayed: " + text)
	case tools[head] != "" && strings.HasPrefix(args, "{"):
		return call(tools[head], args)
	case strings.HasPrefix(text, "think about"):
		return say("<think>secret plan: say nothing of it</think>visible answer")
	case strings.Contains(text, "slowly"):
		time.Sleep(slow)
		return say("slow reply")
	}
	return say("reply to: " + text)
}

// toolsStack is a local stack on the tools model with a session per
// Telegram peer, everyone an owner.
func toolsStack(t *testing.T, slow time.Duration) (*Stack, *telegramtest.Server) {
	need(t, "AWS emulator", emuErr)
	needRIE(t)
	tg := telegramtest.New(t, e2eToken)
	m := newToolsModel(t, slow)
	st := startStack(t, modelStackOptions(t, "stools", tg.URL, m.URL, a2aConfig))
	return st, tg
}

// TestSessionToolsEndToEnd runs upstream's newer session tools through
// the local stack: sessions_yield ends the turn and the sub-agent's
// result starts the requester's next turn, which answers the chat;
// subagents lists the running child, steers it (the steer runs after its
// current turn and is announced) and kills another (its announce says
// aborted); sessions_history shows another chat's transcript with the
// thinking stripped and the credentials masked.
func TestSessionToolsEndToEnd(t *testing.T) {
	st, tg := toolsStack(t, 4*time.Second)
	const a, b = 511, 522
	chatSay(t, st, 1, a, "hello")
	sentTo(t, tg, a, "reply to: hello")

	t.Run("sessions_yield", func(t *testing.T) {
		chatSay(t, st, 2, a, `spawnyield {"task": "slowly count the errors", "label": "counter"}`)
		got := sentTo(t, tg, a, "relayed: ")
		for _, m := range tg.Messages() {
			if m.ChatID.String() == fmt.Sprint(a) && strings.HasPrefix(m.Text, "Status:") {
				t.Errorf("the result was announced as is (%q); want it relayed by the requester's next turn", m.Text)
			}
			if m.ChatID.String() == fmt.Sprint(a) && strings.Contains(m.Text, "relayed: ") && !strings.Contains(m.Text, "Result: slow reply") {
				t.Errorf("the relayed result %q lacks the child's reply", m.Text)
			}
		}
		if got != 1 {
			t.Errorf("relayed %d times; want once", got)
		}
		hist := historyText(t, st, dmKey(a))
		for _, want := range []string{"sessions_yield", "[sub-agent result]"} {
			if !strings.Contains(hist, want) {
				t.Errorf("the requester's transcript lacks %q:\n%s", want, hist)
			}
		}
	})

	t.Run("subagents list, steer, kill", func(t *testing.T) {
		chatSay(t, st, 3, a, `spawn {"task": "slowly summarise the logs", "label": "slowpoke"}`)
		sentTo(t, tg, a, `tool said: {"status":"accepted"`)
		chatSay(t, st, 4, a, `subagents {"action": "list"}`)
		sentTo(t, tg, a, `"label":"slowpoke"`)
		if countSent(tg, a, `"status":"running"`) == 0 {
			t.Errorf("list did not show slowpoke running")
		}
		chatSay(t, st, 5, a, `subagents {"action": "steer", "target": "slowpoke", "message": "also say steered"}`)
		sentTo(t, tg, a, `"status":"accepted","action":"steer"`)
		sentTo(t, tg, a, "Result: slow reply")
		sentTo(t, tg, a, "Result: reply to: also say steered")

		chatSay(t, st, 6, a, `spawn {"task": "slowly do the doomed thing", "label": "doomed"}`)
		sentTo(t, tg, a, `"childSessionKey"`)
		chatSay(t, st, 7, a, `subagents {"action": "kill", "target": "doomed"}`)
		sentTo(t, tg, a, `"text":"killed doomed."`)
		sentTo(t, tg, a, "Status: aborted")
		chatSay(t, st, 8, a, `subagents {"action": "kill", "target": "agent:main:main"}`)
		sentTo(t, tg, a, "Unknown subagent session: agent:main:main")
	})

	t.Run("filtered sessions_history", func(t *testing.T) {
		chatSay(t, st, 9, b, "my password=hunter2hunter2 and key sk-proj-abcdefghijklmnop1234")
		sentTo(t, tg, b, "reply to: my password")
		chatSay(t, st, 10, b, "think about the plan")
		sentTo(t, tg, b, "visible answer")
		chatSay(t, st, 11, a, `history {"sessionKey": "`+dmKey(b)+`"}`)
		sentTo(t, tg, a, `"contentRedacted":true`)
		for _, m := range tg.Messages() {
			if m.ChatID.String() != fmt.Sprint(a) || !strings.Contains(m.Text, `"contentRedacted"`) {
				continue
			}
			for _, leak := range []string{"hunter2hunter2", "abcdefghijklmnop1234", "secret plan"} {
				if strings.Contains(m.Text, leak) {
					t.Errorf("the filtered history shows %q: %s", leak, m.Text)
				}
			}
			for _, want := range []string{"sk-proj-[REDACTED]", "password=[REDACTED]", "visible answer", `"droppedMessages":false`, `"truncated":false`} {
				if !strings.Contains(m.Text, want) {
					t.Errorf("the filtered history lacks %q: %s", want, m.Text)
				}
			}
		}
	})
}

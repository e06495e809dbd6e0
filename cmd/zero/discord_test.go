package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/discord"
)

// Credentials of the fake Discord; the tests check the token is never
// printed.
const (
	testDiscordToken = "MTEx.SECRET-discord-bot-token.xyz"
	testDiscordApp   = "111111111111111111"
	testDiscordGuild = "222222222222222222"
)

// discordAnswer is one canned answer of the fake Discord.
type discordAnswer struct {
	status int
	body   string // "" on 200: the commands sent, with ids
}

// discordRequest is a request as the fake Discord saw it.
type discordRequest struct {
	Method, Path, Auth, ContentType string
	Commands                        []discord.ApplicationCommand
}

// fakeDiscord speaks Discord's REST wire format for the bulk overwrite:
// it records each request and answers from answers in turn (the last one
// repeats), a 200 echoing the commands with ids.
type fakeDiscord struct {
	server   *httptest.Server
	mu       sync.Mutex
	answers  []discordAnswer
	requests []discordRequest
}

func newFakeDiscord(t *testing.T, answers ...discordAnswer) *fakeDiscord {
	t.Helper()
	f := &fakeDiscord{answers: answers}
	f.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := discordRequest{Method: r.Method, Path: r.URL.Path, Auth: r.Header.Get("Authorization"), ContentType: r.Header.Get("Content-Type")}
		if err := json.Unmarshal(body, &req.Commands); err != nil {
			t.Errorf("fake discord: body %q: %v", body, err)
		}
		if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "DiscordBot (") {
			t.Errorf("fake discord: User-Agent %q, want DiscordBot (url, version)", ua)
		}
		f.mu.Lock()
		n := len(f.requests)
		f.requests = append(f.requests, req)
		a := discordAnswer{status: http.StatusOK}
		if len(f.answers) > 0 {
			a = f.answers[min(n, len(f.answers)-1)]
		}
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != "Bot "+testDiscordToken {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"message": "401: Unauthorized", "code": 0}`))
			return
		}
		if a.status == http.StatusOK && a.body == "" {
			out := make([]map[string]any, len(req.Commands))
			for i, c := range req.Commands {
				out[i] = map[string]any{"id": strconv.Itoa(900 + i), "application_id": testDiscordApp, "name": c.Name, "description": c.Description, "version": "1"}
			}
			json.NewEncoder(w).Encode(out)
			return
		}
		w.WriteHeader(a.status)
		w.Write([]byte(a.body))
	}))
	t.Cleanup(f.server.Close)
	return f
}

func (f *fakeDiscord) seen() []discordRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]discordRequest(nil), f.requests...)
}

func TestRegisterCommands(t *testing.T) {
	all := discord.ApplicationCommands()
	put := func(path string) []discordRequest {
		return []discordRequest{{Method: http.MethodPut, Path: "/api/v10" + path, Auth: "Bot " + testDiscordToken, ContentType: "application/json", Commands: all}}
	}
	global := "/applications/" + testDiscordApp + "/commands"
	guild := "/applications/" + testDiscordApp + "/guilds/" + testDiscordGuild + "/commands"
	const rateLimited = `{"message": "You are being rate limited.", "retry_after": 0.01, "global": false}`
	tests := []struct {
		name         string
		args         []string
		env          map[string]string // on top of the API base URL
		stdin        string
		answers      []discordAnswer
		wantRequests []discordRequest
		wantStdout   []string // substrings
		wantStderr   []string
		wantErr      string
	}{
		{
			name:         "global, token and application id from the environment",
			args:         []string{"register-commands"},
			env:          map[string]string{discordTokenEnv: testDiscordToken, discordAppIDEnv: testDiscordApp},
			wantRequests: put(global),
			wantStdout:   []string{"registered 10 commands globally for application " + testDiscordApp + ": /ask /new /reset /status /stop /compact /context /send /queue", "up to an hour"},
		},
		{
			name:         "one guild, token from stdin, application id from the flag",
			args:         []string{"register-commands", "--guild", testDiscordGuild, "--application-id", testDiscordApp},
			stdin:        testDiscordToken + "\n",
			wantRequests: put(guild),
			wantStdout:   []string{"registered 10 commands in guild " + testDiscordGuild, "appear at once"},
		},
		{
			name:         "json",
			args:         []string{"register-commands", "--json", "--guild", testDiscordGuild},
			env:          map[string]string{discordTokenEnv: testDiscordToken, discordAppIDEnv: testDiscordApp},
			wantRequests: put(guild),
			wantStdout:   []string{`"scope": "guild"`, `"dryRun": false`, `"id": "900"`, `"name": "ask"`},
		},
		{
			name:       "dry run sends nothing and needs no token",
			args:       []string{"register-commands", "--dry-run"},
			env:        map[string]string{discordAppIDEnv: testDiscordApp},
			wantStdout: []string{"dry run, nothing sent: would PUT ", global, `"name": "queue"`, `"required": true`},
		},
		{
			name:       "dry run as json",
			args:       []string{"register-commands", "--dry-run", "--json", "--guild", testDiscordGuild},
			wantStdout: []string{`"dryRun": true`, `/applications/{application_id}/guilds/` + testDiscordGuild + `/commands`},
		},
		{
			name:         "bad token: a clear message without the token",
			args:         []string{"register-commands"},
			env:          map[string]string{discordTokenEnv: "wrong-" + testDiscordToken, discordAppIDEnv: testDiscordApp},
			wantRequests: []discordRequest{{Method: http.MethodPut, Path: "/api/v10" + global, Auth: "Bot wrong-" + testDiscordToken, ContentType: "application/json", Commands: all}},
			wantErr:      "Discord refused the bot token (401 Unauthorized)",
		},
		{
			name:         "429 then success",
			args:         []string{"register-commands"},
			env:          map[string]string{discordTokenEnv: testDiscordToken, discordAppIDEnv: testDiscordApp},
			answers:      []discordAnswer{{http.StatusTooManyRequests, rateLimited}, {status: http.StatusOK}},
			wantRequests: append(put(global), put(global)...),
			wantStdout:   []string{"registered 10 commands globally"},
			wantStderr:   []string{"rate limited by Discord: retrying in 10ms"},
		},
		{
			name:         "429 with a wait too long gives up",
			args:         []string{"register-commands"},
			env:          map[string]string{discordTokenEnv: testDiscordToken, discordAppIDEnv: testDiscordApp},
			answers:      []discordAnswer{{http.StatusTooManyRequests, `{"message": "You are being rate limited.", "retry_after": 120.5, "global": true}`}},
			wantRequests: put(global),
			wantErr:      "rate limited by Discord (429): retry after 2m0.5s",
		},
		{
			name:         "400 summarises Discord's error body",
			args:         []string{"register-commands"},
			env:          map[string]string{discordTokenEnv: testDiscordToken, discordAppIDEnv: testDiscordApp},
			answers:      []discordAnswer{{http.StatusBadRequest, `{"code": 50035, "errors": {"0": {"options": {"0": {"name": {"_errors": [{"code": "APPLICATION_COMMAND_INVALID_NAME", "message": "Command name is invalid"}]}}}}}, "message": "Invalid Form Body"}`}},
			wantRequests: put(global),
			wantErr:      "Discord rejected the commands (400): Invalid Form Body (code 50035): 0.options.0.name: Command name is invalid",
		},
		{
			name:         "403 whose body echoes the token is redacted",
			args:         []string{"register-commands", "--guild", testDiscordGuild},
			env:          map[string]string{discordTokenEnv: testDiscordToken, discordAppIDEnv: testDiscordApp},
			answers:      []discordAnswer{{http.StatusForbidden, `{"message": "Missing Access for ` + testDiscordToken + `", "code": 50001}`}},
			wantRequests: put(guild),
			wantErr:      "forbidden (403: Missing Access for <token> (code 50001))",
		},
		{
			name:    "no application id",
			args:    []string{"register-commands"},
			env:     map[string]string{discordTokenEnv: testDiscordToken},
			wantErr: "no application id: pass --application-id or set DISCORD_APPLICATION_ID",
		},
		{
			name:    "no token on stdin",
			args:    []string{"register-commands", "--application-id", testDiscordApp},
			wantErr: "no bot token: set DISCORD_BOT_TOKEN or pipe it on stdin",
		},
		{
			name:    "a guild that is not an id",
			args:    []string{"register-commands", "--guild", "../../users/@me"},
			env:     map[string]string{discordTokenEnv: testDiscordToken, discordAppIDEnv: testDiscordApp},
			wantErr: `--guild "../../users/@me": want the guild's numeric id`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFakeDiscord(t, tc.answers...)
			t.Setenv(discordAPIBaseEnv, fake.server.URL+"/api/v10")
			for _, k := range []string{discordTokenEnv, discordAppIDEnv} {
				t.Setenv(k, tc.env[k])
			}
			withStdin(t, tc.stdin, false)
			var stdout, stderr bytes.Buffer
			err := runDiscord(context.Background(), tc.args, &stdout, &stderr)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("err = %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantRequests, fake.seen()); diff != "" {
				t.Errorf("requests to Discord (-want +got):\n%s", diff)
			}
			for _, w := range tc.wantStdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			for _, w := range tc.wantStderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
			everything := stdout.String() + stderr.String()
			if err != nil {
				everything += err.Error()
			}
			if strings.Contains(everything, "SECRET-discord-bot-token") {
				t.Errorf("the bot token was printed:\n%s", everything)
			}
		})
	}
}

func TestSetEndpoint(t *testing.T) {
	const api = "https://abc123.execute-api.eu-west-1.amazonaws.com"
	tests := []struct {
		name       string
		args       []string
		gatewayURL string
		wantStdout []string
		wantNot    []string
		wantErr    string
	}{
		{
			name:       "the HTTP API URL gets the webhook path",
			args:       []string{"set-endpoint", "--url", api + "/", "--application-id", testDiscordApp},
			wantStdout: []string{"       " + api + "/webhooks/discord\n", "https://discord.com/developers/applications/" + testDiscordApp + "/information", "URL from --url.", "zero discord register-commands"},
			wantNot:    []string{"tunnel"},
		},
		{
			name:       "the DiscordInteractionsURL output as is",
			args:       []string{"set-endpoint", "--url", api + "/webhooks/discord"},
			wantStdout: []string{"       " + api + "/webhooks/discord\n"},
			wantNot:    []string{"/webhooks/discord/webhooks/discord", "tunnel"},
		},
		{
			name:       "from the gateway URL",
			args:       []string{"set-endpoint"},
			gatewayURL: api + "/rpc",
			wantStdout: []string{"       " + api + "/webhooks/discord\n", "URL from $ZERO_GATEWAY_URL."},
		},
		{
			name:       "the local front, with the tunnel note",
			args:       []string{"set-endpoint"},
			wantStdout: []string{"       http://127.0.0.1:3000/webhooks/discord\n", "Discord needs a public HTTPS URL", "cloudflared tunnel --url http://127.0.0.1:3000"},
		},
		{
			name:    "not a URL",
			args:    []string{"set-endpoint", "--url", "abc.example"},
			wantErr: `URL "abc.example": want the stack's https://host of the HTTP API`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(gatewayURLEnv, tc.gatewayURL)
			t.Setenv(discordAppIDEnv, "")
			var stdout, stderr bytes.Buffer
			err := runDiscord(context.Background(), tc.args, &stdout, &stderr)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("err = %v", err)
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			for _, w := range tc.wantStdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(stdout.String(), w) {
					t.Errorf("stdout has %q:\n%s", w, stdout.String())
				}
			}
		})
	}
}

// TestDiscordDispatch: `zero discord` is registered and names its
// subcommands.
func TestDiscordDispatch(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"discord", "help"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"register-commands", "set-endpoint"} {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("help lacks %q:\n%s", w, stdout.String())
		}
	}
}

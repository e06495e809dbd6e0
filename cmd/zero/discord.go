package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zero-gateway/zero/cmd/zero/devstack"
	"github.com/zero-gateway/zero/shared/discord"
)

// Environment variables of `zero discord`.
const (
	discordTokenEnv   = "DISCORD_BOT_TOKEN"
	discordAppIDEnv   = "DISCORD_APPLICATION_ID"
	discordAPIBaseEnv = "DISCORD_API_BASE_URL"
)

// discordInteractionsPath is where the gateway's HTTP API takes Discord
// interactions (the stack output DiscordInteractionsURL ends with it).
const discordInteractionsPath = "/webhooks/discord"

// Limits of register-commands' waits on 429.
const (
	discordMaxRateLimitWaits = 5
	discordMaxRetryAfter     = time.Minute
	discordMaxTokenBytes     = 4096
	discordMaxResponseBytes  = 1 << 20
)

// discordUserAgent is the form Discord asks bots to send.
const discordUserAgent = "DiscordBot (https://github.com/zero-gateway/zero, 1)"

// runDiscord is `zero discord`: set up the Discord application.
func runDiscord(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return dispatch(ctx, "discord", args, stdout, stderr, []string{
		"usage: zero discord register-commands [--guild ID] [--application-id ID] [--dry-run] [--json]",
		"       zero discord set-endpoint [--url URL] [--application-id ID]",
		"",
		"register-commands registers ZERO's slash commands (bulk overwrite: idempotent).",
		"set-endpoint prints how to set the Interactions Endpoint URL (Discord has no API for it).",
	}, map[string]subcommand{"register-commands": runRegisterCommands, "set-endpoint": runSetEndpoint})
}

// registerResult is register-commands' --json output.
type registerResult struct {
	ApplicationID string                       `json:"applicationId"`
	GuildID       string                       `json:"guildId,omitempty"`
	Scope         string                       `json:"scope"` // "global" or "guild"
	Method        string                       `json:"method"`
	URL           string                       `json:"url"`
	DryRun        bool                         `json:"dryRun"`
	Commands      []discord.ApplicationCommand `json:"commands"`             // what is (or would be) sent
	Registered    []registeredCommand          `json:"registered,omitempty"` // what Discord answered
}

// registeredCommand is the part of Discord's answer the CLI reports.
type registeredCommand struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// runRegisterCommands is `zero discord register-commands`: PUT
// /applications/{id}/commands (or /guilds/{guild}/commands) with
// discord.ApplicationCommands(), the table the interactions handler maps.
// The bot token comes from $DISCORD_BOT_TOKEN or stdin, never argv, and
// is never printed.
func runRegisterCommands(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero discord register-commands", flag.ContinueOnError)
	fs.SetOutput(stderr)
	guild := fs.String("guild", "", "register in this guild only (its id): they appear at once; global commands can take up to an hour")
	appID := fs.String("application-id", "", fmt.Sprintf("the application id (default $%s)", discordAppIDEnv))
	dryRun := fs.Bool("dry-run", false, "print what would be sent, send nothing (no token needed)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	err := parseFlags(fs, stderr, args,
		"zero discord register-commands [--guild ID] [--application-id ID] [--dry-run] [--json]",
		[]string{
			"Registers ZERO's slash commands (/" + strings.Join(commandNames(discord.ApplicationCommands()), " /") + ")",
			"with Discord's bulk overwrite: PUT /applications/{id}/commands, or",
			"/applications/{id}/guilds/{guild}/commands with --guild. Running it again is harmless;",
			"commands of the application that ZERO does not handle are removed.",
			"",
			"The bot token is read from $" + discordTokenEnv + ", else from stdin (a hidden prompt on a",
			"terminal); never pass it as an argument. The API base URL is $" + discordAPIBaseEnv,
			"(default " + discord.DefaultBaseURL + ").",
		}, "")
	if err != nil {
		return err
	}
	res, err := registerPlan(*appID, *guild, *dryRun)
	if err != nil {
		return err
	}
	body, err := json.Marshal(res.Commands)
	if err != nil {
		return err
	}
	if *dryRun {
		if *asJSON {
			return writeJSON(stdout, res)
		}
		var pretty bytes.Buffer
		json.Indent(&pretty, body, "", "  ")
		fmt.Fprintf(stdout, "dry run, nothing sent: would %s %s with %d commands:\n%s\n", res.Method, res.URL, len(res.Commands), pretty.String())
		return nil
	}
	token, err := discordBotToken(stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	res.Registered, err = putCommands(ctx, res.URL, token, body, stderr)
	if err != nil {
		return fmt.Errorf("register-commands: %w", redactSecrets(err, token, ""))
	}
	if *asJSON {
		return writeJSON(stdout, res)
	}
	printRegistered(stdout, res)
	return nil
}

// registerPlan checks the ids (appID from $DISCORD_APPLICATION_ID when
// empty; only a dry run may go without) and says where the bulk
// overwrite goes: the global or the guild's commands.
func registerPlan(appID, guild string, dryRun bool) (registerResult, error) {
	if appID == "" {
		appID = os.Getenv(discordAppIDEnv)
	}
	if appID == "" && !dryRun {
		return registerResult{}, fmt.Errorf("no application id: pass --application-id or set %s (Developer Portal, General Information)", discordAppIDEnv)
	}
	if appID != "" && !isSnowflake(appID) {
		return registerResult{}, fmt.Errorf("application id %q: want Discord's numeric id", appID)
	}
	if guild != "" && !isSnowflake(guild) {
		return registerResult{}, fmt.Errorf("--guild %q: want the guild's numeric id", guild)
	}
	base, err := discordBaseURL(os.Getenv(discordAPIBaseEnv))
	if err != nil {
		return registerResult{}, err
	}
	id := appID
	if id == "" {
		id = "{application_id}"
	}
	res := registerResult{ApplicationID: appID, GuildID: guild, Scope: "global", Method: http.MethodPut, DryRun: dryRun, Commands: discord.ApplicationCommands()}
	res.URL = base + "/applications/" + id + "/commands"
	if guild != "" {
		res.URL = base + "/applications/" + id + "/guilds/" + guild + "/commands"
		res.Scope = "guild"
	}
	return res, nil
}

// printRegistered says what was registered, and when it shows.
func printRegistered(stdout io.Writer, res registerResult) {
	names := make([]string, len(res.Registered))
	for i, c := range res.Registered {
		names[i] = "/" + c.Name
	}
	if res.GuildID != "" {
		fmt.Fprintf(stdout, "registered %d commands in guild %s for application %s: %s\n", len(names), res.GuildID, res.ApplicationID, strings.Join(names, " "))
		fmt.Fprintln(stdout, "guild commands appear at once")
		return
	}
	fmt.Fprintf(stdout, "registered %d commands globally for application %s: %s\n", len(names), res.ApplicationID, strings.Join(names, " "))
	fmt.Fprintln(stdout, "global commands can take up to an hour to appear; use --guild ID to try them at once in one server")
}

func commandNames(cs []discord.ApplicationCommand) []string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return names
}

// isSnowflake tells whether s is a Discord id (digits only).
func isSnowflake(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil && !strings.HasPrefix(s, "+")
}

// discordBaseURL is the API base, $DISCORD_API_BASE_URL or Discord's.
func discordBaseURL(raw string) (string, error) {
	if raw == "" {
		return discord.DefaultBaseURL, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("%s %q: want http(s)://host[/path]", discordAPIBaseEnv, raw)
	}
	return strings.TrimRight(raw, "/"), nil
}

// discordBotToken reads the bot token: $DISCORD_BOT_TOKEN, else stdin
// (without echo on a terminal; secretInput is the same stdin `zero
// secrets set` reads).
func discordBotToken(stderr io.Writer) (string, error) {
	if t := strings.TrimSpace(os.Getenv(discordTokenEnv)); t != "" {
		return t, nil
	}
	var b []byte
	if secretInput.terminal() {
		fmt.Fprint(stderr, "Discord bot token (input hidden): ")
		var err error
		b, err = secretInput.readHidden()
		fmt.Fprintln(stderr)
		if err != nil {
			return "", fmt.Errorf("read the bot token: %w", err)
		}
	} else {
		var err error
		b, err = io.ReadAll(io.LimitReader(secretInput.r, discordMaxTokenBytes+1))
		if err != nil {
			return "", fmt.Errorf("read the bot token from stdin: %w", err)
		}
		if len(b) > discordMaxTokenBytes {
			return "", fmt.Errorf("more than %d bytes on stdin: want the bot token only", discordMaxTokenBytes)
		}
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "", fmt.Errorf("no bot token: set %s or pipe it on stdin (Developer Portal, Bot, Reset Token)", discordTokenEnv)
	}
	if strings.ContainsAny(t, " \t\r\n") {
		return "", errors.New("the bot token on stdin has spaces or several lines: want the token only")
	}
	return t, nil
}

// putCommands sends the bulk overwrite, waiting out 429s per retry_after
// (up to discordMaxRateLimitWaits times, each at most
// discordMaxRetryAfter), and returns what Discord registered.
func putCommands(ctx context.Context, endpoint, token string, body []byte, stderr io.Writer) ([]registeredCommand, error) {
	client := &http.Client{Timeout: 30 * time.Second}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, endpoint, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bot "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", discordUserAgent)
		resp, err := client.Do(req)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err // the URL is in the message already
			}
			return nil, fmt.Errorf("PUT %s: %w", endpoint, err)
		}
		answer, err := io.ReadAll(io.LimitReader(resp.Body, discordMaxResponseBytes))
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read Discord's answer: %w", err)
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			wait := retryAfter(resp.Header, answer)
			if attempt >= discordMaxRateLimitWaits || wait > discordMaxRetryAfter {
				return nil, fmt.Errorf("rate limited by Discord (429): retry after %s", wait.Round(time.Millisecond))
			}
			fmt.Fprintf(stderr, "rate limited by Discord: retrying in %s\n", wait.Round(time.Millisecond))
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			case <-t.C:
			}
			continue
		}
		if resp.StatusCode/100 == 2 {
			var out []registeredCommand
			if err := json.Unmarshal(answer, &out); err != nil {
				return nil, fmt.Errorf("Discord answered %d with an unreadable body: %w", resp.StatusCode, err)
			}
			return out, nil
		}
		return nil, discordStatusError(resp.StatusCode, answer)
	}
}

// retryAfter is a 429's wait: the body's retry_after (seconds, float),
// else the Retry-After header, else a second.
func retryAfter(h http.Header, body []byte) time.Duration {
	var ans struct {
		RetryAfter float64 `json:"retry_after"`
	}
	if json.Unmarshal(body, &ans) == nil && ans.RetryAfter > 0 {
		return time.Duration(ans.RetryAfter * float64(time.Second))
	}
	if s, err := strconv.ParseFloat(h.Get("Retry-After"), 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	return time.Second
}

// discordStatusError says what a failed answer means and what to check.
func discordStatusError(status int, body []byte) error {
	summary := summarizeDiscordError(body)
	switch status {
	case http.StatusUnauthorized:
		return fmt.Errorf("Discord refused the bot token (401 Unauthorized): check $%s or stdin holds the application's bot token (Developer Portal, Bot, Reset Token)", discordTokenEnv)
	case http.StatusForbidden:
		return fmt.Errorf("forbidden (403: %s): the bot token must belong to this application, and for --guild the application must be in that guild with the applications.commands scope", summary)
	case http.StatusNotFound:
		return fmt.Errorf("not found (404: %s): check the application id (and the guild id)", summary)
	case http.StatusBadRequest:
		return fmt.Errorf("Discord rejected the commands (400): %s", summary)
	}
	return fmt.Errorf("Discord answered %d: %s", status, summary)
}

// summarizeDiscordError turns Discord's error body ({"code", "message",
// "errors": {nested fields: {"_errors": [{code, message}]}}}) into one
// line: the message, then each field's errors as path: message.
func summarizeDiscordError(body []byte) string {
	var e struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Errors  json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(body, &e) != nil || e.Message == "" {
		s := strings.TrimSpace(string(body))
		if len(s) > 200 {
			s = s[:200] + "…"
		}
		if s == "" {
			s = "no body"
		}
		return s
	}
	out := e.Message
	if e.Code != 0 {
		out += " (code " + strconv.Itoa(e.Code) + ")"
	}
	var fields []string
	var walk func(path string, raw json.RawMessage)
	walk = func(path string, raw json.RawMessage) {
		var node map[string]json.RawMessage
		if json.Unmarshal(raw, &node) != nil {
			return
		}
		if errs, ok := node["_errors"]; ok {
			var list []struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			}
			json.Unmarshal(errs, &list)
			for _, l := range list {
				fields = append(fields, path+": "+l.Message)
			}
		}
		keys := make([]string, 0, len(node))
		for k := range node {
			if k != "_errors" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			walk(p, node[k])
		}
	}
	if len(e.Errors) > 0 {
		walk("", e.Errors)
	}
	if len(fields) > 0 {
		out += ": " + strings.Join(fields, "; ")
	}
	return out
}

// runSetEndpoint is `zero discord set-endpoint`: Discord has no API to set
// the Interactions Endpoint URL, so it prints the steps with the URL:
// --url, else $ZERO_GATEWAY_URL (the deployed HTTP API, whose
// DiscordInteractionsURL output is that URL + /webhooks/discord), else
// the local front of `zero dev`, with a note that Discord needs a public
// HTTPS URL.
func runSetEndpoint(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero discord set-endpoint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rawURL := fs.String("url", "", fmt.Sprintf("the stack's DiscordInteractionsURL output, or its HTTP API URL (%s is appended unless it is there); default $%s, else the local front", discordInteractionsPath, gatewayURLEnv))
	appID := fs.String("application-id", "", fmt.Sprintf("the application id, for the portal link (default $%s)", discordAppIDEnv))
	err := parseFlags(fs, stderr, args, "zero discord set-endpoint [--url URL] [--application-id ID]",
		[]string{
			"Discord has no API to set the Interactions Endpoint URL: this prints the steps",
			"to set it in the Developer Portal, with the URL.",
		}, "")
	if err != nil {
		return err
	}
	if *appID == "" {
		*appID = os.Getenv(discordAppIDEnv)
	}
	source := "--url"
	raw := *rawURL
	if raw == "" {
		raw, source = os.Getenv(gatewayURLEnv), "$"+gatewayURLEnv
	}
	if raw == "" {
		raw, source = "http://"+devstack.DefaultFrontAddr, "the local front of zero dev (no --url, no $"+gatewayURLEnv+")"
	}
	endpoint, err := interactionsURL(raw)
	if err != nil {
		return err
	}
	portal := "https://discord.com/developers/applications"
	if *appID != "" && isSnowflake(*appID) {
		portal += "/" + *appID + "/information"
	}
	fmt.Fprintln(stdout, "Discord has no API to set the Interactions Endpoint URL; set it by hand:")
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "  1. Open %s (your application, General Information).\n", portal)
	fmt.Fprintln(stdout, "  2. Paste into INTERACTIONS ENDPOINT URL:")
	fmt.Fprintf(stdout, "       %s\n", endpoint)
	fmt.Fprintln(stdout, "  3. Save Changes. Discord sends a PING and deliberately bad signatures at once:")
	fmt.Fprintln(stdout, "     the save fails unless the stack's DiscordPublicKey is this application's")
	fmt.Fprintln(stdout, "     PUBLIC KEY (same page) and the endpoint is reachable.")
	fmt.Fprintln(stdout, "  4. Register the slash commands: zero discord register-commands [--guild ID]")
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "URL from %s.\n", source)
	if u, _ := url.Parse(endpoint); u != nil && (u.Scheme != "https" || isLocalHost(u.Hostname())) {
		fmt.Fprintln(stdout, "Note: Discord needs a public HTTPS URL. For a local stack, expose the front")
		fmt.Fprintf(stdout, "through a tunnel (e.g. cloudflared tunnel --url %s) and pass\n", strings.TrimSuffix(endpoint, discordInteractionsPath))
		fmt.Fprintf(stdout, "--url https://<tunnel-host>; the endpoint is then https://<tunnel-host>%s.\n", discordInteractionsPath)
	}
	return nil
}

// interactionsURL is raw with /webhooks/discord, added unless it is there
// (a gateway URL given with /rpc means its HTTP API).
func interactionsURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("URL %q: want the stack's https://host of the HTTP API", raw)
	}
	s := strings.TrimRight(u.String(), "/")
	s = strings.TrimSuffix(s, "/rpc")
	if !strings.HasSuffix(s, discordInteractionsPath) {
		s += discordInteractionsPath
	}
	return s, nil
}

func isLocalHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified())
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/gateway"
)

// maxChatLine bounds one line read by `zero chat`.
const maxChatLine = 1 << 20

// runChat is `zero chat`: an interactive loop over one session. Each line
// read from standard input is sent to the agent; the reply is printed when
// the run ends.
func runChat(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return chat(ctx, args, os.Stdin, stdout, stderr)
}

// chat is runChat reading from in.
func chat(ctx context.Context, args []string, in io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var conn gatewayFlags
	conn.register(fs)
	sessionKey := fs.String("session", "", "the session `key` (default: the gateway's main session)")
	timeout := fs.Duration("timeout", 120*time.Second, "how long to wait for each reply")
	if err := parseFlags(fs, stderr, args, "zero chat [--session KEY] [--timeout 120s] [--url URL] [--token TOKEN]",
		[]string{
			"Reads a line, sends it to the agent, prints the run's steps and its reply;",
			"again until end of input or /exit. The prompt and errors go to stderr.",
		}, ""); err != nil {
		return err
	}
	if *timeout <= 0 {
		return fmt.Errorf("--timeout must be positive, got %s", *timeout)
	}
	client, err := conn.client(os.Getenv)
	if err != nil {
		return err
	}
	key := strings.TrimSpace(*sessionKey)
	lines := bufio.NewScanner(in)
	lines.Buffer(make([]byte, 0, 64<<10), maxChatLine)
	for {
		fmt.Fprint(stderr, "> ")
		if !lines.Scan() {
			fmt.Fprintln(stderr)
			if err := lines.Err(); err != nil {
				return fmt.Errorf("read input: %w", err)
			}
			return nil
		}
		text := strings.TrimSpace(lines.Text())
		switch text {
		case "":
			continue
		case "/exit", "/quit":
			return nil
		}
		params := gateway.AgentParams{Message: text, SessionKey: key, IdempotencyKey: newIdempotencyKey()}
		report, err := agentTurn(ctx, client, params, *timeout, func(ev gateway.Event) { printStep(stdout, ev) })
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if report.SessionKey != "" {
			key = report.SessionKey // stay in the session the first turn resolved
		}
		var ge *gateway.RPCError
		switch {
		case errors.As(err, &ge) && ge.Status == 401:
			return err // every later line would fail the same way
		case err != nil:
			fmt.Fprintln(stderr, "error:", err)
		case report.Reply == "":
			fmt.Fprintln(stderr, "(no text reply)")
		default:
			fmt.Fprintln(stdout, report.Reply)
		}
	}
}

// printStep writes a run's step as it happens: a tool call starting or
// failing, a compaction. Other events print nothing.
func printStep(w io.Writer, ev gateway.Event) {
	if ev.Stream != "tool" && ev.Stream != "compaction" {
		return
	}
	var d struct {
		Phase   string `json:"phase"`
		Name    string `json:"name"`
		IsError bool   `json:"isError"`
	}
	json.Unmarshal(ev.Data, &d)
	switch {
	case ev.Stream == "compaction":
		fmt.Fprintf(w, "  · compacting the conversation (%s)\n", d.Phase)
	case d.Phase == "start":
		fmt.Fprintf(w, "  · %s…\n", d.Name)
	case d.Phase == "result" && d.IsError:
		fmt.Fprintf(w, "  · %s failed\n", d.Name)
	}
}

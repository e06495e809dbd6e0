package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/gateway"
	runrecord "github.com/zero-gateway/zero/shared/run"
	"github.com/zero-gateway/zero/shared/transcript"
)

// maxWaitSlice is the longest agent.wait the gateway holds one request for;
// the CLI asks for at most this much per call and calls again.
const maxWaitSlice = gateway.MaxWait

// historyLimit is how many messages `zero agent --wait` reads back to find
// the reply.
const historyLimit = 20

// agentReport is the --json output of `zero agent --wait`.
type agentReport struct {
	RunID      string `json:"runId"`
	SessionKey string `json:"sessionKey"`
	Status     string `json:"status"`
	StartedAt  int64  `json:"startedAt,omitempty"` // epoch ms
	EndedAt    int64  `json:"endedAt,omitempty"`   // epoch ms
	Reply      string `json:"reply"`
}

// runAgent is `zero agent`: start a run of the agent on a message, wait
// for it and print the reply; with --no-wait, print the run id only (for
// scripts). --wait is the default and stays accepted.
func runAgent(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var conn gatewayFlags
	conn.register(fs)
	message := fs.String("message", "", "the message to the agent (required)")
	sessionKey := fs.String("session", "", "the session `key` (default: the gateway's main session)")
	wait := fs.Bool("wait", true, "wait for the run to end and print the reply (the default)")
	noWait := fs.Bool("no-wait", false, "print the run id and exit without waiting (for scripts)")
	timeout := fs.Duration("timeout", 120*time.Second, "how long to wait for the reply in all")
	idempotencyKey := fs.String("idempotency-key", "", "the run's idempotency `key`: the same key starts one run only (default: a random one)")
	deliver := fs.Bool("deliver", false, "also deliver the reply on the session's channel")
	channel := fs.String("channel", "", "with --deliver, the channel to deliver on")
	to := fs.String("to", "", "with --deliver, the recipient on that channel")
	asJSON := fs.Bool("json", false, "print JSON: {runId, sessionKey, status, startedAt, endedAt, reply}, or with --no-wait the accepted run")
	if err := parseFlags(fs, stderr, args,
		"zero agent --message TEXT [--session KEY] [--no-wait] [--timeout 120s] [--idempotency-key K] [--json] [--url URL] [--token TOKEN]",
		[]string{
			"Sends TEXT to the agent (method agent), waits for the run (agent.wait) and prints",
			"its reply; with --no-wait, prints the run id and exits.",
		}, ` (quote the message: --message "...")`); err != nil {
		return err
	}
	if *noWait {
		*wait = false
	}
	if strings.TrimSpace(*message) == "" {
		fs.Usage()
		return errors.New("--message is required")
	}
	if *wait && *timeout <= 0 {
		return fmt.Errorf("--timeout must be positive, got %s", *timeout)
	}
	client, err := conn.client(os.Getenv)
	if err != nil {
		return err
	}
	params := gateway.AgentParams{
		Message:        *message,
		SessionKey:     strings.TrimSpace(*sessionKey),
		IdempotencyKey: *idempotencyKey,
		Deliver:        *deliver,
		Channel:        *channel,
		To:             *to,
	}
	if params.IdempotencyKey == "" {
		params.IdempotencyKey = newIdempotencyKey()
	}
	if !*wait {
		return startRun(ctx, client, params, *asJSON, stdout)
	}
	report, err := agentTurn(ctx, client, params, *timeout, nil)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, report)
	}
	if report.Reply == "" {
		fmt.Fprintf(stderr, "run %s ended without a text reply\n", report.RunID)
		return nil
	}
	fmt.Fprintln(stdout, report.Reply)
	return nil
}

// startRun calls agent and prints the run's id, or with asJSON the
// answer as the gateway sent it.
func startRun(ctx context.Context, client *gateway.Client, params gateway.AgentParams, asJSON bool, stdout io.Writer) error {
	if asJSON {
		raw, err := client.Call(ctx, gateway.MethodAgent, params)
		if err != nil {
			return err
		}
		return writeJSON(stdout, raw)
	}
	accepted, err := client.Agent(ctx, params)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, accepted.RunID)
	return nil
}

// follower reads a run's events as they are stored and hands each to
// onEvent once. It remembers the run's last assistant text: the reply of
// exactly this run, whatever else the session did meanwhile.
type follower struct {
	client  *gateway.Client
	runID   string
	next    int64
	reply   string
	replied bool
	onEvent func(gateway.Event)
	broken  bool // the gateway cannot serve events; the reply comes from history
}

func (f *follower) poll(ctx context.Context) {
	for !f.broken {
		res, err := f.client.AgentEvents(ctx, gateway.EventsParams{RunID: f.runID, AfterSeq: f.next})
		if err != nil {
			f.broken = true
			return
		}
		for _, ev := range res.Events {
			if ev.Stream == runrecord.StreamAssistant {
				// The run's reply is the assistant event with neither a
				// delta (streamed text, a draft) nor a phase (a block the
				// chat got).
				var d struct {
					Text  string          `json:"text"`
					Delta json.RawMessage `json:"delta"`
					Phase string          `json:"phase"`
				}
				if json.Unmarshal(ev.Data, &d) == nil && d.Delta == nil && d.Phase == "" {
					f.reply, f.replied = d.Text, true
				}
			}
			if f.onEvent != nil {
				f.onEvent(ev)
			}
		}
		if len(res.Events) == 0 || res.NextSeq <= f.next {
			return
		}
		f.next = res.NextSeq
	}
}

// agentTurn starts a run, waits for it to end within timeout and reads its
// reply from its own events (falling back to the session's history).
// onEvent, when set, sees the run's events while it goes on: waits are cut
// to a second so they arrive as they happen.
func agentTurn(ctx context.Context, client *gateway.Client, params gateway.AgentParams, timeout time.Duration, onEvent func(gateway.Event)) (agentReport, error) {
	deadline := time.Now().Add(timeout)
	accepted, err := client.Agent(ctx, params)
	if err != nil {
		return agentReport{}, err
	}
	if accepted.RunID == "" {
		return agentReport{}, errors.New("gateway agent: the answer has no runId")
	}
	f := &follower{client: client, runID: accepted.RunID, onEvent: onEvent}
	slice := maxWaitSlice
	if onEvent != nil {
		slice = time.Second
	}
	done, err := waitRun(ctx, client, accepted.RunID, deadline, timeout, slice, func() {
		if onEvent != nil {
			f.poll(ctx)
		}
	})
	if err != nil {
		return agentReport{}, err
	}
	f.poll(ctx)
	report := agentReport{
		RunID:      accepted.RunID,
		SessionKey: accepted.SessionKey,
		Status:     done.Status,
		StartedAt:  done.StartedAt,
		EndedAt:    done.EndedAt,
	}
	key := accepted.SessionKey
	if key == "" {
		key = params.SessionKey
	}
	if key == "" {
		return report, fmt.Errorf("run %s ended, but the gateway named no session to read the reply from", accepted.RunID)
	}
	report.SessionKey = key
	if f.replied {
		report.Reply = f.reply
		return report, nil
	}
	limit := historyLimit
	history, err := client.ChatHistory(ctx, gateway.HistoryParams{SessionKey: key, Limit: &limit})
	if err != nil {
		return report, fmt.Errorf("run %s ended; reading the reply: %w", accepted.RunID, err)
	}
	report.Reply = lastAssistantText(history.Messages)
	return report, nil
}

// waitRun calls agent.wait until the run ends (ok or error) or deadline
// passes. A run that ended in error, or timed out on its own time limit
// (status timeout with endedAt), is an error; timeout without endedAt only
// means this wait ended first, so the next one starts.
func waitRun(ctx context.Context, client *gateway.Client, runID string, deadline time.Time, timeout, maxSlice time.Duration, between func()) (gateway.WaitResult, error) {
	for first := true; ; first = false {
		if !first && between != nil {
			between()
		}
		left := time.Until(deadline)
		if left <= 0 {
			return gateway.WaitResult{}, fmt.Errorf("run %s did not end within %s (it may still be running; wait again with `zero gateway call %s --params '{\"runId\":%q}'`)",
				runID, timeout, gateway.MethodAgentWait, runID)
		}
		slice := min(left, maxSlice)
		timeoutMs := max(slice.Milliseconds(), 1)
		res, err := client.AgentWait(ctx, gateway.WaitParams{RunID: runID, TimeoutMs: &timeoutMs})
		if err != nil {
			return gateway.WaitResult{}, fmt.Errorf("waiting for run %s: %w", runID, err)
		}
		switch res.Status {
		case runrecord.StatusOK:
			return res, nil
		case runrecord.StatusError:
			return res, fmt.Errorf("run %s failed: %s", runID, cmp.Or(res.Error, "no error given"))
		case runrecord.StatusTimeout:
			if res.EndedAt != 0 {
				// The run ended on its own time limit, not this wait.
				return res, fmt.Errorf("run %s timed out (the agent's own time limit)", runID)
			}
			continue
		default:
			return res, fmt.Errorf("run %s: %s answered status %q", runID, gateway.MethodAgentWait, res.Status)
		}
	}
}

// lastAssistantText is the text of the last assistant message of
// chat.history's messages: its text blocks joined by newlines ("" when it
// has none, or there is none). It stops at a message that is not a
// transcript message ("": an older reply is never taken for this one).
func lastAssistantText(messages []json.RawMessage) string {
	for i := len(messages) - 1; i >= 0; i-- {
		var m transcript.Message // also reads content given as a plain string
		if json.Unmarshal(messages[i], &m) != nil {
			return ""
		}
		if m.Role != "assistant" {
			continue
		}
		var texts []string
		for _, b := range m.Content {
			if b.Type == "text" && b.Text != "" {
				texts = append(texts, b.Text)
			}
		}
		return strings.Join(texts, "\n")
	}
	return ""
}

// newIdempotencyKey is a random version-4 UUID.
func newIdempotencyKey() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/zero-gateway/zero/shared/gateway"
)

// statusReport is the --json output of `zero status`.
type statusReport struct {
	URL           string            `json:"url"`
	Reachable     bool              `json:"reachable"`
	OK            bool              `json:"ok"`
	Error         string            `json:"error,omitempty"`
	ConfigVersion *string           `json:"configVersion,omitempty"` // nil when the call failed
	Store         string            `json:"store,omitempty"`
	Sessions      []json.RawMessage `json:"sessions"` // as the gateway sent them
	// Outbox is outbox.list's answer for dead items (status_outbox.go);
	// OutboxError says why it is missing.
	Outbox      *gateway.OutboxListResult `json:"outbox,omitempty"`
	OutboxError string                    `json:"outboxError,omitempty"`
	// DeadLetters are the dead-letter queues' depths, as status gives them.
	DeadLetters []gateway.DeadLetterDepth `json:"deadLetters,omitempty"`

	rows []gateway.Row // Sessions decoded, for the table
}

// runStatus is `zero status`: whether the gateway answers, its config
// version and its recent sessions. It exits non-zero when the gateway
// cannot be reached or refuses the call, after printing the report.
func runStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero status", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var conn gatewayFlags
	conn.register(fs)
	asJSON := fs.Bool("json", false, `print {"url", "reachable", "ok", "error", "configVersion", "sessions": [...], "deadLetters": [...], "outbox": {"counts", "items"}}`)
	if err := parseFlags(fs, stderr, args, "zero status [--json] [--url URL] [--token TOKEN]",
		[]string{
			"Asks the gateway for its status: reachable or not (and why), the config",
			"version it runs with, its recent sessions, the dead-letter queues' depth,",
			"and the announce outbox: counts by state and the dead items (never delivered).",
		}, ""); err != nil {
		return err
	}
	client, err := conn.client(os.Getenv)
	if err != nil {
		return err
	}
	report, callErr := askStatus(ctx, client)
	if callErr == nil {
		report.Outbox, report.OutboxError = askOutbox(ctx, client)
	}
	if *asJSON {
		if err := writeJSON(stdout, report); err != nil {
			return err
		}
	} else if err := printStatus(stdout, report, time.Now()); err != nil {
		return err
	}
	return callErr // printed above; returned too, for the exit code
}

// askStatus calls status and reports its answer; the error is the call's
// (the report says it too).
func askStatus(ctx context.Context, client *gateway.Client) (statusReport, error) {
	report := statusReport{URL: client.URL(), Sessions: []json.RawMessage{}}
	raw, err := client.Call(ctx, gateway.MethodStatus, nil)
	var res gateway.StatusResult
	if err == nil {
		res, err = gateway.DecodeResult[gateway.StatusResult](gateway.MethodStatus, raw)
	}
	if err == nil {
		report.Sessions, err = sentRows(gateway.MethodStatus, raw)
	}
	var unreachable *gateway.TransportError
	switch {
	case errors.As(err, &unreachable):
		report.Error = unreachable.Err.Error()
	case err != nil:
		report.Reachable = true
		report.Error = err.Error()
	default:
		report.Reachable, report.OK = true, res.OK
		report.ConfigVersion = &res.ConfigVersion
		report.Store, report.DeadLetters = res.Store, res.DeadLetters
		report.rows = res.Sessions
	}
	return report, err
}

// printDeadLetters writes each dead-letter queue's depth (zero dlq list
// shows the messages).
func printDeadLetters(w io.Writer, queues []gateway.DeadLetterDepth) {
	for _, q := range queues {
		if q.Error != "" {
			fmt.Fprintf(w, "dead letters:    %s: unknown (%s)\n", q.Name, q.Error)
			continue
		}
		fmt.Fprintf(w, "dead letters:    %s: %d waiting, %d in flight\n", q.Name, q.Visible, q.InFlight)
	}
}

// printStatus writes the report for people.
func printStatus(w io.Writer, r statusReport, now time.Time) error {
	fmt.Fprintf(w, "gateway:         %s\n", r.URL)
	switch {
	case !r.Reachable:
		fmt.Fprintf(w, "reachable:       no (%s)\n", r.Error)
		return nil
	case r.Error != "":
		fmt.Fprintf(w, "reachable:       yes, but the call failed: %s\n", r.Error)
		return nil
	}
	health := "ok"
	if !r.OK {
		health = "not ok"
	}
	fmt.Fprintf(w, "reachable:       yes (%s)\n", health)
	version := ""
	if r.ConfigVersion != nil {
		version = *r.ConfigVersion
	}
	fmt.Fprintf(w, "config version:  %s\n", orDash(version))
	if r.Store != "" {
		fmt.Fprintf(w, "store:           %s\n", r.Store)
	}
	printDeadLetters(w, r.DeadLetters)
	printOutboxCounts(w, r)
	if len(r.rows) == 0 {
		fmt.Fprintln(w, "sessions:        none")
	} else {
		fmt.Fprintf(w, "sessions:        %d recent\n\n", len(r.rows))
		if err := printSessions(w, r.rows, now); err != nil {
			return err
		}
	}
	return printDeadOutbox(w, r, now)
}

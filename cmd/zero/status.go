package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// statusReport is the --json output of `zero status`.
type statusReport struct {
	URL           string            `json:"url"`
	Reachable     bool              `json:"reachable"`
	OK            bool              `json:"ok"`
	Error         string            `json:"error,omitempty"`
	ConfigVersion json.RawMessage   `json:"configVersion,omitempty"`
	Store         string            `json:"store,omitempty"`
	Sessions      []json.RawMessage `json:"sessions"`
}

// statusResult is the result of the status method.
type statusResult struct {
	OK            bool              `json:"ok"`
	Sessions      []json.RawMessage `json:"sessions"`
	ConfigVersion json.RawMessage   `json:"configVersion"`
	Store         string            `json:"store"`
}

// runStatus is `zero status`: whether the gateway answers, its config
// version and its recent sessions. It exits non-zero when the gateway
// cannot be reached or refuses the call, after printing the report.
func runStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero status", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var conn gatewayFlags
	conn.register(fs)
	asJSON := fs.Bool("json", false, `print {"url", "reachable", "ok", "error", "configVersion", "sessions": [...]}`)
	if err := parseFlags(fs, stderr, args, "zero status [--json] [--url URL] [--token TOKEN]",
		[]string{
			"Asks the gateway for its status: reachable or not (and why), the config",
			"version it runs with and its recent sessions.",
		}, ""); err != nil {
		return err
	}
	client, err := conn.client(os.Getenv)
	if err != nil {
		return err
	}
	report := statusReport{URL: client.url, Sessions: []json.RawMessage{}}
	var res statusResult
	callErr := client.call(ctx, "status", nil, &res)
	var unreachable *unreachableError
	switch {
	case errors.As(callErr, &unreachable):
		report.Error = unreachable.Err.Error()
	case callErr != nil:
		report.Reachable = true
		report.Error = callErr.Error()
	default:
		report.Reachable, report.OK = true, res.OK
		report.ConfigVersion = res.ConfigVersion
		report.Store = res.Store
		if res.Sessions != nil {
			report.Sessions = res.Sessions
		}
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
	fmt.Fprintf(w, "config version:  %s\n", plainJSON(r.ConfigVersion))
	if r.Store != "" {
		fmt.Fprintf(w, "store:           %s\n", r.Store)
	}
	rows, err := decodeRows(r.Sessions)
	if err != nil {
		return fmt.Errorf("gateway status: %w", err)
	}
	if len(rows) == 0 {
		fmt.Fprintln(w, "sessions:        none")
		return nil
	}
	fmt.Fprintf(w, "sessions:        %d recent\n\n", len(rows))
	return printSessions(w, rows, now)
}

// plainJSON renders a scalar JSON value for a person: a string without its
// quotes, anything else as sent, "-" for none.
func plainJSON(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return "-"
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return orDash(str)
	}
	return s
}

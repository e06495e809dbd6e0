package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zero-gateway/zero/shared/gateway"
)

// runSessions is `zero sessions`: the gateway's sessions, most recent first.
func runSessions(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero sessions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var conn gatewayFlags
	conn.register(fs)
	asJSON := fs.Bool("json", false, `print {"sessions": [...]} with the rows as the gateway returned them`)
	active := fs.Int("active", 0, "only sessions updated in the last `minutes`")
	limit := fs.Int("limit", 0, "at most `N` sessions (default: the gateway's, 50)")
	agentID := fs.String("agent", "", "only the sessions of agent `ID`")
	if err := parseFlags(fs, stderr, args, "zero sessions [--json] [--active MINUTES] [--limit N] [--agent ID] [--url URL] [--token TOKEN]",
		[]string{
			"Lists the gateway's sessions (sessions.list): key, kind, channel, when last",
			"updated, model, tokens (total/context) and label.",
		}, ""); err != nil {
		return err
	}
	if *active < 0 || *limit < 0 {
		return fmt.Errorf("--active and --limit must not be negative")
	}
	client, err := conn.client(os.Getenv)
	if err != nil {
		return err
	}
	params := listParams(*agentID, *limit, *active)
	if *asJSON {
		return printSentSessions(ctx, client, params, stdout)
	}
	res, err := client.SessionsList(ctx, params)
	if err != nil {
		return err
	}
	rows := res.Sessions
	if len(rows) == 0 {
		fmt.Fprintln(stdout, "no sessions")
		return nil
	}
	return printSessions(stdout, rows, time.Now())
}

// printSentSessions calls sessions.list and prints {"sessions": [...]}
// with the rows as the gateway sent them.
func printSentSessions(ctx context.Context, client *gateway.Client, params gateway.ListParams, stdout io.Writer) error {
	raw, err := client.Call(ctx, gateway.MethodSessionsList, params)
	if err != nil {
		return err
	}
	sent, err := sentRows(gateway.MethodSessionsList, raw)
	if err != nil {
		return err
	}
	return writeJSON(stdout, map[string]any{"sessions": sent})
}

// listParams are sessions.list's params for the flags; zero values
// (no filter) are left out.
func listParams(agentID string, limit, activeMinutes int) gateway.ListParams {
	p := gateway.ListParams{AgentID: strings.TrimSpace(agentID)}
	if limit > 0 {
		p.Limit = &limit
	}
	if activeMinutes > 0 {
		minutes := int64(activeMinutes)
		p.ActiveMinutes = &minutes
	}
	return p
}

// sentRows are the rows of a sessions.list or status result as the
// gateway sent them, for --json: a row keeps the fields this CLI does not
// know. [] when there are none.
func sentRows(method string, result json.RawMessage) ([]json.RawMessage, error) {
	res, err := gateway.DecodeResult[struct {
		Sessions []json.RawMessage `json:"sessions"`
	}](method, result)
	if err != nil {
		return nil, err
	}
	if res.Sessions == nil {
		return []json.RawMessage{}, nil
	}
	return res.Sessions, nil
}

// printSessions writes rows as a table; UPDATED is relative to now.
func printSessions(w io.Writer, rows []gateway.Row, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tKIND\tCHANNEL\tUPDATED\tMODEL\tTOKENS\tLABEL")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			orDash(r.Key), orDash(r.Kind), orDash(r.Channel), ago(r.UpdatedAt, now),
			orDash(r.Model), tokens(r.TotalTokens, r.ContextTokens), orDash(r.Label))
	}
	return tw.Flush()
}

// orDash is s, or "-" for an empty cell.
func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// ago renders a Unix-ms time relative to now: "just now", "5m ago",
// "3h ago", "2d ago"; "-" when unknown.
func ago(ms int64, now time.Time) string {
	if ms <= 0 {
		return "-"
	}
	d := now.Sub(time.UnixMilli(ms))
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
}

// tokens renders total/context, e.g. "12.3k/200k"; "-" for an unknown part.
func tokens(total, context int64) string {
	return count(total) + "/" + count(context)
}

// count renders a token count compactly: 950, 12.3k, 1.2M; "-" for none.
func count(n int64) string {
	switch {
	case n <= 0:
		return "-"
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return trimZero(strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64)) + "k"
	}
	return trimZero(strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64)) + "M"
}

// trimZero drops a ".0" decimal.
func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

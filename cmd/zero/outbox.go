package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zero-gateway/zero/shared/gateway"
	"github.com/zero-gateway/zero/shared/outbox"
)

// runOutbox is `zero outbox`: the announce outbox through the gateway
// (outbox.list, outbox.retry).
func runOutbox(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return dispatch(ctx, "outbox", args, stdout, stderr, []string{
		"usage: zero outbox list|retry [flags] [--url URL] [--token TOKEN]",
		"",
		"list [--state pending|sent|dead] [--limit N] [--json]   the items, newest first, and the counts by state",
		"retry ID [--json]                                      re-queue a dead item's delivery (outbox.retry)",
	}, map[string]subcommand{"list": runOutboxList, "retry": runOutboxRetry})
}

// runOutboxList is `zero outbox list`: outbox.list as a table (or its
// result as JSON with --json).
func runOutboxList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero outbox list", flag.ContinueOnError)
	var conn gatewayFlags
	conn.register(fs)
	state := fs.String("state", "", "only items in `state`: pending, sent or dead (default every state)")
	limit := fs.Int("limit", 0, "at most `N` items (default: the gateway's, 50)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parseFlags(fs, stderr, args, "zero outbox list [--state S] [--limit N] [--json]",
		[]string{"Lists the announce outbox (outbox.list): the counts by state and the newest items."}, ""); err != nil {
		return err
	}
	if *state != "" && !slices.Contains(outbox.States, *state) {
		return fmt.Errorf("--state must be pending, sent or dead, got %q", *state)
	}
	if *limit < 0 {
		return fmt.Errorf("--limit must not be negative")
	}
	p := gateway.OutboxListParams{State: *state}
	if *limit > 0 {
		p.Limit = limit
	}
	res, err := callVia(ctx, conn, (*gateway.Client).OutboxList, p)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, res)
	}
	c := res.Counts
	fmt.Fprintf(stdout, "%d pending, %d sent, %d dead\n", c.Pending, c.Sent, c.Dead)
	if len(res.Items) == 0 {
		fmt.Fprintln(stdout, "no items")
		return nil
	}
	fmt.Fprintln(stdout)
	return printOutboxItems(stdout, res.Items, time.Now())
}

// printOutboxItems writes rows as a table; AGE is relative to now.
func printOutboxItems(w io.Writer, rows []gateway.OutboxRow, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tKIND\tSESSION\tCHANNEL\tATTEMPTS\tRETRIES\tAGE\tLAST ERROR")
	for _, it := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", orDash(it.ID), orDash(it.State), orDash(it.Kind),
			orDash(it.SessionKey), orDash(it.Channel+":"+it.To), it.Attempts, it.Retries, ago(it.CreatedAt, now),
			orDash(clipError(it.LastError)))
	}
	return tw.Flush()
}

// runOutboxRetry is `zero outbox retry ID`: outbox.retry. The gateway
// refuses a sent item (409) and an unknown one (404); retrying a pending
// item again is harmless.
func runOutboxRetry(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero outbox retry", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var conn gatewayFlags
	conn.register(fs)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 || strings.TrimSpace(rest[0]) == "" {
		return fmt.Errorf("zero outbox retry takes one item ID, got %q", rest)
	}
	res, err := callVia(ctx, conn, (*gateway.Client).OutboxRetry, gateway.OutboxRetryParams{ID: rest[0]})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, res)
	}
	_, err = fmt.Fprintf(stdout, "outbox item %s re-queued (%s, retry %d): delivery resumes at message %d\n",
		res.Item.ID, res.MessageID, res.Item.Retries, res.Item.Sent+1)
	return err
}

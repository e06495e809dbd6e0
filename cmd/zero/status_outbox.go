package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"text/tabwriter"
	"time"

	"github.com/zero-gateway/zero/shared/gateway"
	"github.com/zero-gateway/zero/shared/outbox"
)

// statusDeadItems is how many dead outbox items `zero status` lists.
const statusDeadItems = 20

// askOutbox calls outbox.list for the dead items (and every state's
// count). It never fails the status: a gateway without an outbox, or an
// error, comes back as the reason the report has no outbox.
func askOutbox(ctx context.Context, client *gateway.Client) (*gateway.OutboxListResult, string) {
	limit := statusDeadItems
	res, err := client.OutboxList(ctx, gateway.OutboxListParams{State: outbox.Dead, Limit: &limit})
	var gerr *gateway.RPCError
	switch {
	case errors.As(err, &gerr) && gerr.Status == http.StatusNotImplemented:
		return nil, "not configured on this gateway"
	case err != nil:
		return nil, err.Error()
	}
	return &res, ""
}

// printOutboxCounts writes the outbox line of the status.
func printOutboxCounts(w io.Writer, r statusReport) {
	switch {
	case r.Outbox != nil:
		c := r.Outbox.Counts
		fmt.Fprintf(w, "outbox:          %d pending, %d sent, %d dead\n", c.Pending, c.Sent, c.Dead)
	case r.OutboxError != "":
		fmt.Fprintf(w, "outbox:          unknown (%s)\n", r.OutboxError)
	}
}

// printDeadOutbox lists the dead outbox items: announces that were never
// delivered and will not be retried.
func printDeadOutbox(w io.Writer, r statusReport, now time.Time) error {
	if r.Outbox == nil || len(r.Outbox.Items) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\ndead outbox items (never delivered; %d of %d):\n\n", len(r.Outbox.Items), r.Outbox.Counts.Dead)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tSESSION\tCHANNEL\tATTEMPTS\tAGE\tLAST ERROR")
	for _, it := range r.Outbox.Items {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", orDash(it.ID), orDash(it.Kind), orDash(it.SessionKey),
			orDash(it.Channel+":"+it.To), it.Attempts, ago(it.CreatedAt, now), orDash(clipError(it.LastError)))
	}
	return tw.Flush()
}

// clipError keeps a table cell on one line and short.
func clipError(s string) string {
	r := []rune(s)
	for i, c := range r {
		if c == '\n' || c == '\t' {
			r[i] = ' '
		}
	}
	if len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return string(r)
}

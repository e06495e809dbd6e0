package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zero-gateway/zero/shared/cron"
	"github.com/zero-gateway/zero/shared/gateway"
)

// runCron is `zero cron`: the gateway's cron.* methods.
func runCron(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return dispatch(ctx, "cron", args, stdout, stderr, []string{
		"usage: zero cron list|add|rm|run|runs [flags] [--url URL] [--token TOKEN]",
		"",
		"list [--all] [--json]            the jobs (cron.list; --all: disabled ones too)",
		"add --name N (--at TIME | --every DURATION | --cron EXPR [--tz ZONE]) --message TEXT",
		"    [--deliver CHANNEL:TO] [--id ID] [--agent ID] [--delete-after-run] [--disabled]",
		"    or add --job JSON (the job object as cron.add takes it)",
		"rm ID                            remove a job (its run history stays)",
		"run ID                           queue a run now (cron.run)",
		"runs ID [--limit N] [--json]     the job's run history, newest first",
	}, map[string]subcommand{"list": runCronList, "add": runCronAdd, "rm": runCronRemove, "run": runCronRun, "runs": runCronRuns})
}

// callVia calls method, one of gateway.Client's typed calls, with p on a
// client of the connection flags conn.
func callVia[P, R any](ctx context.Context, conn gatewayFlags, method func(*gateway.Client, context.Context, P) (R, error), p P) (R, error) {
	client, err := conn.client(os.Getenv)
	if err != nil {
		var zero R
		return zero, err
	}
	return method(client, ctx, p)
}

func runCronList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero cron list", flag.ContinueOnError)
	var conn gatewayFlags
	conn.register(fs)
	all := fs.Bool("all", false, "disabled jobs too")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parseFlags(fs, stderr, args, "zero cron list [--all] [--json]", []string{"Lists the cron jobs (cron.list)."}, ""); err != nil {
		return err
	}
	res, err := callVia(ctx, conn, (*gateway.Client).CronList, gateway.CronListParams{IncludeDisabled: *all})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, res)
	}
	if len(res.Jobs) == 0 {
		fmt.Fprintln(stdout, "no cron jobs")
		return nil
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tSCHEDULE\tENABLED\tNEXT RUN\tLAST")
	for _, j := range res.Jobs {
		fmt.Fprintf(w, "%s\t%s\t%s\t%t\t%s\t%s\n", j.ID, j.Name, scheduleText(j.Schedule), j.Enabled, msTime(j.State.NextRunAtMs), j.State.LastStatus)
	}
	return w.Flush()
}

// scheduleText is a schedule for humans.
func scheduleText(s cron.Schedule) string {
	switch s.Kind {
	case cron.KindAt:
		return "at " + msTime(s.AtMs)
	case cron.KindEvery:
		return "every " + (time.Duration(s.EveryMs) * time.Millisecond).String()
	}
	if s.TZ != "" {
		return "cron " + s.Expr + " (" + s.TZ + ")"
	}
	return "cron " + s.Expr
}

func msTime(ms int64) string {
	if ms == 0 {
		return "-"
	}
	return time.UnixMilli(ms).UTC().Format(time.RFC3339)
}

func runCronAdd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero cron add", flag.ContinueOnError)
	var conn gatewayFlags
	conn.register(fs)
	f := cronAddFlags{}
	f.register(fs)
	if err := parseFlags(fs, stderr, args, "zero cron add --name N (--at TIME | --every DURATION | --cron EXPR [--tz ZONE]) --message TEXT [flags]",
		[]string{"Adds a cron job (cron.add) and prints it as JSON. The gateway creates its schedule."}, ""); err != nil {
		return err
	}
	params, err := f.params()
	if err != nil {
		return err
	}
	job, err := callVia(ctx, conn, (*gateway.Client).CronAdd, params)
	if err != nil {
		return err
	}
	return writeJSON(stdout, job)
}

// cronAddFlags are zero cron add's job flags.
type cronAddFlags struct {
	job, id, name, agent, at, cronExpr, tz, message, deliver string
	every                                                    time.Duration
	deleteAfterRun, disabled                                 bool
}

func (f *cronAddFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.job, "job", "", "the whole job as a JSON object (instead of the other flags)")
	fs.StringVar(&f.id, "id", "", "the job id (default: the gateway makes one)")
	fs.StringVar(&f.name, "name", "", "the job's name")
	fs.StringVar(&f.agent, "agent", "", "the agent (default: the configured default)")
	fs.StringVar(&f.at, "at", "", "one shot at this `time` (RFC 3339, e.g. 2026-12-24T18:00:00Z)")
	fs.DurationVar(&f.every, "every", 0, "every `duration` (whole minutes)")
	fs.StringVar(&f.cronExpr, "cron", "", "a cron `expression` (5 fields)")
	fs.StringVar(&f.tz, "tz", "", "the cron expression's time `zone` (IANA; default UTC)")
	fs.StringVar(&f.message, "message", "", "what the agent is asked on every run (an isolated agentTurn)")
	fs.StringVar(&f.deliver, "deliver", "", "deliver the reply to `channel:to` (e.g. telegram:42)")
	fs.BoolVar(&f.deleteAfterRun, "delete-after-run", false, "remove a one-shot job after it ran")
	fs.BoolVar(&f.disabled, "disabled", false, "add the job disabled")
}

// params are cron.add's params from the flags.
func (f *cronAddFlags) params() (gateway.CronAddParams, error) {
	if f.job != "" {
		return jobParams(f.job)
	}
	p := gateway.CronAddParams{ID: f.id, Name: f.name, AgentID: f.agent, DeleteAfterRun: f.deleteAfterRun,
		Payload: cron.Payload{Kind: cron.PayloadAgentTurn, Message: f.message}}
	if f.disabled {
		p.Enabled = new(bool)
	}
	switch {
	case f.at != "":
		t, err := time.Parse(time.RFC3339, f.at)
		if err != nil {
			return gateway.CronAddParams{}, fmt.Errorf("--at: %w", err)
		}
		p.Schedule = cron.Schedule{Kind: cron.KindAt, AtMs: t.UnixMilli()}
	case f.every > 0:
		p.Schedule = cron.Schedule{Kind: cron.KindEvery, EveryMs: f.every.Milliseconds()}
	case f.cronExpr != "":
		p.Schedule = cron.Schedule{Kind: cron.KindCron, Expr: f.cronExpr, TZ: f.tz}
	default:
		return gateway.CronAddParams{}, fmt.Errorf("one of --at, --every or --cron is required (or --job)")
	}
	if f.deliver != "" {
		channel, to, ok := strings.Cut(f.deliver, ":")
		if !ok || channel == "" || to == "" {
			return gateway.CronAddParams{}, fmt.Errorf("--deliver: want channel:to, got %q", f.deliver)
		}
		p.Payload.Deliver, p.Payload.Channel, p.Payload.To = true, channel, to
	}
	return p, nil
}

// jobParams are cron.add's params given whole (--job): a JSON object
// with the fields of gateway.CronAddParams only, as the gateway decodes
// them.
func jobParams(s string) (gateway.CronAddParams, error) {
	var p gateway.CronAddParams
	raw, err := objectParams("--job", s)
	if err != nil {
		return p, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("--job: %w", err)
	}
	return p, nil // objectParams refused trailing data
}

// runCronID runs method, a call that takes one job id argument, and
// prints its result as JSON.
func runCronID[R any](ctx context.Context, name string, method func(*gateway.Client, context.Context, gateway.CronIDParams) (R, error), args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero cron "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var conn gatewayFlags
	conn.register(fs)
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return fmt.Errorf("zero cron %s takes one job ID, got %q", name, rest)
	}
	res, err := callVia(ctx, conn, method, gateway.CronIDParams{ID: rest[0]})
	if err != nil {
		return err
	}
	return writeJSON(stdout, res)
}

func runCronRemove(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runCronID(ctx, "rm", (*gateway.Client).CronRemove, args, stdout, stderr)
}

func runCronRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runCronID(ctx, "run", (*gateway.Client).CronRun, args, stdout, stderr)
}

func runCronRuns(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero cron runs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var conn gatewayFlags
	conn.register(fs)
	limit := fs.Int("limit", 0, "at most `N` records (default: the gateway's, 50)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return fmt.Errorf("zero cron runs takes one job ID, got %q", rest)
	}
	res, err := callVia(ctx, conn, (*gateway.Client).CronRuns, gateway.CronRunsParams{ID: rest[0], Limit: *limit})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, res)
	}
	return printCronRuns(stdout, res.Entries)
}

func printCronRuns(w io.Writer, runs []cron.RunRecord) error {
	if len(runs) == 0 {
		_, err := fmt.Fprintln(w, "no runs")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN AT\tSTATUS\tRUN ID\tSESSION ID\tDURATION\tDETAIL")
	for _, r := range runs {
		status := r.Status
		if status == "" {
			status = r.Action
		}
		detail, _ := json.Marshal(strings.TrimSpace(r.Error + " " + r.Summary))
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", msTime(r.RunAtMs), status, r.RunID, r.SessionID,
			time.Duration(r.DurationMs)*time.Millisecond, detail)
	}
	return tw.Flush()
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/sqsqueue"
)

// Environment variables naming where the dead letters and their failure
// records live: the functions' own names, so the runner's environment (or
// the stack's outputs) can be exported as is.
const (
	queueURLEnv = "ZERO_QUEUE_URL"
	dlqURLEnv   = "ZERO_DLQ_URL"
	tableEnv    = "ZERO_TABLE"
)

var dlqUsage = []string{
	"usage: zero dlq list [--queue URL | --dlq URL] [--table NAME] [--limit N] [--json]",
	"       zero dlq redrive [--queue URL | --dlq URL] [--to URL] [--method auto|move-task|resend] [--dry-run] [--limit N] [--wait 1m] [--json]",
	"",
	"A work queue message that failed every attempt (the redrive policy's",
	"maxReceiveCount) waits in the FIFO dead-letter queue. list shows each one:",
	"session, message id, age, receives and the error of its last attempt (the",
	"runner's failure record in the table). redrive moves them back to the work",
	"queue, in order per session, once the cause is fixed.",
	"",
	"The queues come from --queue (the stack's WorkQueueURL output; its redrive",
	"policy names the dead-letter queue) or --dlq (DeadLetterQueueURL), else",
	"$" + queueURLEnv + " / $" + dlqURLEnv + "; the table from --table or $" + tableEnv + ".",
	"AWS access is the default configuration (AWS_PROFILE, AWS_REGION, ...);",
	"against `zero dev` set AWS_ENDPOINT_URL to its emulator.",
}

// runDLQ is `zero dlq`.
func runDLQ(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return dispatch(ctx, "dlq", args, stdout, stderr, dlqUsage, map[string]subcommand{
		"list":    runDLQList,
		"redrive": runDLQRedrive,
	})
}

// dlqFlags name the queues (and, for list, the table).
type dlqFlags struct {
	queue, dlq, table string
}

func (f *dlqFlags) register(fs *flag.FlagSet, table bool) {
	fs.StringVar(&f.queue, "queue", "", "work queue `URL`; its redrive policy names the dead-letter queue (default $"+queueURLEnv+")")
	fs.StringVar(&f.dlq, "dlq", "", "dead-letter queue `URL` (default $"+dlqURLEnv+", else the one --queue names)")
	if table {
		fs.StringVar(&f.table, "table", "", "DynamoDB table `NAME` holding the failure records (default $"+tableEnv+")")
	}
}

// open resolves the flags against the environment (flags win) and returns
// the dead-letter queue and the work queue's URL ("" when only the DLQ was
// named).
func (f *dlqFlags) open(ctx context.Context, getenv func(string) string) (aws.Config, *sqsqueue.DLQ, string, error) {
	work, dlqURL := f.queue, f.dlq
	if work == "" && dlqURL == "" {
		work, dlqURL = getenv(queueURLEnv), getenv(dlqURLEnv)
	}
	if f.table == "" {
		f.table = getenv(tableEnv)
	}
	if work == "" && dlqURL == "" {
		return aws.Config{}, nil, "", fmt.Errorf("dlq: name the queue: --queue URL (the stack's WorkQueueURL output) or --dlq URL, or set %s", queueURLEnv)
	}
	cfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		return aws.Config{}, nil, "", err
	}
	client := sqs.NewFromConfig(cfg)
	if dlqURL != "" {
		return cfg, sqsqueue.NewDLQ(client, dlqURL), work, nil
	}
	dlq, err := sqsqueue.DeadLetterQueueOf(ctx, client, work)
	if err != nil {
		return aws.Config{}, nil, "", fmt.Errorf("dlq: %w", err)
	}
	return cfg, dlq, work, nil
}

// dlqRow is one dead letter as `zero dlq list` reports it.
type dlqRow struct {
	SessionKey   string `json:"sessionKey"`
	ID           string `json:"id"`           // the inbound message id
	SQSMessageID string `json:"sqsMessageId"` // SQS's own id
	Group        string `json:"group"`
	SentAt       int64  `json:"sentAt,omitempty"` // Unix ms
	AgeSeconds   int64  `json:"ageSeconds"`
	ReceiveCount int    `json:"receiveCount"`
	// From the runner's failure record, when there is one.
	Error    string `json:"error,omitempty"`
	Attempts int    `json:"attempts,omitempty"`
	FailedAt int64  `json:"failedAt,omitempty"` // Unix ms of the last failed attempt
	NoticeAt int64  `json:"noticeAt,omitempty"` // Unix ms the user was told
	// BodyError says why the body is not an inbound message.
	BodyError string `json:"bodyError,omitempty"`
}

// dlqList is the --json output of `zero dlq list`.
type dlqList struct {
	Queue    string   `json:"queue"`
	Table    string   `json:"table,omitempty"`
	Visible  int      `json:"visible"`  // ApproximateNumberOfMessages before the look
	InFlight int      `json:"inFlight"` // ApproximateNumberOfMessagesNotVisible before the look
	Messages []dlqRow `json:"messages"`
}

func runDLQList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero dlq list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var where dlqFlags
	where.register(fs, true)
	limit := fs.Int("limit", 100, "show at most `N` messages")
	asJSON := fs.Bool("json", false, `print {"queue", "table", "visible", "inFlight", "messages": [{"sessionKey", "id", "ageSeconds", "receiveCount", "error", "attempts", ...}]}`)
	if err := parseFlags(fs, stderr, args, dlqUsage[0][len("usage: "):], []string{
		"Shows the dead-letter queue without taking anything away: each message is",
		"received, held while the list is read (seconds) and made visible again.",
		"On FIFO a session with many dead letters shows its first ones only.",
	}, ""); err != nil {
		return err
	}
	if *limit <= 0 {
		return fmt.Errorf("dlq list: --limit must be positive, got %d", *limit)
	}
	cfg, dlq, _, err := where.open(ctx, os.Getenv)
	if err != nil {
		return err
	}
	depth, err := dlq.Depth(ctx)
	if err != nil {
		return fmt.Errorf("dlq list: %w", err)
	}
	letters, err := dlq.Peek(ctx, *limit)
	if err != nil {
		return fmt.Errorf("dlq list: %w", err)
	}
	now := time.Now()
	report := dlqList{Queue: dlq.URL(), Table: where.table, Visible: depth.Visible, InFlight: depth.InFlight, Messages: make([]dlqRow, 0, len(letters))}
	for _, l := range letters {
		row := dlqRow{
			SessionKey: l.Message.SessionKey, ID: l.Message.ID, SQSMessageID: l.SQSMessageID,
			Group: l.Group, ReceiveCount: l.ReceiveCount, BodyError: l.DecodeError,
		}
		if !l.SentAt.IsZero() {
			row.SentAt = l.SentAt.UnixMilli()
			row.AgeSeconds = int64(now.Sub(l.SentAt) / time.Second)
		}
		report.Messages = append(report.Messages, row)
	}
	if where.table == "" {
		fmt.Fprintf(stderr, "note: no --table (or %s): the errors of the last attempts are not shown\n", tableEnv)
	} else if err := addFailures(ctx, dynamodb.NewFromConfig(cfg), where.table, report.Messages, now); err != nil {
		return fmt.Errorf("dlq list: %w", err)
	}
	if *asJSON {
		return writeJSON(stdout, report)
	}
	return printDLQList(stdout, report, now)
}

// failureRecord is the runner's record of a message's last failed attempt.
type failureRecord struct {
	sessionKey, err     string
	attempts            int
	at, noticeAt, ttlAt int64
}

// addFailures fills the rows' failure fields from the table's failure
// records (pk msg#<inbound id>, sk failure): one BatchGetItem per 100
// messages, unprocessed keys retried. A record past its ttl is ignored,
// since TTL deletes lazily.
func addFailures(ctx context.Context, client *dynamodb.Client, table string, rows []dlqRow, now time.Time) error {
	var ids []string
	seen := map[string]bool{}
	for _, r := range rows {
		if r.ID != "" && !seen[r.ID] {
			seen[r.ID] = true
			ids = append(ids, r.ID)
		}
	}
	records := map[string]failureRecord{}
	for start := 0; start < len(ids); start += 100 {
		keys := make([]map[string]ddbtypes.AttributeValue, 0, 100)
		for _, id := range ids[start:min(start+100, len(ids))] {
			keys = append(keys, map[string]ddbtypes.AttributeValue{
				"pk": &ddbtypes.AttributeValueMemberS{Value: "msg#" + id},
				"sk": &ddbtypes.AttributeValueMemberS{Value: "failure"},
			})
		}
		request := map[string]ddbtypes.KeysAndAttributes{table: {Keys: keys}}
		for try := 0; len(request) > 0; try++ {
			if try == 5 {
				return fmt.Errorf("read failure records from table %s: DynamoDB left keys unprocessed after %d tries", table, try)
			}
			if try > 0 {
				time.Sleep(time.Duration(try) * 200 * time.Millisecond)
			}
			out, err := client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: request})
			if err != nil {
				return fmt.Errorf("read failure records from table %s: %w", table, err)
			}
			for _, item := range out.Responses[table] {
				id, rec := decodeFailure(item)
				if id != "" && (rec.ttlAt == 0 || rec.ttlAt > now.Unix()) {
					records[id] = rec
				}
			}
			request = out.UnprocessedKeys
		}
	}
	for i := range rows {
		rec, ok := records[rows[i].ID]
		if !ok {
			continue
		}
		rows[i].Error, rows[i].Attempts, rows[i].FailedAt, rows[i].NoticeAt = rec.err, rec.attempts, rec.at, rec.noticeAt
		if rows[i].SessionKey == "" {
			rows[i].SessionKey = rec.sessionKey
		}
	}
	return nil
}

// decodeFailure reads a failure record item; id is "" when it is not one.
func decodeFailure(item map[string]ddbtypes.AttributeValue) (id string, rec failureRecord) {
	str := func(name string) string {
		if v, ok := item[name].(*ddbtypes.AttributeValueMemberS); ok {
			return v.Value
		}
		return ""
	}
	num := func(name string) int64 {
		if v, ok := item[name].(*ddbtypes.AttributeValueMemberN); ok {
			n, _ := strconv.ParseFloat(v.Value, 64)
			return int64(n)
		}
		return 0
	}
	id, ok := strings.CutPrefix(str("pk"), "msg#")
	if !ok || str("sk") != "failure" {
		return "", rec
	}
	return id, failureRecord{
		sessionKey: str("sessionKey"), err: str("error"), attempts: int(num("attempts")),
		at: num("at"), noticeAt: num("noticeAt"), ttlAt: num("ttl"),
	}
}

// printDLQList writes the list for people: one row per message, then what
// the queue holds beyond the rows.
func printDLQList(w io.Writer, r dlqList, now time.Time) error {
	if len(r.Messages) == 0 {
		fmt.Fprintf(w, "dead-letter queue %s: empty", r.Queue)
		if r.InFlight > 0 {
			fmt.Fprintf(w, " (%d in flight: a redrive or another look holds them)", r.InFlight)
		}
		fmt.Fprintln(w)
		return nil
	}
	fmt.Fprintf(w, "dead-letter queue %s\n\n", r.Queue)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tMESSAGE\tAGE\tRECEIVES\tERROR")
	for _, m := range r.Messages {
		errText := m.Error
		switch {
		case errText == "" && m.BodyError != "":
			errText = "not an inbound message: " + m.BodyError
		case errText == "" && r.Table != "":
			errText = "(no failure record)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", orDash(m.SessionKey), orDash(m.ID), ago(m.SentAt, now), m.ReceiveCount, orDash(oneLine(errText, 100)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if more := r.Visible + r.InFlight - len(r.Messages); more > 0 {
		fmt.Fprintf(w, "\n%d more not shown: over --limit, in flight, or behind their session's first messages (FIFO).\n", more)
	}
	return nil
}

// oneLine flattens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// dlqRedriveReport is the --json output of `zero dlq redrive`.
type dlqRedriveReport struct {
	Queue  string `json:"queue"`
	Target string `json:"target"` // "" for a move task to each message's source queue
	DryRun bool   `json:"dryRun,omitempty"`
	// Method is move-task or resend; empty on a dry run.
	Method     string `json:"method,omitempty"`
	Moved      int    `json:"moved"`
	WouldMove  int    `json:"wouldMove,omitempty"`
	TaskHandle string `json:"taskHandle,omitempty"`
	TaskStatus string `json:"taskStatus,omitempty"`
	TaskError  string `json:"taskError,omitempty"`
	// Left is what the dead-letter queue holds afterwards.
	Left int `json:"left"`
}

func runDLQRedrive(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero dlq redrive", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var where dlqFlags
	where.register(fs, false)
	to := fs.String("to", "", "move to the queue at `URL` (default: the work queue the messages came from)")
	method := fs.String("method", "auto", "auto (a move task; resend where the endpoint has none), move-task or resend")
	dryRun := fs.Bool("dry-run", false, "only count what would move")
	limit := fs.Int("limit", 0, "resend at most `N` messages (default: all)")
	wait := fs.Duration("wait", time.Minute, "follow a move task this long before returning")
	asJSON := fs.Bool("json", false, `print {"queue", "target", "method", "moved", "left", "taskHandle", "taskStatus", ...}`)
	if err := parseFlags(fs, stderr, args, dlqUsage[1][len("       "):], []string{
		"Moves the dead-letter queue's messages back to the work queue. On AWS a",
		"message move task (StartMessageMoveTask) does it; where the endpoint has",
		"none (moto) each message is resent in its session's group, in order, and",
		"deleted from the dead-letter queue only once sent. Safe to re-run: a",
		"redrive of an empty queue moves nothing, and a resend interrupted between",
		"send and delete is not delivered twice (SQS deduplication, then the",
		"runner's idempotency record).",
	}, ""); err != nil {
		return err
	}
	m, err := redriveMethod(*method)
	if err != nil {
		return err
	}
	if *limit < 0 || *wait < 0 {
		return errors.New("dlq redrive: --limit and --wait must not be negative")
	}
	_, dlq, work, err := where.open(ctx, os.Getenv)
	if err != nil {
		return err
	}
	report := dlqRedriveReport{Queue: dlq.URL(), Target: *to, DryRun: *dryRun}
	if *dryRun {
		if err := countRedrive(ctx, dlq, &report, *limit); err != nil {
			return err
		}
		return printRedrive(stdout, report, *asJSON)
	}
	res, redriveErr := dlq.Redrive(ctx, sqsqueue.RedriveOptions{Method: m, TargetURL: *to, SourceURL: work, Limit: *limit, Wait: *wait})
	report.Method, report.Target, report.Moved = string(res.Method), res.Target, res.Moved
	report.TaskHandle, report.TaskStatus, report.TaskError = res.TaskHandle, res.TaskStatus, res.TaskError
	return reportRedrive(ctx, stdout, dlq, report, redriveErr, *asJSON)
}

// reportRedrive adds what is left in the queue (the operator's next step,
// even after a failure) and prints the outcome; the error is the
// redrive's, or the move task's failure.
func reportRedrive(ctx context.Context, stdout io.Writer, dlq *sqsqueue.DLQ, report dlqRedriveReport, redriveErr error, asJSON bool) error {
	if depth, err := dlq.Depth(context.WithoutCancel(ctx)); err == nil {
		report.Left = depth.Visible + depth.InFlight
	} else if redriveErr == nil {
		redriveErr = err
	}
	if redriveErr != nil {
		if report.Moved > 0 || report.Method != "" {
			_ = printRedrive(stdout, report, asJSON)
		}
		return fmt.Errorf("dlq redrive: %w", redriveErr)
	}
	if err := printRedrive(stdout, report, asJSON); err != nil {
		return err
	}
	if report.TaskStatus == "FAILED" {
		return fmt.Errorf("dlq redrive: the move task failed: %s", orDash(report.TaskError))
	}
	return nil
}

// redriveMethod reads --method.
func redriveMethod(s string) (sqsqueue.RedriveMethod, error) {
	switch s {
	case "auto":
		return sqsqueue.RedriveAuto, nil
	case string(sqsqueue.RedriveMoveTask), string(sqsqueue.RedriveResend):
		return sqsqueue.RedriveMethod(s), nil
	}
	return "", fmt.Errorf("dlq redrive: --method %q: want auto, move-task or resend", s)
}

// countRedrive fills a dry run's report: what would move (at most limit
// when > 0) and what is there.
func countRedrive(ctx context.Context, dlq *sqsqueue.DLQ, report *dlqRedriveReport, limit int) error {
	depth, err := dlq.Depth(ctx)
	if err != nil {
		return fmt.Errorf("dlq redrive: %w", err)
	}
	report.WouldMove, report.Left = depth.Visible, depth.Visible+depth.InFlight
	if limit > 0 {
		report.WouldMove = min(report.WouldMove, limit)
	}
	return nil
}

// printRedrive writes the outcome of a redrive.
func printRedrive(w io.Writer, r dlqRedriveReport, asJSON bool) error {
	if asJSON {
		return writeJSON(w, r)
	}
	target := r.Target
	if target == "" {
		target = "their source queue"
	}
	switch {
	case r.DryRun:
		fmt.Fprintf(w, "dry run: %d message(s) of %s would move to %s\n", r.WouldMove, r.Queue, target)
		return nil
	case r.Method == string(sqsqueue.RedriveMoveTask):
		fmt.Fprintf(w, "move task %s %s: %d message(s) moved so far from %s to %s\n",
			r.TaskHandle, strings.ToLower(orDash(r.TaskStatus)), r.Moved, r.Queue, target)
		if r.TaskStatus == "RUNNING" {
			fmt.Fprintf(w, "it goes on in SQS (%d message(s) left); `zero dlq list` shows what is there\n", r.Left)
			return nil
		}
	default:
		fmt.Fprintf(w, "moved %d message(s) from %s to %s (resent in order per session)\n", r.Moved, r.Queue, target)
	}
	if r.Left > 0 {
		fmt.Fprintf(w, "%d message(s) still in the dead-letter queue (held by a look or a redrive in progress, or over --limit): run again shortly\n", r.Left)
	}
	return nil
}

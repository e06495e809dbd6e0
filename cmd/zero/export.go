package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zero-gateway/zero/shared/s3store"
	"github.com/zero-gateway/zero/shared/transcript"
	"github.com/zero-gateway/zero/shared/upstream"
)

var exportAbout = []string{
	"Writes ZERO's sessions to DIR in the upstream system's JSONL layout:",
	"agents/<id>/sessions/sessions.json (2-space JSON, mode 0600) and one",
	"<sessionId>.jsonl per session (topics: <sessionId>-topic-<thread>.jsonl),",
	"the transcript parts concatenated. The upstream system opens it directly, or",
	"migrates it into its SQLite store. Existing files of the same names in DIR",
	"are replaced.",
}

// runExport is `zero export`.
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var where storeFlags
	where.register(fs)
	to := fs.String("to", "", "the `DIR` to write agents/ into")
	agent := fs.String("agent", "", "export only agent `ID` (default: every agent with files in the bucket)")
	sinceFlag := fs.String("since", "", "only sessions updated since `WHEN`: a duration back from now (72h, 7d) or a date (2026-01-31, RFC 3339)")
	if err := parseFlags(fs, stderr, args, "zero export --to DIR [--agent ID] [--since WHEN] [--table NAME] [--bucket NAME]", exportAbout, ""); err != nil {
		return err
	}
	if *to == "" {
		return fmt.Errorf("export: --to DIR is required")
	}
	since, err := parseSince(*sinceFlag, time.Now())
	if err != nil {
		return fmt.Errorf("export: --since: %w", err)
	}
	store, bucket, err := where.open(ctx, os.Getenv)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	agents := []string{*agent}
	if *agent == "" {
		if agents, err = bucketAgents(ctx, bucket); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	var sessions, bytes int
	ex := &upstream.Exporter{Sessions: store, Log: transcript.NewLog(bucket)}
	for _, a := range agents {
		bar := newProgress(stderr, "export "+a, 0)
		ex.Progress = func(n, b int) { bar.update(n, b) }
		n, b, err := ex.Export(ctx, *to, a, since)
		bar.done()
		if err != nil {
			return err
		}
		sessions, bytes = sessions+n, bytes+b
	}
	fmt.Fprintf(stdout, "exported %d sessions of %d agents to %s; %s of transcripts\n", sessions, len(agents), *to, byteSize(bytes))
	return nil
}

// parseSince reads --since: "" (everything: 0), a duration back from now
// (Go's, plus a "d" suffix for days), a date or an RFC 3339 time. It
// returns epoch ms.
func parseSince(s string, now time.Time) (int64, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return 0, nil
	case strings.HasSuffix(s, "d"):
		if days, err := strconv.Atoi(strings.TrimSuffix(s, "d")); err == nil && days >= 0 {
			return now.AddDate(0, 0, -days).UnixMilli(), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d).UnixMilli(), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, fmt.Errorf("%q is neither a duration (72h, 7d) nor a date (2026-01-31, RFC 3339)", s)
}

// bucketAgents lists the agents that have files in the bucket
// (agents/<id>/...), sorted: the table's index lists sessions per agent
// only, and every agent with sessions has transcripts or a workspace.
func bucketAgents(ctx context.Context, bucket *s3store.Bucket) ([]string, error) {
	keys, err := bucket.List(ctx, "agents/")
	if err != nil {
		return nil, fmt.Errorf("list agents in the bucket: %w", err)
	}
	seen := map[string]bool{}
	for _, k := range keys {
		id, _, ok := strings.Cut(strings.TrimPrefix(k, "agents/"), "/")
		if ok && id != "" {
			seen[id] = true
		}
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Strings(out)
	return out, nil
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"golang.org/x/term"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/dynamo"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/s3store"
	"github.com/zero-gateway/zero/shared/sqlitedb"
	"github.com/zero-gateway/zero/shared/upstream"
)

// bucketEnv names the transcript bucket, as the functions' environment
// does (ZERO_TABLE, tableEnv, names the table).
const bucketEnv = "ZERO_BUCKET"

// storeFlags name the session table and the transcript bucket `zero
// import` and `zero export` work on, with the operator's AWS credentials.
type storeFlags struct{ table, bucket string }

func (f *storeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.table, "table", "", "DynamoDB session table `NAME` (the stack's SessionTableName output; default $"+tableEnv+")")
	fs.StringVar(&f.bucket, "bucket", "", "S3 transcript bucket `NAME` (the stack's TranscriptBucketName output; default $"+bucketEnv+")")
}

// open resolves the flags against the environment (flags win) and returns
// the table and bucket adapters on the default AWS configuration.
func (f *storeFlags) open(ctx context.Context, getenv func(string) string) (*dynamo.Store, *s3store.Bucket, error) {
	if f.table == "" {
		f.table = getenv(tableEnv)
	}
	if f.bucket == "" {
		f.bucket = getenv(bucketEnv)
	}
	if f.table == "" || f.bucket == "" {
		return nil, nil, fmt.Errorf("name the table and the bucket: --table (SessionTableName output) and --bucket (TranscriptBucketName output), or set %s and %s", tableEnv, bucketEnv)
	}
	cfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	return dynamo.New(dynamodb.NewFromConfig(cfg), f.table), s3store.New(s3Client(cfg, getenv), f.bucket), nil
}

// s3Client is an S3 client on cfg, path-style when an endpoint override
// (a local emulator) is set.
func s3Client(cfg aws.Config, getenv func(string) string) *s3.Client {
	local := getenv("AWS_ENDPOINT_URL") != "" || getenv("AWS_ENDPOINT_URL_S3") != ""
	return s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = local })
}

var importAbout = []string{
	"Imports the upstream system's sessions from its state directory DIR (the",
	"folder holding agents/): per agent, the SQLite store",
	"agents/<id>/agent/" + sqlitedb.FileName + " (2026.9.6 and later; read without",
	"writing beside it) when there is one, else agents/<id>/sessions/sessions.json",
	"and its JSONL transcripts. Entries go to the session table and transcripts to",
	"the bucket, as the runner writes them; the model context is rebuilt from each",
	"transcript. Private-chat keys ...:direct:<peer> become ZERO's ...:dm:<peer>",
	"(set session.dmScope to what upstream used). One line per session",
	"(imported, extended, kept, conflict, skipped) and the messages read and",
	"written; running it again changes nothing. A session that cannot be read",
	"whole is skipped and listed, and the command exits non-zero.",
	"",
	"The private chats are checked against session.dmScope in the stack's",
	"zero.json (--parameter, else /zero/$" + stackEnv + "/config, else $" + configEnv + " or",
	"~/.zero/zero.json): a warning names the dmScope to set when their senders'",
	"next messages would start new sessions.",
}

// runImport is `zero import`.
func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var where storeFlags
	where.register(fs)
	from := fs.String("from", "", "the upstream state `DIR` (holding agents/)")
	agent := fs.String("agent", "", "import only agent `ID`")
	dryRun := fs.Bool("dry-run", false, "read and report what would change; write nothing")
	param := fs.String("parameter", "", "the SSM `NAME` of the stack's zero.json, checked for session.dmScope (default /zero/$"+stackEnv+"/config, else $"+configEnv+" or ~/.zero/zero.json)")
	if err := parseFlags(fs, stderr, args, "zero import --from DIR [--agent ID] [--dry-run] [--table NAME] [--bucket NAME] [--parameter NAME]", importAbout, ""); err != nil {
		return err
	}
	if *from == "" {
		return fmt.Errorf("import: --from DIR is required")
	}
	agents, err := agentsIn(*from, *agent)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	store, bucket, err := where.open(ctx, os.Getenv)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	im := &upstream.Importer{Sessions: store, Bucket: bucket, DryRun: *dryRun}
	return importAgents(ctx, im, *from, agents, loadScopeCheck(ctx, *param, os.Getenv), stdout, stderr)
}

// agentsIn is the agents to import: only, or every folder under dir/agents.
func agentsIn(dir, only string) ([]string, error) {
	if only != "" {
		return []string{only}, nil
	}
	return upstream.Agents(dir)
}

// readAgent reads agentID's sessions from dir in whichever layout it has:
// the SQLite store when present (upstream then reads sessions.json only as
// a migration input), else the JSONL one.
func readAgent(ctx context.Context, dir, agentID string) ([]upstream.Item, []upstream.Problem, error) {
	db := sqlitedb.Path(dir, agentID)
	if _, err := os.Stat(db); err == nil {
		return sqlitedb.Read(ctx, db, agentID)
	}
	items, problems, err := upstream.ReadDir(dir, agentID)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("agent %s: neither %s nor %s exists", agentID, db, upstream.StorePath(dir, agentID))
	}
	return items, problems, err
}

// importTally counts what an import did, per outcome and in messages.
type importTally struct {
	outcomes                     map[string]int // imported, extended, kept, conflict, skipped
	read, written, stored, bytes int
	keys                         []string // of the sessions imported, extended or kept
}

// importAgents reads and imports each agent's sessions, reporting
// progress on a terminal, one line per session (stdout; a skipped or
// conflicting one on stderr), scope's warnings about the private chats
// that will not continue, and the totals on stdout. Skipped and
// conflicting sessions make it fail after everything else is imported.
func importAgents(ctx context.Context, im *upstream.Importer, dir string, agents []string, scope scopeCheck, stdout, stderr io.Writer) error {
	t := importTally{outcomes: map[string]int{}}
	var items []upstream.Item
	for _, a := range agents {
		got, problems, err := readAgent(ctx, dir, a)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		items = append(items, got...)
		for _, p := range problems {
			t.outcomes["skipped"]++
			fmt.Fprintln(stderr, "skipped: "+p.String())
		}
	}
	bar := newProgress(stderr, "import", len(items))
	var lines []string
	for i, it := range items {
		res, err := im.Import(ctx, it)
		if ctx.Err() != nil {
			return fmt.Errorf("import: %w", ctx.Err())
		}
		line, bad := t.add(it, res, err)
		if bad {
			fmt.Fprintln(stderr, line)
		} else {
			lines = append(lines, line)
		}
		bar.update(i+1, t.bytes)
	}
	bar.done()
	for _, l := range lines {
		fmt.Fprintln(stdout, l)
	}
	scope.report(stdout, t.keys)
	return t.report(stdout, dir, im.DryRun)
}

// add counts one session's result and returns its line for the report;
// bad is true for a skipped or conflicting session.
func (t *importTally) add(it upstream.Item, res upstream.Result, err error) (line string, bad bool) {
	if err != nil {
		outcome := "skipped"
		if fault.Is(err, fault.Conflict) {
			outcome = "conflict"
		}
		t.outcomes[outcome]++
		return fmt.Sprintf("%s: %s", outcome, upstream.Problem{Path: it.From, Key: it.Key, Err: err.Error()}), true
	}
	t.outcomes[res.Outcome.String()]++
	t.keys = append(t.keys, it.Key)
	t.read, t.written, t.stored, t.bytes = t.read+res.Read, t.written+res.Written, t.stored+res.Stored, t.bytes+res.Bytes
	line = fmt.Sprintf("%s %s: %d messages read, %d written, %d in ZERO", res.Outcome, it.Key, res.Read, res.Written, res.Stored)
	for _, why := range []string{res.Why, it.Note} {
		if why != "" {
			line += "; " + why
		}
	}
	return line, false
}

// report prints the totals and fails when a session was skipped or in
// conflict.
func (t *importTally) report(w io.Writer, dir string, dry bool) error {
	o := t.outcomes
	prefix := ""
	if dry {
		prefix = "dry run, nothing written: "
	}
	fmt.Fprintf(w, "%s%d sessions from %s: %d imported, %d extended, %d kept, %d conflict, %d skipped; messages: %d read, %d written, %d in ZERO; %s of transcripts\n",
		prefix, o["imported"]+o["extended"]+o["kept"]+o["conflict"]+o["skipped"], dir, o["imported"], o["extended"], o["kept"], o["conflict"], o["skipped"],
		t.read, t.written, t.stored, byteSize(t.bytes))
	if n := o["skipped"] + o["conflict"]; n > 0 {
		return fmt.Errorf("import: %d sessions skipped or in conflict (listed above; run it again after a conflict)", n)
	}
	return nil
}

// progress is a one-line progress bar, drawn only on a terminal.
type progress struct {
	w     io.Writer
	what  string
	total int
	on    bool
}

func newProgress(w io.Writer, what string, total int) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, what: what, total: total, on: ok && term.IsTerminal(int(f.Fd()))}
}

// update redraws the bar: n of total sessions, bytes of transcripts.
func (p *progress) update(n, bytes int) {
	if !p.on {
		return
	}
	const width = 30
	filled := width
	if p.total > 0 {
		filled = width * n / p.total
	}
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d sessions, %s ", p.what, strings.Repeat("#", filled), strings.Repeat(".", width-filled), n, p.total, byteSize(bytes))
}

func (p *progress) done() {
	if p.on {
		fmt.Fprintln(p.w)
	}
}

// byteSize formats n bytes for people (B, KiB, MiB, GiB).
func byteSize(n int) string {
	f, units := float64(n), []string{"B", "KiB", "MiB", "GiB"}
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

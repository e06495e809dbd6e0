package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/config"
	"github.com/zero-gateway/zero/shared/sqlitedb"
	"github.com/zero-gateway/zero/shared/sqlitedb/sqlitedbtest"
	"github.com/zero-gateway/zero/shared/ssmparam"
	"github.com/zero-gateway/zero/shared/upstream/upstreamtest"
)

// The upstream fixture stores (shared/upstream/testdata): direct, legacy
// group, forum topic and cron sessions, a compaction line, tool calls.
const (
	jsonlFixture  = "../../shared/upstream/testdata/jsonl"
	brokenFixture = "../../shared/upstream/testdata/broken"
)

// migrateStack is a session table (with template.yaml's indexes) and a
// transcript bucket on the test emulator, named in ZERO_TABLE/ZERO_BUCKET.
type migrateStack struct {
	ddb           *dynamodb.Client
	s3            *s3.Client
	table, bucket string
}

func newMigrateStack(t *testing.T) *migrateStack {
	t.Helper()
	ctx := context.Background()
	cfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "zero-cli-migrate-" + hex.EncodeToString(b[:])
	s := &migrateStack{ddb: dynamodb.NewFromConfig(cfg), s3: s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true }), table: name, bucket: name}
	attr := func(n string, t ddbtypes.ScalarAttributeType) ddbtypes.AttributeDefinition {
		return ddbtypes.AttributeDefinition{AttributeName: aws.String(n), AttributeType: t}
	}
	keyEl := func(n string, t ddbtypes.KeyType) ddbtypes.KeySchemaElement {
		return ddbtypes.KeySchemaElement{AttributeName: aws.String(n), KeyType: t}
	}
	_, err = s.ddb.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(name), BillingMode: ddbtypes.BillingModePayPerRequest,
		AttributeDefinitions: []ddbtypes.AttributeDefinition{attr("pk", "S"), attr("sk", "S"), attr("agentId", "S"), attr("updatedAt", "N"), attr("sessionId", "S")},
		KeySchema:            []ddbtypes.KeySchemaElement{keyEl("pk", ddbtypes.KeyTypeHash), keyEl("sk", ddbtypes.KeyTypeRange)},
		GlobalSecondaryIndexes: []ddbtypes.GlobalSecondaryIndex{
			{IndexName: aws.String("byAgent"), KeySchema: []ddbtypes.KeySchemaElement{keyEl("agentId", ddbtypes.KeyTypeHash), keyEl("updatedAt", ddbtypes.KeyTypeRange)},
				Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeAll}},
			{IndexName: aws.String("bySessionId"), KeySchema: []ddbtypes.KeySchemaElement{keyEl("sessionId", ddbtypes.KeyTypeHash)},
				Projection: &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionTypeKeysOnly}},
		},
	})
	if err != nil {
		t.Fatalf("create table: %v", err)
	}
	t.Cleanup(func() {
		s.ddb.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	if _, err := s.s3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("create bucket: %v", err)
	}
	t.Setenv(tableEnv, name)
	t.Setenv(bucketEnv, name)
	return s
}

// snapshot is the table's items and the bucket's objects, as text.
func (s *migrateStack) snapshot(t *testing.T) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	items, err := s.ddb.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(s.table)})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items.Items {
		b, _ := json.Marshal(it)
		pk := it["pk"].(*ddbtypes.AttributeValueMemberS).Value
		sk := it["sk"].(*ddbtypes.AttributeValueMemberS).Value
		out["table:"+pk+"/"+sk] = string(b)
	}
	objs, err := s.s3.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket)})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs.Contents {
		got, err := s.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: o.Key})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		buf.ReadFrom(got.Body)
		got.Body.Close()
		out["bucket:"+*o.Key] = buf.String()
	}
	return out
}

// zeroRun runs the CLI and returns stdout, stderr and its error.
func zeroRun(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), args, &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

// readTree returns every file under dir by its slash path, with its mode.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, _ := d.Info()
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = info.Mode().Perm().String() + "\n" + string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestImportExportRoundTrip(t *testing.T) {
	s := newMigrateStack(t)
	out, errOut, err := zeroRun(t, "import", "--from", jsonlFixture)
	if err != nil || !strings.Contains(out, "4 sessions from") || !strings.Contains(out, "4 imported") {
		t.Fatalf("first import: %v\nstdout: %s\nstderr: %s", err, out, errOut)
	}
	first := s.snapshot(t)
	if out, _, err := zeroRun(t, "import", "--from", jsonlFixture); err != nil || !strings.Contains(out, "4 kept") {
		t.Fatalf("second import: %v\n%s", err, out)
	}
	if diff := cmp.Diff(first, s.snapshot(t)); diff != "" {
		t.Errorf("a second import changed the stack (-first +second):\n%s", diff)
	}

	exported := t.TempDir()
	if out, _, err := zeroRun(t, "export", "--to", exported); err != nil || !strings.Contains(out, "exported 4 sessions of 1 agents") {
		t.Fatalf("export: %v\n%s", err, out)
	}
	tree := readTree(t, exported)
	dir := "agents/main/sessions/"
	for _, name := range []string{"11111111-1111-4111-8111-111111111111.jsonl", "22222222-2222-4222-8222-222222222222.jsonl",
		"33333333-3333-4333-8333-333333333333-topic-42.jsonl", "44444444-4444-4444-8444-444444444444.jsonl"} {
		want, err := os.ReadFile(filepath.Join(jsonlFixture, dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff("-rw-------\n"+string(want), tree[dir+name]); diff != "" {
			t.Errorf("%s not byte-for-byte (-fixture +exported):\n%s", name, diff)
		}
	}
	store := tree[dir+"sessions.json"]
	for _, want := range []string{"-rw-------\n{\n  \"agent:main:main\": {\n", `"agent:main:telegram:group:-100123"`, `"channel": "telegram"`,
		`"lastChannel": "telegram"`, `"skillsSnapshot": {`, `"someFutureField": 7`, `"cron:daily-digest"`} {
		if !strings.Contains(store, want) {
			t.Errorf("sessions.json lacks %q:\n%s", want, store)
		}
	}
	for _, unwanted := range []string{`"provider": "telegram",`, `"sessionFile"`, `"version"`, `"transcriptSeq"`, `"group:-100123"`} {
		if strings.Contains(store, "\n    "+unwanted) || strings.Contains(store, "\n  "+unwanted) {
			t.Errorf("sessions.json has %q:\n%s", unwanted, store)
		}
	}

	// Export, import into another stack, export again: the same files.
	newMigrateStack(t)
	if out, errOut, err := zeroRun(t, "import", "--from", exported); err != nil {
		t.Fatalf("import of the export: %v\n%s%s", err, out, errOut)
	}
	again := t.TempDir()
	if _, _, err := zeroRun(t, "export", "--to", again, "--agent", "main"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tree, readTree(t, again)); diff != "" {
		t.Errorf("export → import → export differs (-first +second):\n%s", diff)
	}
}

// buildSQLite writes the JSONL fixture as an upstream SQLite store under
// dir (agents/main/agent/openclaw-agent.sqlite), in the schema
// shared/sqlitedb assumes.
func buildSQLite(t *testing.T, dir string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(jsonlFixture, "agents/main/sessions/sessions.json"))
	if err != nil {
		t.Fatal(err)
	}
	js, err := config.ToJSON(src)
	if err != nil {
		t.Fatal(err)
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(js, &entries); err != nil {
		t.Fatal(err)
	}
	path := sqlitedb.Path(dir, "main")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE session_nodes (session_key TEXT PRIMARY KEY, session_id TEXT NOT NULL, entry_json TEXT NOT NULL);
CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT NOT NULL, PRIMARY KEY (session_id, seq));`); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		var e struct{ SessionID string }
		json.Unmarshal(entries[key], &e)
		if _, err := db.Exec(`INSERT INTO session_nodes VALUES (?, ?, ?)`, key, e.SessionID, string(entries[key])); err != nil {
			t.Fatal(err)
		}
		matches, _ := filepath.Glob(filepath.Join(jsonlFixture, "agents/main/sessions", e.SessionID+"*.jsonl"))
		raw, err := os.ReadFile(matches[0])
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			if _, err := db.Exec(`INSERT INTO transcript_events VALUES (?, ?, ?)`, e.SessionID, i+1, line); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestImportSQLiteMatchesJSONL(t *testing.T) {
	newMigrateStack(t)
	if _, _, err := zeroRun(t, "import", "--from", jsonlFixture); err != nil {
		t.Fatal(err)
	}
	fromJSONL := t.TempDir()
	if _, _, err := zeroRun(t, "export", "--to", fromJSONL); err != nil {
		t.Fatal(err)
	}

	newMigrateStack(t)
	state := t.TempDir()
	buildSQLite(t, state)
	if out, errOut, err := zeroRun(t, "import", "--from", state); err != nil || !strings.Contains(out, "4 imported") {
		t.Fatalf("import SQLite: %v\n%s%s", err, out, errOut)
	}
	fromSQLite := t.TempDir()
	if _, _, err := zeroRun(t, "export", "--to", fromSQLite); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(readTree(t, fromJSONL), readTree(t, fromSQLite)); diff != "" {
		t.Errorf("SQLite import differs from the JSONL one (-jsonl +sqlite):\n%s", diff)
	}
}

func TestImportBrokenInput(t *testing.T) {
	s := newMigrateStack(t)
	out, errOut, err := zeroRun(t, "import", "--from", brokenFixture)
	if err == nil || !strings.Contains(err.Error(), "4 sessions skipped or in conflict") {
		t.Fatalf("err = %v, want 4 sessions skipped", err)
	}
	if !strings.Contains(out, "6 sessions from") || !strings.Contains(out, "4 skipped") {
		t.Errorf("stdout = %q, want the refused row of another agent counted as skipped", out)
	}
	// The entry whose transcript file is missing imports with no messages,
	// and its line says so.
	missing := "imported agent:main:dm:missing: 0 messages read, 0 written, 0 in ZERO; no transcript: " + brokenFixture + "/agents/main/sessions/66666666-6666-4666-8666-666666666666.jsonl does not exist"
	if !strings.Contains(out, "2 imported") || !strings.Contains(out, missing) {
		t.Errorf("stdout = %q, want the good session and the one without transcript imported:\n%s", out, missing)
	}
	store := brokenFixture + "/agents/main/sessions/sessions.json"
	for _, want := range []string{
		"skipped: " + store + ":6 (agent:main:dm:nosession): entry has no sessionId",
		"skipped: " + brokenFixture + "/agents/main/sessions/77777777-7777-4777-8777-777777777777.jsonl:3 (agent:main:dm:badline): not a JSON object",
		"skipped: " + store + ":17 (agent:main:dm:badtype): entry: json: cannot unmarshal",
		"skipped: " + store + ":21 (agent:work:main): invalid: the key names agent \"work\", but it is in agent \"main\"'s store; not imported",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	var parts []string
	for k := range s.snapshot(t) {
		if strings.HasPrefix(k, "bucket:") {
			parts = append(parts, k)
		}
	}
	if diff := cmp.Diff([]string{"bucket:agents/main/sessions/55555555-5555-4555-8555-555555555555.jsonl.d/0000000001.jsonl"}, parts); diff != "" {
		t.Errorf("bucket (-want +got):\n%s", diff)
	}
}

func TestImportDryRun(t *testing.T) {
	s := newMigrateStack(t)
	out, _, err := zeroRun(t, "import", "--from", jsonlFixture, "--agent", "main", "--dry-run")
	if err != nil || !strings.Contains(out, "dry run, nothing written: 4 sessions") || !strings.Contains(out, "4 imported") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	if got := s.snapshot(t); len(got) != 0 {
		t.Errorf("dry run wrote %v", got)
	}
}

func TestImportExportUsage(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
	}{
		{name: "import without --from", args: []string{"import"}, wantErr: "--from DIR is required"},
		{name: "export without --to", args: []string{"export"}, wantErr: "--to DIR is required"},
		{name: "no table", args: []string{"import", "--from", jsonlFixture}, env: map[string]string{tableEnv: "", bucketEnv: ""}, wantErr: "name the table and the bucket"},
		{name: "no such agent", args: []string{"import", "--from", jsonlFixture, "--agent", "nobody", "--table", "t", "--bucket", "b"}, wantErr: "agent nobody: neither"},
		{name: "bad since", args: []string{"export", "--to", "x", "--since", "soon"}, wantErr: `"soon" is neither`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			_, _, err := zeroRun(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		in   string
		want time.Time
	}{
		{name: "empty is everything", in: "", want: time.UnixMilli(0)},
		{name: "hours", in: "72h", want: now.Add(-72 * time.Hour)},
		{name: "days", in: "7d", want: now.AddDate(0, 0, -7)},
		{name: "date", in: "2026-01-31", want: time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)},
		{name: "RFC 3339", in: "2026-02-01T10:00:00Z", want: time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseSince(tt.in, now)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want.UnixMilli() {
				t.Errorf("parseSince(%q) = %v, want %v", tt.in, time.UnixMilli(got).UTC(), tt.want)
			}
		})
	}
}

// TestImportSummary: a store of each upstream layout, built as the
// upstream program writes it, imports with exit 0 and one line per
// session; messages read equal messages written for every imported
// session, and a damaged zstd row skips its session (exit non-zero) with
// the others imported.
func TestImportSummary(t *testing.T) {
	now := time.Now()
	sqliteStore := func(t *testing.T, damage string) string {
		state := t.TempDir()
		db, _ := sqlitedbtest.Write(t, sqlitedb.Path(state, "main"), upstreamtest.Chats(upstreamtest.Release20260906, now))
		if damage != "" {
			if _, err := db.Exec(damage); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		return state
	}
	jsonlStore := func(t *testing.T, _ string) string {
		state := t.TempDir()
		upstreamtest.WriteJSONL(t, state, "main", upstreamtest.Chats(upstreamtest.Release20260130, now))
		return state
	}
	// The upstream stores' private chats are per channel and peer.
	const rightScope = `{session: {dmScope: "per-channel-peer"}}`
	tests := []struct {
		name   string
		store  func(*testing.T, string) string
		damage string
		// zeroJSON is the stack's config: in the SSM parameter of
		// $ZERO_STACK when inSSM, else in the file $ZERO_CONFIG names;
		// "" for none anywhere.
		zeroJSON  string
		inSSM     bool
		wantLines []string // stdout, the totals last
		wantErr   string   // stderr; "" for exit 0
	}{
		{name: "2026.9.6 SQLite", store: sqliteStore, zeroJSON: rightScope, wantLines: []string{
			"imported agent:main:telegram:dm:7001: 6 messages read, 6 written, 6 in ZERO",
			"imported agent:main:telegram:dm:7002: 2 messages read, 2 written, 2 in ZERO",
			"imported agent:main:telegram:group:-1007003: 2 messages read, 2 written, 2 in ZERO",
			"3 sessions from STATE: 3 imported, 0 extended, 0 kept, 0 conflict, 0 skipped; messages: 10 read, 10 written, 10 in ZERO; ",
		}},
		{name: "2026.1.30 sessions.json and JSONL", store: jsonlStore, zeroJSON: rightScope, inSSM: true, wantLines: []string{
			"imported agent:main:main: 0 messages read, 0 written, 0 in ZERO; no transcript: STATE/agents/main/sessions/a1300000-0000-4000-8000-000000000004.jsonl does not exist",
			"imported agent:main:telegram:dm:7101: 6 messages read, 6 written, 6 in ZERO",
			"imported agent:main:telegram:dm:7102: 2 messages read, 2 written, 2 in ZERO",
			"imported agent:main:telegram:group:-1007103: 2 messages read, 2 written, 2 in ZERO",
			"4 sessions from STATE: 4 imported, 0 extended, 0 kept, 0 conflict, 0 skipped; messages: 10 read, 10 written, 10 in ZERO; ",
		}},
		{name: "2026.9.6 with a damaged zstd row", store: sqliteStore, zeroJSON: rightScope,
			damage: `UPDATE transcript_events SET event_utf8_bytes = event_utf8_bytes - 1 WHERE event_zstd IS NOT NULL`,
			wantLines: []string{
				"imported agent:main:telegram:dm:7002: 2 messages read, 2 written, 2 in ZERO",
				"imported agent:main:telegram:group:-1007003: 2 messages read, 2 written, 2 in ZERO",
				"3 sessions from STATE: 2 imported, 0 extended, 0 kept, 0 conflict, 1 skipped; messages: 4 read, 4 written, 4 in ZERO; ",
			},
			wantErr: "skipped: STATE/agents/main/agent/openclaw-agent.sqlite#transcript_events:",
		},
		{name: "stack config under another dmScope", store: jsonlStore, zeroJSON: `{session: {dmScope: "per-peer"}}`, inSSM: true, wantLines: []string{
			"imported agent:main:main: 0 messages read, 0 written, 0 in ZERO; no transcript: STATE/agents/main/sessions/a1300000-0000-4000-8000-000000000004.jsonl does not exist",
			"imported agent:main:telegram:dm:7101: 6 messages read, 6 written, 6 in ZERO",
			"imported agent:main:telegram:dm:7102: 2 messages read, 2 written, 2 in ZERO",
			"imported agent:main:telegram:group:-1007103: 2 messages read, 2 written, 2 in ZERO",
			`warning: 2 imported private chats will not continue (agent:main:telegram:dm:7101, agent:main:telegram:dm:7102): session.dmScope is "per-peer"; set it to "per-channel-peer" in zero.json (CONFIG)`,
			"4 sessions from STATE: 4 imported, 0 extended, 0 kept, 0 conflict, 0 skipped; messages: 10 read, 10 written, 10 in ZERO; ",
		}},
		{name: "local config with the default dmScope", store: sqliteStore, zeroJSON: `{}`, wantLines: []string{
			"imported agent:main:telegram:dm:7001: 6 messages read, 6 written, 6 in ZERO",
			"imported agent:main:telegram:dm:7002: 2 messages read, 2 written, 2 in ZERO",
			"imported agent:main:telegram:group:-1007003: 2 messages read, 2 written, 2 in ZERO",
			`warning: 2 imported private chats will not continue (agent:main:telegram:dm:7001, agent:main:telegram:dm:7002): session.dmScope is "main"; set it to "per-channel-peer" in zero.json (CONFIG)`,
			"3 sessions from STATE: 3 imported, 0 extended, 0 kept, 0 conflict, 0 skipped; messages: 10 read, 10 written, 10 in ZERO; ",
		}},
		{name: "no config anywhere", store: sqliteStore, wantLines: []string{
			"imported agent:main:telegram:dm:7001: 6 messages read, 6 written, 6 in ZERO",
			"imported agent:main:telegram:dm:7002: 2 messages read, 2 written, 2 in ZERO",
			"imported agent:main:telegram:group:-1007003: 2 messages read, 2 written, 2 in ZERO",
			"warning: private chats not checked against session.dmScope: no zero.json: pass --parameter /zero/<stack>/config, or set ZERO_STACK or ZERO_CONFIG",
			"3 sessions from STATE: 3 imported, 0 extended, 0 kept, 0 conflict, 0 skipped; messages: 10 read, 10 written, 10 in ZERO; ",
		}},
		{name: "stack without a config parameter", store: sqliteStore, inSSM: true, wantLines: []string{
			"imported agent:main:telegram:dm:7001: 6 messages read, 6 written, 6 in ZERO",
			"imported agent:main:telegram:dm:7002: 2 messages read, 2 written, 2 in ZERO",
			"imported agent:main:telegram:group:-1007003: 2 messages read, 2 written, 2 in ZERO",
			"warning: private chats not checked against session.dmScope: the parameter CONFIG does not exist (zero config push --parameter CONFIG writes it)",
			"3 sessions from STATE: 3 imported, 0 extended, 0 kept, 0 conflict, 0 skipped; messages: 10 read, 10 written, 10 in ZERO; ",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newMigrateStack(t)
			where := stackConfig(t, tt.zeroJSON, tt.inSSM)
			state := tt.store(t, tt.damage)
			out, errOut, err := zeroRun(t, "import", "--from", state)
			if (err != nil) != (tt.wantErr != "") {
				t.Fatalf("import: %v\nstdout: %s\nstderr: %s", err, out, errOut)
			}
			out = strings.ReplaceAll(out, state, "STATE")
			if where != "" {
				out = strings.ReplaceAll(out, where, "CONFIG")
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			last := len(lines) - 1
			if len(lines) == len(tt.wantLines) && strings.HasPrefix(lines[last], tt.wantLines[last]) {
				lines[last] = tt.wantLines[last] // the byte count varies with the clock in the fixture
			}
			if diff := cmp.Diff(tt.wantLines, lines); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if !strings.Contains(strings.ReplaceAll(errOut, state, "STATE"), tt.wantErr) {
				t.Errorf("stderr = %q, want %q", errOut, tt.wantErr)
			}
		})
	}
}

// stackConfig makes zeroJSON the config `zero import` checks: the SSM
// parameter of a fresh $ZERO_STACK when inSSM (no parameter for ""), else
// the file $ZERO_CONFIG names (none for ""). HOME is empty either way. It
// returns the parameter's name or the file's path ("" when neither).
func stackConfig(t *testing.T, zeroJSON string, inSSM bool) (where string) {
	t.Helper()
	isolateConfig(t)
	t.Setenv(stackEnv, "")
	if !inSSM {
		if zeroJSON != "" {
			where = writeFile(t, "zero.json", zeroJSON)
			t.Setenv(configEnv, where)
		}
		return where
	}
	stack := awstest.Name("test-import-")
	t.Setenv(stackEnv, stack)
	name := configParameter(stack)
	if zeroJSON == "" {
		return name
	}
	ctx := context.Background()
	awsCfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := ssm.NewFromConfig(awsCfg)
	t.Cleanup(func() { client.DeleteParameter(context.Background(), &ssm.DeleteParameterInput{Name: &name}) })
	if _, err := ssmparam.New(client, name).Put(ctx, []byte(zeroJSON)); err != nil {
		t.Fatal(err)
	}
	return name
}

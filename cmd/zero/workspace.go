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
	"text/tabwriter"
	"time"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/files"
	"github.com/zero-gateway/zero/shared/s3store"
	"github.com/zero-gateway/zero/shared/session"
	"github.com/zero-gateway/zero/shared/workspace"
)

var workspaceUsage = []string{
	"usage: zero workspace versions --agent ID [--bucket NAME] [--json] PATH",
	"       zero workspace restore --agent ID [--version VERSION_ID] [--bucket NAME] PATH",
	"",
	"The transcript bucket is versioned: a workspace file the agent overwrote or",
	"deleted (AGENTS.md, MEMORY.md, ...) keeps its old versions for 30 days.",
	"versions lists PATH's versions, newest first; restore copies one over the",
	"current file (by default the newest version with content before the current",
	"one: the file before its last overwrite or delete). PATH is inside the agent's",
	"workspace (agents/<ID>/workspace/PATH in the bucket).",
	"",
	"The bucket comes from --bucket (the stack's TranscriptBucketName output) or",
	"$" + bucketEnv + ". AWS access is the default configuration (AWS_PROFILE,",
	"AWS_REGION, ...); against `zero dev` set AWS_ENDPOINT_URL to its emulator.",
}

// runWorkspace is `zero workspace`.
func runWorkspace(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return dispatch(ctx, "workspace", args, stdout, stderr, workspaceUsage, map[string]subcommand{
		"versions": runWorkspaceVersions,
		"restore":  runWorkspaceRestore,
	})
}

// workspaceFile names one workspace file: the agent, the path inside its
// workspace and the bucket holding it.
type workspaceFile struct{ agent, path, bucket string }

func (f *workspaceFile) register(fs *flag.FlagSet) {
	fs.StringVar(&f.agent, "agent", "", "the agent `ID` whose workspace holds PATH (required)")
	fs.StringVar(&f.bucket, "bucket", "", "S3 transcript bucket `NAME` (the stack's TranscriptBucketName output; default $"+bucketEnv+")")
}

// parse parses args, flags before or after the one PATH, with fs's help
// text (the usage line, then about).
func (f *workspaceFile) parse(fs *flag.FlagSet, stderr io.Writer, args []string, usage string, about []string) error {
	setHelp(fs, stderr, usage, about)
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		f.path, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if f.path == "" && fs.NArg() > 0 {
		f.path = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return err
		}
	}
	if fs.NArg() > 0 || f.path == "" {
		fs.Usage()
		return fmt.Errorf("%s takes one workspace PATH, got %q", fs.Name(), append(nonEmpty(f.path), fs.Args()...))
	}
	return nil
}

// nonEmpty is []string{s}, or nothing for "".
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// key is the file's object key: agents/<agent>/workspace/<path>, with the
// agent an exact agent id and the path one the file tools accept, so it
// never leaves the agent's workspace.
func (f *workspaceFile) key() (string, error) {
	if f.agent == "" {
		return "", errors.New("--agent ID is required: the agent whose workspace holds the file")
	}
	if id := session.NormalizeAgentID(f.agent); id != f.agent {
		return "", fmt.Errorf("--agent %q is not an agent id (lower case letters, digits, _ and -; did you mean %q?)", f.agent, id)
	}
	p, err := files.Clean(f.path)
	if err != nil {
		return "", err
	}
	return workspace.Prefix(f.agent) + p, nil
}

// open resolves --bucket against the environment (the flag wins) and
// returns the bucket on the default AWS configuration.
func (f *workspaceFile) open(ctx context.Context, getenv func(string) string) (*s3store.Bucket, error) {
	if f.bucket == "" {
		f.bucket = getenv(bucketEnv)
	}
	if f.bucket == "" {
		return nil, fmt.Errorf("name the bucket: --bucket (the stack's TranscriptBucketName output), or set %s", bucketEnv)
	}
	cfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		return nil, err
	}
	return s3store.New(s3Client(cfg, getenv), f.bucket), nil
}

// versions lists the file's versions, newest first; a file without any
// is fault.NotFound.
func (f *workspaceFile) versions(ctx context.Context) (*s3store.Bucket, string, []s3store.Version, error) {
	key, err := f.key()
	if err != nil {
		return nil, "", nil, err
	}
	bucket, err := f.open(ctx, os.Getenv)
	if err != nil {
		return nil, "", nil, err
	}
	vs, err := bucket.Versions(ctx, key)
	if err == nil && len(vs) == 0 {
		err = fault.New(fault.NotFound, "%s has no versions in bucket %s: never written, or deleted more than 30 days ago", key, f.bucket)
	}
	return bucket, key, vs, err
}

// versionList is `zero workspace versions --json`.
type versionList struct {
	Bucket   string            `json:"bucket"`
	Key      string            `json:"key"`
	Versions []s3store.Version `json:"versions"`
}

// runWorkspaceVersions is `zero workspace versions`.
func runWorkspaceVersions(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero workspace versions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var file workspaceFile
	file.register(fs)
	asJSON := fs.Bool("json", false, `print {"bucket", "key", "versions": [{"versionId", "lastModified", "size", "etag", "latest", "deleteMarker"}]}`)
	if err := file.parse(fs, stderr, args, workspaceUsage[0][len("usage: "):], []string{
		"Lists a workspace file's versions, newest first: version id, when it was",
		"written, its size, and which is current and which are delete markers (the",
		"file deleted then). Old versions live 30 days after they were replaced.",
	}); err != nil {
		return err
	}
	_, key, vs, err := file.versions(ctx)
	if err != nil {
		return fmt.Errorf("workspace versions: %w", err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(versionList{Bucket: file.bucket, Key: key, Versions: vs})
	}
	fmt.Fprintf(stdout, "%s in bucket %s: %d versions, newest first\n", key, file.bucket, len(vs))
	return printVersions(stdout, vs)
}

// printVersions prints one line per version: id, time, size, state.
func printVersions(w io.Writer, vs []s3store.Version) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION ID\tLAST MODIFIED\tSIZE\tSTATE")
	for _, v := range vs {
		size := fmt.Sprint(v.Size)
		if v.DeleteMarker {
			size = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.ID, v.Modified.UTC().Format(time.RFC3339), size, versionState(v))
	}
	return tw.Flush()
}

// versionState says what a version is: current or not, content or a
// delete marker.
func versionState(v s3store.Version) string {
	switch {
	case v.Latest && v.DeleteMarker:
		return "delete marker (current: the file is deleted)"
	case v.Latest:
		return "current"
	case v.DeleteMarker:
		return "delete marker"
	}
	return ""
}

// runWorkspaceRestore is `zero workspace restore`.
func runWorkspaceRestore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zero workspace restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var file workspaceFile
	file.register(fs)
	version := fs.String("version", "", "restore version `VERSION_ID` (zero workspace versions lists them; default: the newest with content before the current one)")
	if err := file.parse(fs, stderr, args, workspaceUsage[1][len("       "):], []string{
		"Brings a workspace file back: copies one of its versions over the current",
		"file (a deleted file is written again). Nothing is lost: the replaced",
		"content stays a version of its own, and restore can be undone with another",
		"restore. The copy is refused if the file changes meanwhile (the agent wrote",
		"it): list and restore again.",
	}); err != nil {
		return err
	}
	bucket, key, vs, err := file.versions(ctx)
	if err != nil {
		return fmt.Errorf("workspace restore: %w", err)
	}
	from, err := restoreSource(vs, *version)
	if err != nil {
		return fmt.Errorf("workspace restore: %s: %w", key, err)
	}
	id, err := bucket.Restore(ctx, key, from.ID, currentETag(vs))
	if fault.Is(err, fault.Conflict) {
		return fmt.Errorf("workspace restore: %s changed while restoring (the agent wrote it?); nothing was restored: list its versions and restore again", key)
	}
	if err != nil {
		return fmt.Errorf("workspace restore: %w", err)
	}
	fmt.Fprintf(stdout, "restored %s to version %s (written %s, %d bytes); the current version is now %s\n",
		key, from.ID, from.Modified.UTC().Format(time.RFC3339), from.Size, id)
	return nil
}

// restoreSource is the version to restore: the one id names, or, when id
// is "", the newest one with content that is not current. The current
// version, a delete marker or an id the file does not have is an error.
func restoreSource(vs []s3store.Version, id string) (s3store.Version, error) {
	for _, v := range vs {
		switch {
		case id == "" && !v.Latest && !v.DeleteMarker:
			return v, nil
		case id == "" || v.ID != id:
		case v.DeleteMarker:
			return v, fmt.Errorf("version %s is a delete marker (the file deleted); pick a version with content", id)
		case v.Latest:
			return v, fmt.Errorf("version %s is already the current one", id)
		default:
			return v, nil
		}
	}
	if id == "" {
		return s3store.Version{}, errors.New("no earlier version with content to restore (old versions live 30 days, and only since versioning was turned on)")
	}
	return s3store.Version{}, fmt.Errorf("no version %s (zero workspace versions lists them)", id)
}

// currentETag is the ETag the restore's copy is conditional on: the
// current version's, or "" when the file is deleted (its current version
// a delete marker) or has no current version.
func currentETag(vs []s3store.Version) string {
	for _, v := range vs {
		if v.Latest {
			return v.ETag
		}
	}
	return ""
}

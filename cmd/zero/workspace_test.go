package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/awsconfig"
	"github.com/zero-gateway/zero/shared/s3store"
)

func TestWorkspaceFileKey(t *testing.T) {
	tests := []struct {
		name, agent, path string
		want, wantErr     string
	}{
		{name: "a bootstrap file", agent: "main", path: "AGENTS.md", want: "agents/main/workspace/AGENTS.md"},
		{name: "a nested file", agent: "ops-2", path: "memory/2026-01-31.md", want: "agents/ops-2/workspace/memory/2026-01-31.md"},
		{name: "no agent", path: "AGENTS.md", wantErr: "--agent ID is required"},
		{name: "an agent id that is not one", agent: "Main", path: "AGENTS.md", wantErr: `did you mean "main"`},
		{name: "an agent id climbing out", agent: "../other", path: "AGENTS.md", wantErr: "is not an agent id"},
		{name: "a path climbing out", agent: "main", path: "../../other/workspace/AGENTS.md", wantErr: `"." and ".." segments`},
		{name: "an absolute path", agent: "main", path: "/AGENTS.md", wantErr: "absolute"},
		{name: "a folder", agent: "main", path: "memory/", wantErr: "empty segment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := workspaceFile{agent: tt.agent, path: tt.path}
			got, err := f.key()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("key() = %q, %v; want an error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("key() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestWorkspaceFileParse(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		wantPath  string
		wantAgent string
		wantErr   string
	}{
		{name: "flags first", args: []string{"--agent", "main", "AGENTS.md"}, wantPath: "AGENTS.md", wantAgent: "main"},
		{name: "path first", args: []string{"AGENTS.md", "--agent", "main"}, wantPath: "AGENTS.md", wantAgent: "main"},
		{name: "path between flags", args: []string{"--agent", "main", "MEMORY.md", "--bucket", "b"}, wantPath: "MEMORY.md", wantAgent: "main"},
		{name: "a path like a flag after --", args: []string{"--agent", "main", "--", "-odd.md"}, wantPath: "-odd.md", wantAgent: "main"},
		{name: "no path", args: []string{"--agent", "main"}, wantErr: "takes one workspace PATH"},
		{name: "two paths", args: []string{"--agent", "main", "a.md", "b.md"}, wantErr: `takes one workspace PATH, got ["a.md" "b.md"]`},
		{name: "an unknown flag", args: []string{"a.md", "--nope"}, wantErr: "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("zero workspace versions", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var f workspaceFile
			f.register(fs)
			err := f.parse(fs, io.Discard, tt.args, "zero workspace versions PATH", nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parse = %v; want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || f.path != tt.wantPath || f.agent != tt.wantAgent {
				t.Errorf("parse = %v, path %q, agent %q; want path %q, agent %q", err, f.path, f.agent, tt.wantPath, tt.wantAgent)
			}
		})
	}
}

func TestRestoreSource(t *testing.T) {
	cur := s3store.Version{ID: "v3", Latest: true, ETag: `"e3"`}
	curMarker := s3store.Version{ID: "m2", Latest: true, DeleteMarker: true}
	marker := s3store.Version{ID: "m1", DeleteMarker: true}
	v2, v1 := s3store.Version{ID: "v2", ETag: `"e2"`}, s3store.Version{ID: "v1", ETag: `"e1"`}
	tests := []struct {
		name     string
		versions []s3store.Version
		id       string
		want     string // the chosen version's id
		wantErr  string
	}{
		{name: "overwritten: the version before the current one", versions: []s3store.Version{cur, v2, v1}, want: "v2"},
		{name: "deleted: the version under the marker", versions: []s3store.Version{curMarker, v2, v1}, want: "v2"},
		{name: "markers are skipped", versions: []s3store.Version{cur, marker, v1}, want: "v1"},
		{name: "only the current version", versions: []s3store.Version{cur}, wantErr: "no earlier version with content"},
		{name: "deleted, nothing under it", versions: []s3store.Version{curMarker, marker}, wantErr: "no earlier version with content"},
		{name: "a named version", versions: []s3store.Version{cur, v2, v1}, id: "v1", want: "v1"},
		{name: "a named version the file does not have", versions: []s3store.Version{cur, v2}, id: "v9", wantErr: "no version v9"},
		{name: "a named delete marker", versions: []s3store.Version{cur, marker, v1}, id: "m1", wantErr: "is a delete marker"},
		{name: "the current version by name", versions: []s3store.Version{cur, v2}, id: "v3", wantErr: "already the current one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := restoreSource(tt.versions, tt.id)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("restoreSource = %+v, %v; want an error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got.ID != tt.want {
				t.Errorf("restoreSource = %+v, %v; want version %s", got, err, tt.want)
			}
		})
	}
}

func TestCurrentETag(t *testing.T) {
	tests := []struct {
		name     string
		versions []s3store.Version
		want     string
	}{
		{"a current version", []s3store.Version{{ID: "v2", Latest: true, ETag: `"e2"`}, {ID: "v1", ETag: `"e1"`}}, `"e2"`},
		{"deleted", []s3store.Version{{ID: "m", Latest: true, DeleteMarker: true}, {ID: "v1", ETag: `"e1"`}}, ""},
		{"no current version", []s3store.Version{{ID: "v1", ETag: `"e1"`}}, ""},
	}
	for _, tt := range tests {
		if got := currentETag(tt.versions); got != tt.want {
			t.Errorf("%s: currentETag = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// workspaceBucket is a versioned bucket on the test emulator, as the
// deployed TranscriptBucket is, named in ZERO_BUCKET; the files are written
// as the agent's file tools write them (shared/s3store, conditionally).
type workspaceBucket struct {
	client *s3.Client
	name   string
	files  *s3store.Bucket
}

func newWorkspaceBucket(t *testing.T) *workspaceBucket {
	t.Helper()
	ctx := context.Background()
	cfg, err := awsconfig.Load(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	w := &workspaceBucket{client: s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true }), name: "zero-cli-ws-" + hex.EncodeToString(b[:])}
	if _, err := w.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &w.name}); err != nil {
		t.Fatalf("create bucket: %v", err)
	}
	t.Cleanup(func() { w.remove(context.Background()) })
	_, err = w.client.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{
		Bucket: &w.name, VersioningConfiguration: &s3types.VersioningConfiguration{Status: s3types.BucketVersioningStatusEnabled},
	})
	if err != nil {
		t.Fatalf("turn on versioning: %v", err)
	}
	w.files = s3store.New(w.client, w.name)
	t.Setenv(bucketEnv, w.name)
	return w
}

// remove deletes every version in the bucket, then the bucket.
func (w *workspaceBucket) remove(ctx context.Context) {
	out, err := w.client.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: &w.name})
	if err != nil {
		return
	}
	var ids []s3types.ObjectIdentifier
	for _, v := range out.Versions {
		ids = append(ids, s3types.ObjectIdentifier{Key: v.Key, VersionId: v.VersionId})
	}
	for _, d := range out.DeleteMarkers {
		ids = append(ids, s3types.ObjectIdentifier{Key: d.Key, VersionId: d.VersionId})
	}
	if len(ids) > 0 {
		w.client.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: &w.name, Delete: &s3types.Delete{Objects: ids}})
	}
	w.client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &w.name})
}

// gone stands for a delete in a file's history.
const gone = "<deleted>"

// write plays history on key: each entry written over the current
// version (If-Match, or a create), or gone, a conditional delete.
func (w *workspaceBucket) write(t *testing.T, key string, history ...string) {
	t.Helper()
	ctx := context.Background()
	var etag string
	for _, h := range history {
		var err error
		if h == gone {
			err, etag = w.files.Delete(ctx, key, etag), ""
		} else {
			etag, err = w.files.Put(ctx, key, []byte(h), etag)
		}
		if err != nil {
			t.Fatalf("write %q to %s: %v", h, key, err)
		}
	}
}

// content is key's current content, or gone.
func (w *workspaceBucket) content(t *testing.T, key string) string {
	t.Helper()
	obj, err := w.files.Fetch(context.Background(), key)
	if err != nil {
		return gone
	}
	return string(obj.Data)
}

// versionIDs lists key's version ids, newest first, through the CLI.
func versionIDs(t *testing.T, path string) []s3store.Version {
	t.Helper()
	out, errOut, err := zeroRun(t, "workspace", "versions", "--agent", "main", "--json", path)
	if err != nil {
		t.Fatalf("versions --json: %v\n%s", err, errOut)
	}
	var list versionList
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("versions --json: %v\n%s", err, out)
	}
	return list.Versions
}

func TestWorkspaceVersions(t *testing.T) {
	w := newWorkspaceBucket(t)
	const key = "agents/main/workspace/AGENTS.md"
	w.write(t, key, "rules v1\n", "rules v2!\n", gone)
	w.write(t, "agents/main/workspace/AGENTS.md.bak", "not this one")
	w.write(t, "agents/other/workspace/AGENTS.md", "nor this one")

	out, errOut, err := zeroRun(t, "workspace", "versions", "--agent", "main", "AGENTS.md")
	if err != nil {
		t.Fatalf("versions: %v\n%s", err, errOut)
	}
	// The ids are the emulator's; the rest is fixed.
	ids := regexp.MustCompile(`(?m)^\S+ +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)
	got := ids.ReplaceAllStringFunc(out, func(s string) string { return "ID  TIME" })
	want := "agents/main/workspace/AGENTS.md in bucket " + w.name + ": 3 versions, newest first\n" + strings.Join([]string{
		"VERSION ID                            LAST MODIFIED         SIZE  STATE",
		"ID  TIME  -     delete marker (current: the file is deleted)",
		"ID  TIME  10    ",
		"ID  TIME  9     ",
	}, "\n") + "\n"
	// The table's column widths follow the ids; compare field by field.
	if diff := cmp.Diff(strings.Fields(want), strings.Fields(got)); diff != "" {
		t.Errorf("versions output (-want +got):\n%s\nwhole output:\n%s", diff, out)
	}

	vs := versionIDs(t, "AGENTS.md")
	if len(vs) != 3 || !vs[0].DeleteMarker || !vs[0].Latest || vs[1].Size != 10 || vs[2].Size != 9 || vs[1].ETag == "" {
		t.Errorf("versions --json = %+v; want a current delete marker, then versions of 10 and 9 bytes", vs)
	}
}

func TestWorkspaceRestore(t *testing.T) {
	const path, key = "memory/notes.md", "agents/main/workspace/memory/notes.md"
	tests := []struct {
		name    string
		history []string
		version int // restore the version at this index (newest first); -1: the default
		want    string
		wantErr string
	}{
		{name: "a deleted file comes back", history: []string{"one", "two", gone}, version: -1, want: "two"},
		{name: "an overwrite is undone", history: []string{"one", "two"}, version: -1, want: "one"},
		{name: "a chosen version", history: []string{"one", "two", gone}, version: 2, want: "one"},
		{name: "nothing earlier", history: []string{"one"}, version: -1, want: "one", wantErr: "no earlier version with content"},
		{name: "a delete marker is not content", history: []string{"one", gone}, version: 0, want: gone, wantErr: "is a delete marker"},
		{name: "a file never written", version: -1, want: gone, wantErr: "has no versions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorkspaceBucket(t)
			w.write(t, key, tt.history...)
			args := []string{"workspace", "restore", "--agent", "main", path}
			if tt.version >= 0 {
				args = append(args, "--version", versionIDs(t, path)[tt.version].ID)
			}
			out, errOut, err := zeroRun(t, args...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("restore = %v; want an error containing %q\n%s%s", err, tt.wantErr, out, errOut)
				}
			} else if err != nil || !strings.HasPrefix(out, "restored "+key+" to version ") {
				t.Errorf("restore = %v\nstdout: %s\nstderr: %s", err, out, errOut)
			}
			if got := w.content(t, key); got != tt.want {
				t.Errorf("content after the restore = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestWorkspaceRestoreKeepsHistory: a restore adds a version and removes
// none, so it can itself be undone, and the file tools carry on with the
// restored file's ETag.
func TestWorkspaceRestoreKeepsHistory(t *testing.T) {
	w := newWorkspaceBucket(t)
	const key = "agents/main/workspace/MEMORY.md"
	w.write(t, key, "remember A", "remember B")
	if _, errOut, err := zeroRun(t, "workspace", "restore", "--agent", "main", "MEMORY.md"); err != nil {
		t.Fatalf("restore: %v\n%s", err, errOut)
	}
	if _, errOut, err := zeroRun(t, "workspace", "restore", "MEMORY.md", "--agent", "main"); err != nil {
		t.Fatalf("restore of the restore: %v\n%s", err, errOut)
	}
	if got := w.content(t, key); got != "remember B" {
		t.Errorf("after two restores: %q, want %q", got, "remember B")
	}
	if n := len(versionIDs(t, "MEMORY.md")); n != 4 {
		t.Errorf("%d versions after two writes and two restores, want 4", n)
	}
	obj, err := w.files.Fetch(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.files.Put(context.Background(), key, []byte("remember C"), obj.ETag); err != nil {
		t.Errorf("the file tools' update of the restored file: %v", err)
	}
}

func TestWorkspaceUsage(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "no bucket", args: []string{"workspace", "versions", "--agent", "main", "AGENTS.md"}, wantErr: "name the bucket"},
		{name: "no agent", args: []string{"workspace", "restore", "--bucket", "b", "AGENTS.md"}, wantErr: "--agent ID is required"},
		{name: "a path outside the workspace", args: []string{"workspace", "versions", "--agent", "main", "--bucket", "b", "../x/AGENTS.md"}, wantErr: "invalid path"},
		{name: "unknown subcommand", args: []string{"workspace", "rm"}, wantErr: `unknown workspace command "rm"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(bucketEnv, "")
			_, _, err := zeroRun(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v; want %q", err, tt.wantErr)
			}
		})
	}
	for _, args := range [][]string{{"workspace", "versions", "-h"}, {"workspace", "restore", "-h"}} {
		_, errOut, err := zeroRun(t, args...)
		if !errors.Is(err, flag.ErrHelp) || !strings.Contains(errOut, "usage: zero workspace "+args[1]) || !strings.Contains(errOut, "-agent ID") {
			t.Errorf("%v: %v\n%s", args, err, errOut)
		}
	}
}

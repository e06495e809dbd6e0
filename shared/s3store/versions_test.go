package s3store

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
)

// key is the file the version tests write: a space needs encoding in the
// copy source (moto refuses the signature of non-ASCII keys and of "+",
// which TestCopySource covers).
const key = "w/notes/a b.md"

// deleted stands for a delete in a history, and for a delete marker in a
// described version list.
const deleted = "<deleted>"

// writeHistory writes history to key as the file tools do: each entry a
// conditional write of that content (a create, or an update of the
// current ETag), or deleted, a conditional delete.
func writeHistory(t *testing.T, b *Bucket, key string, history []string) {
	t.Helper()
	ctx := context.Background()
	var etag string
	for i, h := range history {
		var err error
		if h == deleted {
			err, etag = b.Delete(ctx, key, etag), ""
		} else {
			etag, err = b.Put(ctx, key, []byte(h), etag)
		}
		if err != nil {
			t.Fatalf("history step %d (%q): %v", i, h, err)
		}
	}
}

// describe is vs as contents (deleted for a marker), the current one
// starred, and checks each version's id, size and ETag against it.
func describe(t *testing.T, b *Bucket, key string, vs []Version) []string {
	t.Helper()
	var out []string
	ids := map[string]bool{}
	for _, v := range vs {
		if v.ID == "" || ids[v.ID] {
			t.Errorf("version id %q missing or repeated in %+v", v.ID, vs)
		}
		ids[v.ID] = true
		d := deleted
		if !v.DeleteMarker {
			data := versionContent(t, b, key, v.ID)
			if v.Size != int64(len(data)) || v.ETag == "" {
				t.Errorf("version %s of %q: size %d, ETag %q; want size %d and an ETag", v.ID, data, v.Size, v.ETag, len(data))
			}
			d = data
		}
		if v.Latest {
			d += "*"
		}
		out = append(out, d)
	}
	return out
}

// versionContent reads one version of key.
func versionContent(t *testing.T, b *Bucket, key, id string) string {
	t.Helper()
	out, err := b.client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: &b.bucket, Key: &key, VersionId: &id}, quietChecksums)
	if err != nil {
		t.Fatalf("get %s version %s: %v", key, id, err)
	}
	defer out.Body.Close()
	data, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestVersions(t *testing.T) {
	tests := []struct {
		name    string
		history []string
		want    []string // newest first, the current one starred
	}{
		{name: "never written", history: nil, want: nil},
		{name: "written once", history: []string{"one"}, want: []string{"one*"}},
		{name: "overwritten", history: []string{"one", "two", "three"}, want: []string{"three*", "two", "one"}},
		{name: "deleted", history: []string{"one", "two", deleted}, want: []string{deleted + "*", "two", "one"}},
		{name: "deleted and written again", history: []string{"one", deleted, "again"}, want: []string{"again*", deleted, "one"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(testClient, freshVersionedBucket(t))
			b.pageSize = 2
			// Keys that start with key, before and after it in key order.
			writeHistory(t, b, key+".bak", []string{"sibling", "sibling 2"})
			writeHistory(t, b, key[:len(key)-1], []string{"shorter"})
			writeHistory(t, b, key, tt.history)
			vs, err := b.Versions(context.Background(), key)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, describe(t, b, key, vs)); diff != "" {
				t.Errorf("versions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRestore(t *testing.T) {
	tests := []struct {
		name    string
		history []string
		restore int // index of the version to restore, newest first
		want    []string
	}{
		{name: "a deleted file comes back", history: []string{"one", deleted}, restore: 1, want: []string{"one*", deleted, "one"}},
		{name: "an overwritten file gets its old content", history: []string{"one", "two", "three"}, restore: 2, want: []string{"one*", "three", "two", "one"}},
		{name: "the newest of several", history: []string{"one", "two", deleted}, restore: 1, want: []string{"two*", deleted, "two", "one"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			b := New(testClient, freshVersionedBucket(t))
			writeHistory(t, b, key, tt.history)
			before, err := b.Versions(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			id, err := b.Restore(ctx, key, before[tt.restore].ID, before[0].ETag)
			if err != nil {
				t.Fatalf("Restore: %v", err)
			}
			after, err := b.Versions(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if after[0].ID != id {
				t.Errorf("Restore answered version %s; the current one is %s", id, after[0].ID)
			}
			if diff := cmp.Diff(tt.want, describe(t, b, key, after)); diff != "" {
				t.Errorf("versions after the restore (-want +got):\n%s", diff)
			}
			// The file tools carry on: the restored file's ETag updates it.
			obj, err := b.Fetch(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.Put(ctx, key, []byte("edited"), obj.ETag); err != nil {
				t.Errorf("update of the restored file: %v", err)
			}
		})
	}
	// moto ignores CopyObject's If-Match / If-None-Match, so a restore
	// over a file changed meanwhile (S3: 412, fault.Conflict) is not
	// checked here.
	t.Run("a version the key does not have is not found", func(t *testing.T) {
		b := New(testClient, freshVersionedBucket(t))
		writeHistory(t, b, key, []string{"one"})
		writeHistory(t, b, "other", []string{"other"})
		vs, err := b.Versions(context.Background(), "other")
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.Restore(context.Background(), key, vs[0].ID, "")
		if !fault.Is(err, fault.NotFound) {
			t.Errorf("Restore of another key's version = %v; want fault.NotFound", err)
		}
	})
}

func TestNewestFirst(t *testing.T) {
	t0 := time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC)
	v := func(name string, at time.Time, marker, latest bool) Version {
		return Version{ID: name, Modified: at, DeleteMarker: marker, Latest: latest}
	}
	tests := []struct {
		name string
		a, b Version
		want int
	}{
		{"the current one first, even if older", v("a", t0, false, true), v("b", t0.Add(time.Second), false, false), -1},
		{"newer before older", v("a", t0.Add(time.Second), false, false), v("b", t0, true, false), -1},
		{"older after newer", v("a", t0, true, false), v("b", t0.Add(time.Second), false, false), 1},
		{"same second: the marker first", v("a", t0, false, false), v("b", t0, true, false), 1},
		{"same second, both versions: as listed", v("a", t0, false, false), v("b", t0, false, false), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := newestFirst(tt.a, tt.b); got != tt.want {
				t.Errorf("newestFirst = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestCopySource(t *testing.T) {
	tests := []struct{ key, id, want string }{
		{"agents/main/workspace/AGENTS.md", "v1", "b/agents/main/workspace/AGENTS.md?versionId=v1"},
		{"agents/main/workspace/a b ü+?.md", "3/L4kq+tJ=", "b/agents/main/workspace/a%20b%20%C3%BC%2B%3F.md?versionId=3%2FL4kq%2BtJ%3D"},
	}
	for _, tt := range tests {
		if got := copySource("b", tt.key, tt.id); got != tt.want {
			t.Errorf("copySource(%q, %q) = %q, want %q", tt.key, tt.id, got, tt.want)
		}
	}
}

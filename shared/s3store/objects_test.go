package s3store

import (
	"context"
	"fmt"
	"testing"
)

func TestListObjectsCarriesETagsAndSizes(t *testing.T) {
	ctx := context.Background()
	b := New(testClient, freshBucket(t))
	b.pageSize = 2
	bodies := map[string]string{"w/MEMORY.md": "one", "w/memory/a.md": "three", "w/memory/b.md": "fives", "x/outside.md": "no"}
	for k, v := range bodies {
		if err := b.Create(ctx, k, []byte(v)); err != nil {
			t.Fatalf("Create %s: %v", k, err)
		}
	}
	counter.Reset()
	got, err := b.ListObjects(ctx, "w/")
	if err != nil {
		t.Fatalf("ListObjects: %v", err)
	}
	var keys []string
	etags := map[string]bool{}
	for _, o := range got {
		keys = append(keys, o.Key)
		etags[o.ETag] = true
		if o.ETag == "" || o.Size != int64(len(bodies[o.Key])) {
			t.Errorf("%s: etag %q, size %d; want an ETag and size %d", o.Key, o.ETag, o.Size, len(bodies[o.Key]))
		}
	}
	if want := "[w/MEMORY.md w/memory/a.md w/memory/b.md]"; fmt.Sprint(keys) != want {
		t.Errorf("keys = %v; want %s", keys, want)
	}
	if len(etags) != 3 {
		t.Errorf("ETags %v; want one per distinct content", etags)
	}
	if c := counter.String(); c != "S3.ListObjectsV2=2" {
		t.Errorf("ListObjects of 3 keys by pages of 2 made %s; want 2 ListObjectsV2 calls", c)
	}
}

package s3store

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/zero-gateway/zero/shared/awstest"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/transcript"
	"github.com/zero-gateway/zero/shared/transcript/transcripttest"
)

func TestConformance(t *testing.T) {
	transcripttest.TestBucket(t, func(t *testing.T) transcript.Bucket { return New(testClient, freshBucket(t)) })
}

func TestCreateTwiceKeepsFirst(t *testing.T) {
	ctx := context.Background()
	name := freshBucket(t)
	b := New(testClient, name)
	if err := b.Create(ctx, "a/1.jsonl", []byte("{\"n\":1}\n")); err != nil {
		t.Fatalf("Create: %v", err)
	}
	err := b.Create(ctx, "a/1.jsonl", []byte("{\"n\":2}\n"))
	if !fault.Is(err, fault.Conflict) {
		t.Fatalf("second Create = %v; want fault.Conflict", err)
	}
	got, err := b.Get(ctx, "a/1.jsonl")
	if err != nil || string(got) != "{\"n\":1}\n" {
		t.Fatalf("Get = %q, %v; want the first body", got, err)
	}
	head, err := testClient.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &name, Key: aws.String("a/1.jsonl")})
	if err != nil || aws.ToString(head.ContentType) != ContentType {
		t.Fatalf("content type = %q, %v; want %s", aws.ToString(head.ContentType), err, ContentType)
	}
}

func TestConcurrentCreateOneWins(t *testing.T) {
	ctx := context.Background()
	b := New(testClient, freshBucket(t))
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Go(func() { errs[i] = b.Create(ctx, "race", []byte(fmt.Sprint("body ", i))) })
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("writers %d and %d both won", winner, i)
		case err == nil:
			winner = i
		case !fault.Is(err, fault.Conflict):
			t.Errorf("writer %d: %v; want nil or fault.Conflict", i, err)
		}
	}
	if winner < 0 {
		t.Fatalf("no writer won: %v", errs)
	}
	if got, _ := b.Get(ctx, "race"); string(got) != fmt.Sprint("body ", winner) {
		t.Fatalf("object = %q; want the winner's body %q", got, fmt.Sprint("body ", winner))
	}
}

func TestListPaginates(t *testing.T) {
	ctx := context.Background()
	b := New(testClient, freshBucket(t))
	b.pageSize = 10
	var want []string
	for i := 25; i >= 1; i-- { // created out of order
		k := fmt.Sprintf("p.d/%010d.jsonl", i)
		want = append(want, k)
		if err := b.Create(ctx, k, []byte("x")); err != nil {
			t.Fatalf("Create: %v", err)
		}
	}
	if err := b.Create(ctx, "p.e/0000000001.jsonl", []byte("x")); err != nil { // outside the prefix
		t.Fatalf("Create: %v", err)
	}
	slices.Sort(want)
	counter.Reset()
	got, err := b.List(ctx, "p.d/")
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("List = %v\nwant %v", got, want)
	}
	if c := counter.String(); c != "S3.ListObjectsV2=3" {
		t.Errorf("List of 25 keys by pages of 10 made %s; want 3 ListObjectsV2 calls", c)
	}
}

func TestMissingBucketIsNotNotFound(t *testing.T) {
	ctx := context.Background()
	b := New(testClient, awstest.Name("zero-missing-"))
	// A NotFound here would make the runner think a transcript part is
	// absent and write a new one; a missing bucket must be a hard error.
	if _, err := b.Get(ctx, "k"); err == nil || fault.Is(err, fault.NotFound) {
		t.Errorf("Get on a missing bucket = %v; want an error other than fault.NotFound", err)
	}
	if err := b.Create(ctx, "k", []byte("x")); err == nil || fault.Is(err, fault.Conflict) {
		t.Errorf("Create on a missing bucket = %v; want an error other than fault.Conflict", err)
	}
}

// fakeS3 answers PutObject with 409 ConditionalRequestConflict for the
// first `conflicts` requests, then 200.
func fakeS3(t *testing.T, conflicts int32) (*Bucket, *atomic.Int32) {
	var puts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPut || r.Header.Get("If-None-Match") != "*" {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		if puts.Add(1) <= conflicts {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusConflict)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>ConditionalRequestConflict</Code><Message>A conflicting conditional operation is in progress.</Message></Error>`)
			return
		}
		w.Header().Set("ETag", `"abc"`)
	}))
	t.Cleanup(srv.Close)
	client := s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		APIOptions:   testCfg.APIOptions,
	})
	return New(client, "b"), &puts
}

func TestCreateRetriesConditionalConflict(t *testing.T) {
	b, puts := fakeS3(t, 2)
	if err := b.Create(context.Background(), "k", []byte("x")); err != nil {
		t.Fatalf("Create after two 409s = %v; want success", err)
	}
	if n := puts.Load(); n < 3 {
		t.Errorf("server saw %d PutObject requests; want at least 3", n)
	}

	b, _ = fakeS3(t, 1000)
	if err := b.Create(context.Background(), "k", []byte("x")); !fault.Is(err, fault.Unavailable) {
		t.Fatalf("Create under endless 409s = %v; want fault.Unavailable", err)
	}
}

// BenchmarkCreateGet writes and reads one small part per iteration (the
// time is the emulator's; calls per op are what carry over to AWS).
func BenchmarkCreateGet(b *testing.B) {
	ctx := context.Background()
	bk := New(testClient, freshBucket(b))
	data := []byte(`{"type":"message","id":"0123abcd"}` + "\n")
	counter.Reset()
	for i := 0; b.Loop(); i++ {
		k := transcript.PartKey("agents/main/sessions/bench.jsonl", int64(i+1))
		if err := bk.Create(ctx, k, data); err != nil {
			b.Fatal(err)
		}
		if _, err := bk.Get(ctx, k); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(counter.Total())/float64(b.N), "calls/op")
}

// TestTranscriptDelete removes a transcript part by part through
// transcript.Log on a real bucket, idempotently.
func TestTranscriptDelete(t *testing.T) {
	ctx := context.Background()
	b := New(testClient, freshBucket(t))
	log := transcript.NewLog(b)
	path := "agents/main/sessions/s1.jsonl"
	for seq := int64(1); seq <= 3; seq++ {
		if err := log.WritePart(ctx, path, seq, []any{map[string]any{"type": "message", "id": seq}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Create(ctx, "agents/main/sessions/s2.jsonl.d/0000000001.jsonl", []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second time there is nothing left to delete
		if err := log.Delete(ctx, path); err != nil {
			t.Fatalf("Delete: %v", err)
		}
	}
	if keys, err := b.List(ctx, "agents/main/sessions/"); err != nil || len(keys) != 1 || keys[0] != "agents/main/sessions/s2.jsonl.d/0000000001.jsonl" {
		t.Fatalf("left %v, %v; want only the other session's part", keys, err)
	}
}

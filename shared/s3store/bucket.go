// Package s3store is the S3 implementation of transcript.Bucket.
//
// Objects are written create-only (PutObject with If-None-Match: *), so a
// transcript part, once written, never changes; S3 reads and listings are
// strongly consistent, so a Get or List after a successful Create sees it.
//
// Errors are classified with shared/fault: an existing key on Create is
// fault.Conflict, a missing key on Get fault.NotFound, throttling, 5xx and
// network failures fault.Unavailable. A missing bucket is fault.Internal (a
// deployment problem), never NotFound.
package s3store

import (
	"bytes"
	"context"
	"io"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/transcript"
)

// ContentType of every object: transcripts are JSON Lines.
const ContentType = "application/x-ndjson"

// conflictRetries is how many times Create repeats a PutObject that S3
// answered 409 ConditionalRequestConflict (a concurrent conditional write to
// the same key) before giving up with fault.Unavailable.
const conflictRetries = 4

// Bucket is a transcript.Bucket on one S3 bucket. Safe for concurrent use.
type Bucket struct {
	client   *s3.Client
	bucket   string
	pageSize int32 // ListObjectsV2 and ListObjectVersions MaxKeys; 0 means S3's default (1000). Tests lower it.
}

var _ transcript.Bucket = (*Bucket)(nil)

// New returns a Bucket on the S3 bucket named bucket. Against a local
// emulator the client needs UsePathStyle = true.
func New(client *s3.Client, bucket string) *Bucket {
	return &Bucket{client: client, bucket: bucket}
}

// Create stores data under key only if key does not exist yet (one
// conditional PutObject, content type application/x-ndjson). An existing
// key, whatever its content, is fault.Conflict and stays unchanged.
//
// Idempotency: if a PutObject succeeded but its answer was lost and the SDK
// retried it, the retry sees the object and Create reports fault.Conflict;
// callers that may retry read the object back to tell their own write from
// another's (as transcript parts do with their source ids).
func (b *Bucket) Create(ctx context.Context, key string, data []byte) error {
	backoff := 50 * time.Millisecond
	for attempt := 0; ; attempt++ {
		_, err := b.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket:      &b.bucket,
			Key:         &key,
			Body:        bytes.NewReader(data), // seekable: the SDK can sign and retry it over plain http
			ContentType: aws.String(ContentType),
			IfNoneMatch: aws.String("*"),
		})
		switch {
		case err == nil:
			return nil
		case status(err) == 412 || apiCode(err) == "PreconditionFailed":
			return fault.Wrap(fault.Conflict, err, "object %s already exists", key)
		case status(err) == 409 || apiCode(err) == "ConditionalRequestConflict":
			if attempt >= conflictRetries {
				return fault.Wrap(fault.Unavailable, err, "create object %s: concurrent writes kept conflicting", key)
			}
		default:
			return classify(err, "create object "+key)
		}
		select {
		case <-ctx.Done():
			return fault.Wrap(fault.Unavailable, ctx.Err(), "create object %s", key)
		case <-time.After(backoff):
		}
		backoff *= 2
	}
}

// Get returns the whole object, or fault.NotFound when key does not exist.
func (b *Bucket) Get(ctx context.Context, key string) ([]byte, error) {
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.bucket, Key: &key}, quietChecksums)
	if err != nil {
		if isNoSuchKey(err) {
			return nil, fault.Wrap(fault.NotFound, err, "object %s not found", key)
		}
		return nil, classify(err, "get object "+key)
	}
	defer out.Body.Close()
	data, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "read object %s", key)
	}
	return data, nil
}

// List returns every key that starts with prefix, in lexical (byte) order,
// following ListObjectsV2 continuation tokens across pages.
func (b *Bucket) List(ctx context.Context, prefix string) ([]string, error) {
	objs, err := b.ListObjects(ctx, prefix)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(objs))
	for i, o := range objs {
		keys[i] = o.Key
	}
	// S3 already lists in UTF-8 byte order; sorting keeps the contract on
	// emulators that might not.
	slices.Sort(keys)
	return keys, nil
}

// quietChecksums stops the SDK logging "Response has no supported checksum"
// for every object stored without one (emulators, objects from other tools);
// responses that do carry a checksum are still validated.
func quietChecksums(o *s3.Options) { o.DisableLogOutputChecksumValidationSkipped = true }

func isNoSuchKey(err error) bool {
	if status(err) == 404 {
		return apiCode(err) != "NoSuchBucket"
	}
	return apiCode(err) == "NoSuchKey"
}

// Remove deletes the object at key with one DeleteObject; a missing object
// is not an error (S3 answers the same either way).
func (b *Bucket) Remove(ctx context.Context, key string) error {
	_, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &b.bucket, Key: &key})
	return classify(err, "delete object "+key)
}

package s3store

import (
	"bytes"
	"context"
	"io"
	"mime"
	"path"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/files"
)

// The workspace file tools' store: every write is conditional.
var _ files.Store = (*Bucket)(nil)

// Fetch returns the object at key with its ETag (one GetObject), or
// fault.NotFound.
func (b *Bucket) Fetch(ctx context.Context, key string) (files.Object, error) {
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.bucket, Key: &key}, quietChecksums)
	if err != nil {
		if isNoSuchKey(err) {
			return files.Object{}, fault.Wrap(fault.NotFound, err, "object %s not found", key)
		}
		return files.Object{}, classify(err, "get object "+key)
	}
	defer out.Body.Close()
	data, err := io.ReadAll(io.LimitReader(out.Body, files.MaxFileBytes+1))
	if err != nil {
		return files.Object{}, fault.Wrap(fault.Unavailable, err, "read object %s", key)
	}
	return files.Object{Data: data, ETag: aws.ToString(out.ETag)}, nil
}

// Put stores data at key with one conditional PutObject: If-None-Match: *
// when ifMatch is "", If-Match: ifMatch otherwise. S3's 412
// PreconditionFailed, and a 404 for an If-Match on a key that is gone,
// are fault.Conflict; a 409 ConditionalRequestConflict (a concurrent
// conditional write) is retried like Create's. The content type follows
// the key's extension, text/plain for the rest.
func (b *Bucket) Put(ctx context.Context, key string, data []byte, ifMatch string) (string, error) {
	in := &s3.PutObjectInput{Bucket: &b.bucket, Key: &key, ContentType: aws.String(contentType(key))}
	if ifMatch == "" {
		in.IfNoneMatch = aws.String("*")
	} else {
		in.IfMatch = aws.String(ifMatch)
	}
	backoff := 50 * time.Millisecond
	for attempt := 0; ; attempt++ {
		in.Body = bytes.NewReader(data)
		out, err := b.client.PutObject(ctx, in)
		switch {
		case err == nil:
			return aws.ToString(out.ETag), nil
		case preconditionFailed(err) || (ifMatch != "" && isNoSuchKey(err)):
			return "", fault.Wrap(fault.Conflict, err, "object %s: the write's condition failed", key)
		case status(err) == 409 || apiCode(err) == "ConditionalRequestConflict":
			if attempt >= conflictRetries {
				return "", fault.Wrap(fault.Unavailable, err, "put object %s: concurrent writes kept conflicting", key)
			}
		default:
			return "", classify(err, "put object "+key)
		}
		select {
		case <-ctx.Done():
			return "", fault.Wrap(fault.Unavailable, ctx.Err(), "put object %s", key)
		case <-time.After(backoff):
		}
		backoff *= 2
	}
}

// Delete removes the object at key with one DeleteObject conditioned on
// If-Match: ifMatch (S3 needs s3:DeleteObject and s3:GetObject for it). A
// changed object (412, or 409 for a concurrent write) is fault.Conflict, a
// missing one fault.NotFound.
func (b *Bucket) Delete(ctx context.Context, key, ifMatch string) error {
	_, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &b.bucket, Key: &key, IfMatch: aws.String(ifMatch)})
	switch {
	case err == nil:
		return nil
	case preconditionFailed(err) || status(err) == 409:
		return fault.Wrap(fault.Conflict, err, "object %s changed before its delete", key)
	case isNoSuchKey(err):
		return fault.Wrap(fault.NotFound, err, "object %s not found", key)
	}
	return classify(err, "delete object "+key)
}

func preconditionFailed(err error) bool {
	return status(err) == 412 || apiCode(err) == "PreconditionFailed"
}

// contentType is the MIME type of a workspace file by its extension.
func contentType(key string) string {
	switch ext := path.Ext(key); ext {
	case ".md":
		return "text/markdown; charset=utf-8"
	case "":
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
	}
	return "text/plain; charset=utf-8"
}
